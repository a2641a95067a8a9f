/** Paths, temporary folders and shared measurements for benchmarks (the tests' helpers re-exported, so bench/ reads on its own). */
import type { EnginePool } from '../engine/pool/pool.js';
import { ingestStoredSource } from '../engine/service/ingest-source.js';
import { createUser } from '../gateway/services/accounts.js';
import { acceptSource, sourceType } from '../storage/sources.js';
import type { SourceRecord, Store } from '../storage/store.js';
import { fitCorpusKeys, fitCorpusPath } from '../test/support/fit-corpus.js';

export { REPO_ROOT } from '../test/support/paths.js';
export { fitCorpusKeys, fitCorpusPath } from '../test/support/fit-corpus.js';
export { tempDir } from '../test/support/stack.js';
/** What a script's run() returns and the rows of the closing table (bench/results.ts), here too for scripts that read this file only. */
export { share, type BenchOutput, type BenchResult, type BenchRow } from './results.js';

/**
 * `full`, or `trial` when BENCH_QUICK=1: a run that checks what a script returns (its rows' shape), not
 * what it measures (test/bench/rows.test.ts). The one reader of BENCH_QUICK.
 */
export function quick<T>(full: T, trial: T): T {
  return process.env.BENCH_QUICK === '1' ? trial : full;
}

/** The corpus's FIT files: the copies in test/fixtures/fit, plus the GPL folder from ../shared when present (a spread of them under BENCH_QUICK). */
export function corpusFitFiles(): string[] {
  const files = fitCorpusKeys().filter((key) => key.toLowerCase().endsWith('.fit')).map(fitCorpusPath);
  return quick(files, files.filter((_, k) => k % QUICK_CORPUS_STRIDE === 0));
}

/** Under BENCH_QUICK, every so many corpus files (a spread of the folders, a few seconds of work). */
const QUICK_CORPUS_STRIDE = 9;

/** Runs `work` on every item, `threads` at a time (one in flight per pool thread). */
async function eachInParallel<T>(threads: number, items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: threads }, async () => {
    while (next < items.length) await work(items[next++]!);
  }));
}

/** Ingests every file concurrently (one in flight per pool thread); returns activity hours and elapsed ms. */
export async function ingestAll(store: Store, pool: EnginePool, threads: number, files: { filename: string; bytes: Uint8Array }[]): Promise<{ hours: number; ms: number; failed: number }> {
  const user = await createUser(store, { email: `bench-${Math.random().toString(36).slice(2)}@example.com` });
  const sources: SourceRecord[] = [];
  for (const file of files) sources.push(await acceptSource(store, user.id, file));
  const started = performance.now();
  let hours = 0;
  let failed = 0;
  await eachInParallel(threads, sources, async (source) => {
    const result = await ingestStoredSource({ store, pool }, user.id, source.id, new AbortController().signal);
    if (result.status === 'failed') failed++;
    for (const id of result.activity_ids) {
      const activity = (await store.activities.findOne({ id, user_id: user.id }))!;
      hours += (activity.end - activity.start) / 3_600_000;
    }
  });
  return { hours, ms: performance.now() - started, failed };
}

/** Decodes every file in the pool and nothing else (no store), one in flight per thread: the ceiling of ingest and import, same files. */
export async function decodeAll(pool: EnginePool, threads: number, files: { filename: string; bytes: Uint8Array }[]): Promise<{ hours: number; ms: number; failed: number }> {
  const started = performance.now();
  let hours = 0;
  let failed = 0;
  await eachInParallel(threads, files, async (file) => {
    const type = sourceType(file);
    if (type === null) {
      failed++;
      return;
    }
    // A standalone copy, as ingest makes of the stored bytes (engine/service/decode-source.ts).
    const bytes = new Uint8Array(file.bytes).buffer as ArrayBuffer;
    const outcome = await pool.run('decodeFile', { bytes, type }, { transferList: [bytes] });
    if (!outcome.ok) failed++;
    else for (const activity of outcome.activities) hours += (activity.end - activity.start) / 3_600_000;
  });
  return { hours, ms: performance.now() - started, failed };
}

/** The fastest of `runs` runs of `measure` (a loaded machine slows some; the fastest is the least disturbed). */
export async function fastestOf<T extends { ms: number }>(runs: number, measure: () => Promise<T>): Promise<T> {
  return (await fastestOfEach(runs, [measure]))[0];
}

/**
 * The fastest run of each of `measures`, run in turn `runs` times: interleaved, so a figure and its anchor
 * meet the same moments of a loaded machine (a block of runs each would put them minutes apart).
 */
export async function fastestOfEach<T extends readonly { ms: number }[]>(runs: number, measures: { [K in keyof T]: () => Promise<T[K]> }): Promise<T> {
  const each = measures as readonly (() => Promise<{ ms: number }>)[];
  const best: ({ ms: number } | null)[] = each.map(() => null);
  for (let run = 0; run < runs; run++) {
    for (let k = 0; k < each.length; k++) {
      const result = await each[k]!();
      if (best[k] === null || result.ms < best[k]!.ms) best[k] = result;
    }
  }
  return best as unknown as T;
}

/** Hours of activity per minute of a measurement. */
export function hoursPerMinute(result: { hours: number; ms: number }): number {
  return result.hours / (result.ms / 60_000);
}

/** A synthetic 1 Hz CSV ride starting at `start` (Unix ms): power, heart rate, cadence, speed, distance and altitude. */
export function syntheticRideCsv(hours: number, start = Date.UTC(2024, 5, 1, 6)): string {
  const lines = ['timestamp,sport,power,heart_rate,cadence,speed,distance,altitude'];
  let distance = 0;
  for (let i = 0; i < hours * 3600; i++) {
    const speed = 8 + 2 * Math.sin(i / 300);
    distance += speed;
    lines.push(`${new Date(start + i * 1000).toISOString()},cycling.road,${Math.round(200 + 80 * Math.sin(i / 60))},${140 + (i % 20)},${85 + (i % 7)},${speed.toFixed(3)},${distance.toFixed(1)},${(100 + 50 * Math.sin(i / 900)).toFixed(1)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** `count` synthetic rides of `hours` each, one a day from 2024-06-01 (distinct bytes, distinct starts). */
export function syntheticRides(count: number, hours: number): { filename: string; bytes: Uint8Array }[] {
  return Array.from({ length: count }, (_, day) => ({
    filename: `synthetic-${String(day + 1).padStart(2, '0')}.csv`,
    bytes: Buffer.from(syntheticRideCsv(hours, Date.UTC(2024, 5, 1 + day, 6))),
  }));
}
