/**
 * `threshold import` as a pipeline (cli/import.ts): files are accepted while the pool decodes the ones
 * before (at most a bounded number ahead), and its writes commit in groups without losing what it
 * reported: a run killed at any point keeps every file its progress counted as settled, and a second
 * run finishes the rest with no duplicate. test/gateway/processes.test.ts covers the summary and errors.
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { once } from 'node:events';
import { csvActivity } from '../support/uploads.js';
import { runCli, runCliAsync } from '../support/processes.js';
import { tempDir } from '../support/stack.js';
import { REPO_ROOT } from '../support/paths.js';
import { signalGroup, spawnChild } from '../support/children.js';
import { openSqliteStore } from '../../storage/sqlite/sqlite-store.js';
import type { SourceRecord } from '../../storage/store.js';

const test = suite('threshold import');
const CLI = path.join(REPO_ROOT, 'dist/cli/threshold.js');

/** A data folder with one user, and a folder of `count` small CSV rides, a day apart. */
function setUp(count: number, threads: number): { env: Record<string, string>; userId: string; folder: string; dataDir: string } {
  const dataDir = tempDir();
  const folder = tempDir('threshold-import-');
  for (let day = 0; day < count; day++) {
    const start = new Date(Date.UTC(2024, 2, 1 + day, 6)).toISOString();
    fs.writeFileSync(path.join(folder, `ride-${String(day).padStart(2, '0')}.csv`), csvActivity({ start }));
  }
  // A short lease: the jobs of a killed run are claimed again soon.
  const env = { DATA_DIR: dataDir, ENGINE_THREADS: String(threads), JOB_LEASE_MS: '500' };
  const created = runCli(['user', 'create', '--email', 'pipeline@example.com'], env);
  assert.is(created.status, 0, created.stderr);
  return { env, userId: (created.json as { id: string }).id, folder, dataDir };
}

async function sourcesOf(dataDir: string, userId: string): Promise<SourceRecord[]> {
  const store = await openSqliteStore({ file: path.join(dataDir, 'threshold.sqlite') });
  try {
    return await store.sources.find({ user_id: userId });
  } finally {
    await store.close();
  }
}

test('accepts files while the pool decodes the first ones, a bounded number ahead of those settled', async () => {
  // One thread: at most 8 files accepted and not settled, so the 20th is accepted after the first settled.
  const { env, userId, folder, dataDir } = setUp(20, 1);
  try {
    const imported = runCli(['import', '--user', userId, folder], env);
    assert.is(imported.status, 0, imported.stderr);
    const summary = imported.json as { files: number; processed: number; sources: { file: string }[] };
    assert.equal([summary.files, summary.processed], [20, 20]);
    assert.equal(summary.sources.map((source) => path.basename(source.file)), fs.readdirSync(folder).sort(), 'the summary keeps the files in order');
    const sources = await sourcesOf(dataDir, userId);
    const firstSettled = Math.min(...sources.map((source) => source.updated_at));
    const lastAccepted = Math.max(...sources.map((source) => source.created_at));
    assert.ok(firstSettled <= lastAccepted, `the first file settled at ${firstSettled}, after the last was accepted at ${lastAccepted}`);
    assert.match(imported.stderr, 'import: 20/20 files settled (0 failed)');
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(folder, { recursive: true, force: true });
  }
});

test('a run killed mid-way keeps every file its progress reported settled, and a second run finishes with no duplicate', async () => {
  const { env, userId, folder, dataDir } = setUp(30, 2);
  try {
    const child = spawnChild(process.execPath, [CLI, 'import', '--user', userId, folder], { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '', ...env } });
    let stderr = '';
    let reported = 0;
    const closed = once(child, 'close');
    await new Promise<void>((resolve, reject) => {
      child.stdout!.resume();
      child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
        for (const [, settled] of stderr.matchAll(/import: (\d+)\/30 files settled/g)) reported = Math.max(reported, Number(settled));
        if (reported > 0) resolve();
      });
      child.once('exit', () => reject(new Error(`import ended before reporting progress: ${stderr}`)));
    });
    signalGroup(child.pid!, 'SIGKILL');
    await closed;

    const afterKill = await sourcesOf(dataDir, userId);
    const settled = afterKill.filter((source) => source.status !== 'processing');
    assert.ok(settled.length >= reported, `progress reported ${reported} settled, the store holds ${settled.length}`);

    const again = runCli(['import', '--user', userId, folder], env);
    assert.is(again.status, 0, again.stderr);
    const summary = again.json as { files: number; processed: number; activities: number };
    assert.equal([summary.files, summary.processed, summary.activities], [30, 30, 30]);
    const sources = await sourcesOf(dataDir, userId);
    assert.is(sources.length, 30, 'one source per file');
    assert.is(new Set(sources.flatMap((source) => source.activity_ids)).size, 30, 'one activity per file');
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(folder, { recursive: true, force: true });
  }
});

test('an import that cannot begin (an unknown user, a missing path, a file too large) says why, stores nothing and ends', async () => {
  // The pool starts before the files are walked (cli/import.ts): every early stop must still end the process.
  const { env, userId, folder, dataDir } = setUp(2, 2);
  try {
    fs.writeFileSync(path.join(folder, 'large.csv'), `timestamp,power\n${'2024-03-01T06:00:00Z,100\n'.repeat(100)}`);
    const cases: [string[], Record<string, string>, string][] = [
      [['--user', 'usr_unknown', folder], env, 'user usr_unknown does not exist'],
      [['--user', userId, path.join(folder, 'missing')], env, `${path.join(folder, 'missing')} does not exist`],
      [['--user', userId, folder], { ...env, MAX_UPLOAD_BYTES: '1024' }, `${path.join(folder, 'large.csv')} is larger than MAX_UPLOAD_BYTES (1024 bytes)`],
    ];
    for (const [args, caseEnv, message] of cases) {
      const imported = await runCliAsync(['import', ...args], caseEnv);
      assert.is(imported.status, 1, `${args.join(' ')}: ${imported.stderr}`);
      assert.match(imported.stdout + imported.stderr, message);
    }
    assert.equal(await sourcesOf(dataDir, userId), [], 'nothing stored');
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(folder, { recursive: true, force: true });
  }
});

test.run();
