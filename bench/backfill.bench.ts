/**
 * Question: how many hours of activity per minute does a provider backfill take in, end to end (connect,
 * list, download, accept, decode, store), for 300 one-hour FIT activities (BACKFILL_BENCH_ACTIVITIES) from
 * the intervals.icu stand-in enforcing 100 requests per 15 s (issue 15's target: ≥ 1,000 h/min; the
 * reference service states 50–100)?
 *
 * Two runs, because the answer is set by what the limit counts:
 * - every request counted (intervals.icu: a file is `GET /api/v1/activity/{id}/file`, an API call): one
 *   listing page carries up to 1,000 activities, but each file still costs a request: M metered requests
 *   answered need at least (⌈M / 100⌉ − 1) × 15 s under the stand-in's sliding window, and that is the
 *   anchor (the limit's ceiling: 300 files, 3 windows, 45 s, 400 h/min whatever the service does);
 * - files outside the limit (a CDN, as Wahoo's file URLs are): listing pages are the only metered calls,
 *   and the figure is the service's own pipeline; its anchor is the ingest path alone on the same files in
 *   this process (bench/support.ts ingestAll, one file in flight per pool thread, a SQLite file as the
 *   stack's), in the same run.
 * Timed from the callback (connection stored, backfill queued) to the last activity stored. Then the corpus
 * (issue 27 item 1): its FIT files served by the stand-in as a user's history (listed one a day back from
 * yesterday), files unmetered, against the ingest path alone on the same files. Metered, its ~70 requests
 * fit in one window of the limit: the limit would not be what is measured, so that run is left out.
 */
import { performance } from 'node:perf_hooks';
import { startStack } from '../test/support/stack.js';
import { startIntervalsIcuStandin } from '../test/support/standins/intervals-icu.js';
import { connectThroughPortal, ICU_CLIENT, intervalsIcuEnv, until } from '../test/support/integrations.js';
import { fitActivity } from '../test/support/fit-writer.js';
import { createApplication, createUser } from '../gateway/services/accounts.js';
import { createPool } from '../engine/pool/pool.js';
import { openStore } from '../storage/open-store.js';
import { corpusFitFiles, ingestAll, tempDir } from './support.js';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { share, type BenchResult } from './results.js';

export const question = 'Provider backfill: hours of activity per minute, 300 one-hour FIT activities, stand-in limited to 100 requests / 15 s';

const ACTIVITIES = Number(process.env.BACKFILL_BENCH_ACTIVITIES ?? 300);
const HOUR = 3_600_000;
const LIMIT = { requests: 100, windowMs: 15_000 };
const THREADS = 2; // ENGINE_THREADS of test/support/stack.ts

interface Outcome {
  hours: number;
  ms: number;
  requests: number;
  throttled: number;
  /** Requests the limit counted (answered, not 429). */
  metered: number;
}

/** One backfill of `files` listed at `starts`, until `expected` activities are stored. */
async function once(files: Uint8Array[], starts: number[], meterFiles: boolean, expected = files.length, timeoutMs = 30 * 60_000): Promise<Outcome> {
  const standin = await startIntervalsIcuStandin({
    clientId: ICU_CLIENT.id, clientSecret: ICU_CLIENT.secret, rateLimit: { ...LIMIT, retryAfter: true, files: meterFiles },
  });
  standin.activities.push(...files.map((file, i) => ({ id: `i${i}`, start: starts[i]!, file })));
  const stack = await startStack({ ...intervalsIcuEnv(standin), JOB_POLL_MS: '20', JOB_CONCURRENCY: '3', INTEGRATION_PAGE_SIZE: '1000' });
  try {
    const owner = await createUser(stack.store, { email: 'bench-owner@example.com' });
    const app = await createApplication(stack.store, owner.id, { name: 'Bench', redirect_uris: ['https://bench.example.com/cb'] });
    const user = await stack.userWithToken(['activities:read'], { appId: app.id });
    await connectThroughPortal(stack.baseUrl, user.token);
    const started = performance.now();
    await until('every activity stored', async () => ((await stack.store.activities.count({ user_id: user.userId })) >= expected ? true : undefined), timeoutMs);
    const ms = performance.now() - started;
    const activities = await stack.store.activities.findFields({ user_id: user.userId }, ['start', 'end']);
    const hours = activities.reduce((total, activity) => total + (activity.end - activity.start) / HOUR, 0);
    const metered = standin.requests.filter((request) => request.path.startsWith('/api/v1/') && request.status !== 429 && (meterFiles || !request.path.endsWith('/file'))).length;
    return { hours, ms, requests: standin.requests.length, throttled: standin.requests.filter((request) => request.status === 429).length, metered };
  } finally {
    await stack.close();
    await standin.close();
  }
}

