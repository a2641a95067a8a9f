/**
 * Question: how long does listing 10,000 traces of one user take, a page at a time
 * (`GET /api/v1/traces/?limit=100&offset=…`, 100 pages in sequence), through the real HTTP stack — in total
 * and per page (median, p99) — next to /healthz (no authentication, no store) in the same run?
 *
 * The real stack (test/support/stack.ts) on loopback over SQLite. The user's data is shaped like a lab's:
 * 1,000 days, each with a one-hour step test, an activity covering it with 10 laps, and 10 traces inside
 * (6 linked to the test, 4 in its window only), so every page resolves laps, activities, tests and both
 * kinds of test_match. Absolute figures are indicative; the ratio to /healthz is the one to compare.
 */
import type { ActivityRecord, LapRecord, TestRecord, TraceRecord } from '../storage/store.js';
import { localDate } from '../domain/time.js';
import { newId } from '../storage/ids.js';
import { startStack } from '../test/support/stack.js';
import { share, type BenchResult } from './results.js';

export const question = 'GET /api/v1/traces/?limit=100, 10,000 traces paged in sequence (loopback, SQLite) vs /healthz';

const DAYS = 1000;
const PER_DAY = 10;
const PAGE = 100;
const DAY_MS = 86_400_000;
const MINUTE = 60_000;

function records(userId: string, day: number): { test: TestRecord; activity: ActivityRecord; traces: TraceRecord[] } {
  const start = Date.UTC(2022, 0, 1) + day * DAY_MS + 8 * 3_600_000;
  const now = Date.now();
  const test: TestRecord = {
    id: newId(), user_id: userId, sport: 'cycling', start, start_offset: 120, end: start + 60 * MINUTE, end_offset: 120,
    local_date: localDate(start, 120), title: 'Step test', results: null, tags: ['lab'], created_by: 'user', app_metadata: {}, created_at: now, updated_at: now,
  };
  const laps: LapRecord[] = Array.from({ length: 10 }, (_, i) => ({
    start: start + i * 6 * MINUTE, end: start + (i + 1) * 6 * MINUTE, offset: 120,
    blocks: { power: { mean: 100 + 25 * i, max: 120 + 25 * i }, heart_rate: { mean: 110 + 7 * i, min: 100 + 7 * i, max: 120 + 7 * i, start: 105 + 7 * i, end: 118 + 7 * i } },
  }));
  const activityId = newId();
  const activity: ActivityRecord = {
    id: activityId, user_id: userId, source_id: newId(), source_index: 0, sport: 'cycling+stationary', start, end: start + 60 * MINUTE, offset: 120,
    local_date: localDate(start, 120), duration_s: 3600, metrics: ['duration', 'power', 'heart_rate'], tags: [], devices: [], distance: null,
    summary: { power: { mean: 210, max: 360 }, heart_rate: { mean: 140, min: 95, max: 178, start: 98, end: 176 } }, laps, app_metadata: {},
    series_key: `series:${activityId}`, samples: 3600, created_at: now, updated_at: now,
  };
  const traces = Array.from({ length: PER_DAY }, (_, i): TraceRecord => {
    const timestamp = start + i * 6 * MINUTE + 5 * MINUTE;
    return {
      id: newId(), user_id: userId, timestamp, offset: 120, local_date: localDate(timestamp, 120), test_id: i < 6 ? test.id : null,
      lactate: 1 + i * 0.6, rpe: 6 + i, notes: null, power: 100 + 25 * i, speed: null, heart_rate: 110 + 7 * i, vo2: null,
      tags: ['lab'], sport: 'cycling', app_metadata: {}, created_at: now, updated_at: now,
    };
  });
  return { test, activity, traces };
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export async function run(): Promise<BenchResult> {
  const stack = await startStack();
  try {
    const user = await stack.userWithToken(['activities:read']);
    for (let day = 0; day < DAYS; day++) {
      const { test, activity, traces } = records(user.userId, day);
      await stack.store.batch([
        { collection: 'tests', insert: test },
        { collection: 'activities', insert: activity },
        ...traces.map((trace) => ({ collection: 'traces' as const, insert: trace })),
      ]);
    }
    const total = DAYS * PER_DAY;
    const page = async (offset: number): Promise<number> => {
      const started = performance.now();
      const response = await stack.get(`/api/v1/traces/?limit=${PAGE}&offset=${offset}`, user.token);
      const body = (await response.json()) as { activity: unknown; test_match: string | null }[];
      const ms = performance.now() - started;
      if (response.status !== 200 || body.length !== Math.min(PAGE, total - offset)) throw new Error(`bench: page at ${offset} answered ${response.status} with ${body.length}`);
      if (!body.every((trace) => trace.activity !== null && trace.test_match !== null)) throw new Error('bench: a trace was not resolved');
      return ms;
    };
    for (let offset = 0; offset < 10 * PAGE; offset += PAGE) await page(offset); // warm-up (JIT, statement cache)
    const started = performance.now();
    const pages: number[] = [];
    for (let offset = 0; offset < total; offset += PAGE) pages.push(await page(offset));
    const totalMs = performance.now() - started;
    const health: number[] = [];
    for (let i = 0; i < pages.length; i++) {
      const t = performance.now();
      await (await stack.get('/healthz')).text();
      health.push(performance.now() - t);
    }
    pages.sort((a, b) => a - b);
    health.sort((a, b) => a - b);
    const median = percentile(pages, 50);
    const healthMedian = percentile(health, 50);
    const text = `${total} traces in ${pages.length} pages: ${totalMs.toFixed(0)} ms total; per page median ${median.toFixed(1)} ms, p99 ${percentile(pages, 99).toFixed(1)} ms; `
      + `/healthz median ${healthMedian.toFixed(2)} ms; page/healthz ${(median / healthMedian).toFixed(1)}`;
    return {
      text,
      rows: [{
        question: `traces page of ${PAGE}, median`, dataset: 'synthetic', figure: median, unit: 'ms', anchor: healthMedian, anchorLabel: '/healthz median',
        ratio: share(median, healthMedian, 'lower'),
      }],
    };
  } finally {
    await stack.close();
  }
}
