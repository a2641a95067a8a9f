/**
 * Question: how many hours of activity per minute does `threshold import` take in, end to end (a process
 * of its own: start-up, reading the files, its own worker pool and job runner, SQLite), against the ingest
 * path it wraps and against the ceiling of both, the decoder alone (the same files decoded in a pool,
 * nothing stored), all measured in the same run? On the corpus folder as a user would point it at it, and
 * on a folder of synthetic rides. The corpus folder holds FIT files and the expected-value CSVs, which are
 * not activities and must fail at once with their decode error (issue: imports that fail fast), so the
 * line reports the failures by code. The ingest path runs in this process (bench/support.ts ingestAll),
 * warmed, one source in flight per thread. Each figure is the fastest of three runs, the import, ingest and decoder in turn (a loaded machine slows
 * some). The command's fixed cost (Node.js start-up, its modules, the store, the pool's threads started and
 * warmed, the runner stopped) is measured alone, as the import of an empty folder, and the line gives its
 * share of the import's time: that part does not grow with the files. Beyond it, the command's workers
 * start with cold JIT, while the two ceilings here are measured warm.
 *
 * The same path as the import's, in this process: the files accepted and ingested through a pool started
 * for them (its threads' modules loaded, their JIT cold, as the command's are), timed from the pool's start.
 * It separates what is the command's own (the process, its store, reading the files) from what any fresh
 * pool pays: CPU time per thread of a corpus import (81 files) put its main thread at 0.7 s, its two pool
 * threads at 3.4 s and V8's helper threads (JIT compilation, collection) at 2.5 s, against 0.4, 2.0 and
 * 0.8 s for the warm ingest path: most of the gap is the new threads' cold code, not the command.
 *
 * Rows, per data set: the import against the decoder alone, end to end and net of the fixed cost (its hours
 * over the import's time less the empty folder's), against the ingest path it wraps (warm), and against
 * the same path through a pool started for it.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createPool, type EnginePool } from '../engine/pool/pool.js';
import { createUser } from '../gateway/services/accounts.js';
import { openStore } from '../storage/open-store.js';
import type { Store } from '../storage/store.js';
import { corpusFitFiles, decodeAll, fastestOf, fastestOfEach, fitCorpusKeys, fitCorpusPath, hoursPerMinute, ingestAll, quick, REPO_ROOT, syntheticRides, tempDir } from './support.js';
import { share, type BenchResult, type BenchRow, type Dataset } from './results.js';

export const question = '`threshold import`: hours of activity per minute, end to end, against the ingest path in-process and the decoder alone (corpus folder; synthetic rides)';

const CLI = path.join(REPO_ROOT, 'dist', 'cli', 'threshold.js');
const SYNTHETIC_RIDES = quick(24, 2);
const SYNTHETIC_HOURS = quick(1, 0.1);
/** Runs of the command (a process each) and of the in-process measurements, in turn. */
/** Runs of the empty folder's import (a second or two each): the fastest is the fixed cost. */
const FIXED_RUNS = quick(4, 1);
const RUNS = quick(3, 1);

interface ImportSummary {
  files: number;
  processed: number;
  failed: number;
  sources: { error: { code: string } | null }[];
}

type Files = { filename: string; bytes: Uint8Array }[];

/**
 * The corpus as a user would point the command at it: the folders of the fixture copies (FIT files and the
 * expected-value CSVs), and the GPL folder when the shared corpus is beside the project; with the same
 * files for the in-process paths. Under BENCH_QUICK, a spread of its FIT files copied into one folder.
 */