/**
 * The same files through the ingest path alone, in this process: hours per minute, and the activities stored.
 * On a SQLite file as the stack's (synced commits): the anchor differs from the backfill by what the backfill
 * adds (jobs, downloads, the provider's budget), not by durability.
 */
async function ingestPath(files: Uint8Array[]): Promise<{ perMinute: number; activities: number }> {
  const dir = tempDir('threshold-backfill-bench-');
  const store = await openStore({ mongodbUri: null, sqliteFile: path.join(dir, 'bench.sqlite') });
  const pool = createPool({ threads: THREADS });
  try {
    const named = files.map((bytes, i) => ({ filename: `a${i}.fit`, bytes }));
    await ingestAll(store, pool, THREADS, named.slice(0, THREADS).map((file) => ({ ...file, filename: `warm-${file.filename}` })));
    const { hours, ms } = await ingestAll(store, pool, THREADS, named);
    // Two users (the warm-up's and the run's): the run's are the most.
    let activities = 0;
    for (const { id } of await store.users.findFields({}, ['id'])) activities = Math.max(activities, await store.activities.count({ user_id: id }));
    return { perMinute: hours / (ms / 60_000), activities };
  } finally {
    await pool.destroy();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run(): Promise<BenchResult> {
  // One a day back from yesterday: all inside the backfill's 5 years.
  const base = Math.floor(Date.now() / HOUR) * HOUR - 24 * HOUR;
  const starts = Array.from({ length: ACTIVITIES }, (_, i) => base - i * 24 * HOUR);
  const files = starts.map((start, i) => fitActivity({ start, seconds: 3600, power: 150 + (i % 100) }));
  const line = (label: string, r: Outcome) =>
    `${label}: ${r.hours.toFixed(0)} h in ${(r.ms / 1000).toFixed(1)} s = ${(r.hours / (r.ms / 60_000)).toFixed(0)} h/min (${r.requests} requests, ${r.throttled} answered 429)`;
  const cdn = await once(files, starts, false);
  const metered = await once(files, starts, true);
  const { perMinute: alone } = await ingestPath(files);
  const perMinute = (r: Outcome) => r.hours / (r.ms / 60_000);
  const ceilingMinutes = ((Math.ceil(metered.metered / LIMIT.requests) - 1) * LIMIT.windowMs) / 60_000;
  const ceiling = metered.hours / ceilingMinutes; // Infinity when every request fits in one window

  const corpusFiles = corpusFitFiles().map((file) => new Uint8Array(readFileSync(file)));
  const corpusAlone = await ingestPath(corpusFiles);
  const corpus = await once(corpusFiles, corpusFiles.map((_, i) => base - i * 24 * HOUR), false, corpusAlone.activities, 5 * 60_000);
  return {
    text: `${line('files unmetered (CDN)', cdn)}; ${line('every request metered (intervals.icu)', metered)}; `
      + `the limit's ceiling for ${metered.metered} metered requests: ${ceiling.toFixed(0)} h/min; the ingest path alone: ${alone.toFixed(0)} h/min`
      + `\n  corpus (${corpusFiles.length} files, ${corpusAlone.activities} activities): ${line('files unmetered (CDN)', corpus)}; the ingest path alone: ${corpusAlone.perMinute.toFixed(0)} h/min`,
    rows: [
      ...(Number.isFinite(ceiling) ? [{
        question: `backfill ${ACTIVITIES} × 1 h, every request metered`, dataset: 'synthetic', figure: perMinute(metered), unit: 'h/min',
        anchor: ceiling, anchorLabel: `the limit's ceiling (${metered.metered} requests, 100 / 15 s)`, ratio: share(perMinute(metered), ceiling, 'higher'),
      } as const] : []),
      {
        question: `backfill ${ACTIVITIES} × 1 h, files unmetered (CDN)`, dataset: 'synthetic', figure: perMinute(cdn), unit: 'h/min',
        anchor: alone, anchorLabel: 'ingest path alone', ratio: share(perMinute(cdn), alone, 'higher'),
      },
      {
        question: 'backfill of the corpus, files unmetered (CDN)', dataset: 'corpus', figure: perMinute(corpus), unit: 'h/min',
        anchor: corpusAlone.perMinute, anchorLabel: 'ingest path alone', ratio: share(perMinute(corpus), corpusAlone.perMinute, 'higher'),
      },
    ],
  };
}
