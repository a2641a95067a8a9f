/**
 * Question: how many hours of activity per minute does `threshold import` take in, end to end (a process
 * of its own: start-up, reading the files, its own worker pool and job runner, SQLite), on the corpus
 * folder as a user would point it at it? That folder holds FIT files and the expected-value CSVs, which
 * are not activities and must fail at once with their decode error (issue: imports that fail fast), so
 * the line reports the failures by code. For scale, the same FIT and CSV files go through the ingest path
 * in this process (bench/support.ts ingestAll), measured in the same run: the ratio is what the command
 * adds around the path.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createPool } from '../engine/pool/pool.js';
import { createUser } from '../gateway/services/accounts.js';
import { openStore } from '../storage/open-store.js';
import { fitCorpusKeys, fitCorpusPath, ingestAll, REPO_ROOT, tempDir } from './support.js';

export const question = '`threshold import` of the corpus folder: hours of activity per minute, end to end, against the ingest path in-process';

const CLI = path.join(REPO_ROOT, 'dist', 'cli', 'threshold.js');

interface ImportSummary {
  files: number;
  processed: number;
  failed: number;
  sources: { error: { code: string } | null }[];
}

/** The folders a user would name: the fixture copies, and the GPL folder when the shared corpus is beside the project. */
function corpusFolders(): string[] {
  const folders = new Set(fitCorpusKeys().map((key) => path.dirname(fitCorpusPath(key))));
  return [...folders].sort();
}

async function activityHours(dataDir: string): Promise<number> {
  const store = await openStore({ mongodbUri: null, sqliteFile: path.join(dataDir, 'threshold.sqlite') });
  try {
    // Activities are sharded by user: read each user's.
    const activities = [];
    for (const { id } of await store.users.findFields({}, ['id'])) activities.push(...await store.activities.findFields({ user_id: id }, ['start', 'end']));
    return activities.reduce((total, activity) => total + (activity.end - activity.start) / 3_600_000, 0);
  } finally {
    await store.close();
  }
}

export async function run(): Promise<string> {
  const dataDir = tempDir('threshold-import-bench-');
  const setup = await openStore({ mongodbUri: null, sqliteFile: path.join(dataDir, 'threshold.sqlite') });
  const user = await createUser(setup, { email: 'import-bench@example.com' });
  await setup.close();

  const started = performance.now();
  const { stdout } = await promisify(execFile)(process.execPath, [CLI, 'import', '--user', user.id, ...corpusFolders()], {
    env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
    maxBuffer: 64 * 1024 * 1024,
  });
  const ms = performance.now() - started;
  const summary = JSON.parse(stdout) as ImportSummary;
  const hours = await activityHours(dataDir);
  const codes = new Map<string, number>();
  for (const source of summary.sources) if (source.error) codes.set(source.error.code, (codes.get(source.error.code) ?? 0) + 1);

  // The same files through the ingest path in this process, for the ratio.
  const store = await openStore({ mongodbUri: null, sqliteFile: path.join(tempDir(), 'bench.sqlite') });
  const threads = os.availableParallelism();
  const pool = createPool({ threads });
  try {
    const files = fitCorpusKeys().map((key) => ({ filename: path.basename(key), bytes: readFileSync(fitCorpusPath(key)) }));
    await ingestAll(store, pool, threads, files.slice(0, threads)); // warm-up: worker start, JIT
    const direct = await ingestAll(store, pool, threads, files.map((file) => ({ ...file, filename: `again-${file.filename}` })));
    const perMinute = (h: number, elapsed: number) => h / (elapsed / 60_000);
    const failures = [...codes].sort().map(([code, count]) => `${code} ${count}`).join(', ');
    return `import: ${summary.files} files (${summary.processed} processed, ${summary.failed} failed at once: ${failures}), ${hours.toFixed(1)} h in ` +
      `${(ms / 1000).toFixed(2)} s = ${perMinute(hours, ms).toFixed(0)} h/min; ingest path in-process: ${perMinute(direct.hours, direct.ms).toFixed(0)} h/min; ` +
      `ratio import/path ${(perMinute(hours, ms) / perMinute(direct.hours, direct.ms)).toFixed(2)}`;
  } finally {
    await pool.destroy();
    await store.close();
  }
}