function corpusInput(): { folders: string[]; files: Files } {
  if (quick(false, true)) {
    const folder = tempDir('threshold-import-corpus-');
    const files = corpusFitFiles().map((file) => ({ filename: path.basename(file), bytes: readFileSync(file) }));
    for (const file of files) writeFileSync(path.join(folder, file.filename), file.bytes);
    return { folders: [folder], files };
  }
  const folders = new Set(fitCorpusKeys().map((key) => path.dirname(fitCorpusPath(key))));
  return { folders: [...folders].sort(), files: fitCorpusKeys().map((key) => ({ filename: path.basename(key), bytes: readFileSync(fitCorpusPath(key)) })) };
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

/** `threshold import` of `folders` into a fresh data folder, timed from the command's start to its summary. */
async function importFolders(folders: string[]): Promise<{ summary: ImportSummary; hours: number; ms: number }> {
  const dataDir = tempDir('threshold-import-bench-');
  const setup = await openStore({ mongodbUri: null, sqliteFile: path.join(dataDir, 'threshold.sqlite') });
  const user = await createUser(setup, { email: 'import-bench@example.com' });
  await setup.close();
  const started = performance.now();
  const { stdout } = await promisify(execFile)(process.execPath, [CLI, 'import', '--user', user.id, ...folders], {
    env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent', ENGINE_THREADS: String(os.availableParallelism()) },
    maxBuffer: 64 * 1024 * 1024,
  });
  const ms = performance.now() - started;
  return { summary: JSON.parse(stdout) as ImportSummary, hours: await activityHours(dataDir), ms };
}

/** Accepts and ingests `files` through a pool started for them, timed from the pool's start (cold threads, as the command's). */
async function ingestFreshPool(store: Store, threads: number, files: Files): Promise<{ hours: number; ms: number }> {
  const started = performance.now();
  const pool = createPool({ threads });
  try {
    const ingested = await ingestAll(store, pool, threads, files);
    return { hours: ingested.hours, ms: performance.now() - started };
  } finally {
    await pool.destroy();
  }
}

/** The figures of one data set: import (with and without its fixed cost), the ingest path and the decoder alone, with the ratios to the ceiling. */
async function measure(store: Store, pool: EnginePool, threads: number, dataset: Dataset, folders: string[], files: Files, fixedMs: number): Promise<{ line: string; summary: ImportSummary; rows: BenchRow[] }> {
  await decodeAll(pool, threads, files); // JIT of this data's decoder
  // In turn, the fastest of each: the three meet the same moments of a loaded machine.
  const [imported, ingest, fresh, decode] = await fastestOfEach(RUNS, [
    () => importFolders(folders), () => ingestAll(store, pool, threads, files), () => ingestFreshPool(store, threads, files), () => decodeAll(pool, threads, files),
  ] as const);
  const [i, p, f, d] = [hoursPerMinute(imported), hoursPerMinute(ingest), hoursPerMinute(fresh), hoursPerMinute(decode)];
  // Net of the fixed cost: the same hours over the time the files took beyond an empty folder's import.
  const net = hoursPerMinute({ hours: imported.hours, ms: Math.max(1, imported.ms - fixedMs) });
  const decoder = { anchor: d, anchorLabel: 'the decoder alone' };
  return {
    summary: imported.summary,
    line: `${imported.hours.toFixed(1)} h; import ${(imported.ms / 1000).toFixed(2)} s = ${i.toFixed(0)} h/min (${net.toFixed(0)} h/min net of the fixed cost), ingest path ${p.toFixed(0)} h/min, ` +
      `decoder alone ${d.toFixed(0)} h/min; import/decoder ${(i / d).toFixed(2)}, net of the fixed cost (${Math.round((100 * fixedMs) / imported.ms)} % of the import's time${fixedMs > imported.ms / 2 ? ': most of it, so the net figure is mostly noise' : ''}) ${(net / d).toFixed(2)}, ` +
      `ingest/decoder ${(p / d).toFixed(2)}, import/ingest ${(i / p).toFixed(2)}; through a pool started for the files ${f.toFixed(0)} h/min, import/that ${(i / f).toFixed(2)}`,
    rows: [
      { question: 'threshold import, end to end', dataset, figure: i, unit: 'h/min', ...decoder, ratio: share(i, d, 'higher') },
      { question: 'threshold import, net of its fixed start-up', dataset, figure: net, unit: 'h/min', ...decoder, ratio: share(net, d, 'higher') },
      { question: 'threshold import against the ingest path it wraps', dataset, figure: i, unit: 'h/min', anchor: p, anchorLabel: 'the ingest path in-process', ratio: share(i, p, 'higher') },
      { question: 'threshold import against the ingest path through a pool started for it', dataset, figure: i, unit: 'h/min', anchor: f, anchorLabel: 'accept + ingest, fresh pool', ratio: share(i, f, 'higher') },
    ],
  };
}

export async function run(): Promise<BenchResult> {
  const store = await openStore({ mongodbUri: null, sqliteFile: path.join(tempDir(), 'bench.sqlite') });
  const threads = os.availableParallelism();
  const pool = createPool({ threads });
  try {
    const input = corpusInput();
    await ingestAll(store, pool, threads, input.files); // worker start, JIT of the store's paths
    const empty = tempDir('threshold-import-empty-');
    mkdirSync(path.join(empty, 'nothing'));
    const fixed = await fastestOf(FIXED_RUNS, () => importFolders([empty]));
    const corpus = await measure(store, pool, threads, 'corpus', input.folders, input.files, fixed.ms);
    const codes = new Map<string, number>();
    for (const source of corpus.summary.sources) if (source.error) codes.set(source.error.code, (codes.get(source.error.code) ?? 0) + 1);
    const failures = [...codes].sort().map(([code, count]) => `${code} ${count}`).join(', ');

    const rides = syntheticRides(SYNTHETIC_RIDES, SYNTHETIC_HOURS);
    const folder = tempDir('threshold-import-rides-');
    for (const ride of rides) writeFileSync(path.join(folder, ride.filename), ride.bytes);
    const synthetic = await measure(store, pool, threads, 'synthetic', [folder], rides, fixed.ms);
    return {
      text: `fixed cost (process start-up, store, pool started and warmed: the import of an empty folder): ${(fixed.ms / 1000).toFixed(2)} s; ` +
        `corpus folders: ${corpus.summary.files} files (${corpus.summary.processed} processed, ${corpus.summary.failed} failed at once: ${failures || 'none'}), ${corpus.line}; ` +
        `synthetic: ${SYNTHETIC_RIDES} rides of ${SYNTHETIC_HOURS} h, ${synthetic.line} (${threads} threads)`,
      rows: [...corpus.rows, ...synthetic.rows],
    };
  } finally {
    await pool.destroy();
    await store.close();
  }
}
