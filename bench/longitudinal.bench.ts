/**
 * Question: how long does a longitudinal mean-max over a season take? 300 two-hour 1 Hz rides (7,200 rows
 * each, one a day), power and distance, called over gRPC against the real engine (no gateway):
 *
 * (a) without `after`, the 19 default durations, from the per-activity analysis caches;
 * (b) the same with all_durations (the full grid up to the longest ride);
 * (c) five fatigue states (after = 0, 250, 500, 1000, 1500 kJ) over a one-year range, from the raw series.
 *
 * Targets: (a) ≤ 10 ms in the engine; (c) ≤ 1 s. Each case is timed at the gRPC client and "in the engine":
 * the same handler (engine/service/analyses.ts getLongitudinalMeanMax) called in this process on the same
 * store with a pool and an analysis memory of its own, so the figure is store reads + pool + kernels + table encoding, without
 * gRPC framing and loopback transfer (the stack runs in this process, so the client shares its cores). A
 * breakdown (store query, caches, fold, table; (c) reads, decode, kernels, on a 1-thread pool; a worker's start-up) follows
 * on a second line. The after=0 curve, computed exactly from raw data, is checked against the cached curve.
 *
 * Then how the cached path scales (issue #11: cost per ride should be flat): a second user with 3,000 rides,
 * ride k a copy of season ride k mod 300 (its record on its own day, its cache under its own key, as distinct
 * rides would be), and the handler in this process over the newest 300, 1,000 and 3,000 of them, each with a
 * fresh analysis memory of the engine's default size: median ms, µs per ride, the memory's hits per call
 * and what it holds; the same without a memory (every cache read and decoded); and the stored cache
 * bytes per ride (mean over the 300 distinct caches, by part).
 *
 * Rows: each case over gRPC against the handler in this process (what gRPC and the loopback add); the
 * per-ride cost at 3,000 rides against 300's (flat is 1); the call at 3,000 rides with an empty analysis
 * memory (as after an engine restart) against the warm call, goal 0.1. BENCH_QUICK: 12 ten-minute rides.
 *
 * Calling the engine from a batch job (this file is also the worked example):
 *
 *   const client = createEngineClient('engine.internal:50051');          // engine/contract.ts; 1 GiB receive limit
 *   const metadata = authorizationMetadata(process.env.ENGINE_TOKEN ?? null); // engine/authenticate.ts
 *   client.GetLongitudinalMeanMax(
 *     { user_id, sports: ['cycling'], start_date: '2024-07-01', end_date: '2025-06-30',
 *       metric: 'power', durations: [], all_durations: false, after: [0, 500], format: 'ARROW_IPC' },
 *     metadata,
 *     { deadline: Date.now() + 30_000 },  // every call carries a deadline; the engine aborts the pool task when it passes
 *     (error, table) => { ... tableFromIPC(table.data) ... });
 *
 * - The engine trusts `user_id`: a batch job acts for whichever user it names, so keep the engine on a
 *   private network and set ENGINE_TOKEN when it leaves loopback.
 * - Dates are the activities' own local dates, inclusive; `after` (kJ for power, m for speed) needs both
 *   dates and at most a year between them; empty `durations` = the 19 defaults.
 * - The reply is a `Table` { data, rows }: `data` is an Arrow IPC stream (apache-arrow's tableFromIPC reads it;
 *   `duration` and `start` are int64/timestamp columns, read as bigint), `rows` an int64 sent as a string.
 * - Errors arrive as gRPC statuses (INVALID_ARGUMENT for a bad request, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED
 *   when the pool queue is full: retry later); the status message names the field.
 * - engine/contract.ts types every request message but its client stub only DecodeSource; proto-loader builds every RPC at run time, so a
 *   job declares the methods it calls (AnalysisClient below).
 */
import { Metadata, type CallOptions, type ClientUnaryCall, type requestCallback } from '@grpc/grpc-js';
import { tableFromIPC, type Table } from 'apache-arrow';
import { addDays, yearBefore } from '../domain/time.js';
import { authorizationMetadata } from '../engine/authenticate.js';
import { canonicalSeries, metricValues, type CanonicalSeries } from '../engine/analysis/canonical-series.js';
import { afterCurves, emptyBest, foldCurve, prefixOf } from '../engine/analysis/curves.js';
import { decodeSeriesIpc } from '../engine/ingest/arrow.js';
import type { RecordedSeries } from '../engine/ingest/series.js';
import { DEFAULT_DURATIONS } from '../engine/kernels/duration-grid.js';
import { createPool, type EnginePool } from '../engine/pool/pool.js';
import { createEngineClient, type EngineClient, type GetLongitudinalMeanMaxRequest } from '../engine/contract.js';
import { matchingActivities, type Selection } from '../engine/service/activity-selection.js';
import { describeAnalysis } from '../engine/analysis/analysis-codec.js';
import { ANALYSIS_MEMO_BYTES, AnalysisMemo, analysisKey, loadCurves } from '../engine/service/analysis-cache.js';
import { newId } from '../storage/ids.js';
import { getLongitudinalMeanMax } from '../engine/service/analyses.js';
import type { ActivityRecord, Store } from '../storage/store.js';
import { insertActivity } from '../test/support/activities.js';
import { startStack } from '../test/support/stack.js';
import { random } from '../test/support/kernels.js';
import { share, type BenchResult, type BenchRow } from './results.js';
import { quick } from './support.js';

export const question = 'Longitudinal mean-max over a season of 300 two-hour rides: from the caches, and with five after states from raw data (engine over gRPC, no gateway)';

/** The season both this bench and first-call.bench.ts measure: rides, their length (s), the newest ride's local date (one ride a day before it), the after states (kJ). */
export const RIDES = quick(300, 12);
export const RIDE_S = quick(2 * 3600, 600);
export const LAST_DAY = '2025-06-30';
export const AFTER_KJ = [0, 250, 500, 1000, 1500];
const TARGET_CACHED_MS = 10;
const TARGET_AFTER_MS = 1000;
/** The first call after a restart within the warm call's order of magnitude (issue 27 item 5). */
const RESTART_GOAL = 0.1;
const DEADLINE_MS = 60_000;
/** Rides of the scaling table (the last is the history the second user has). */
const SCALES = quick([300, 1000, 3000], [12, 24]);

/** The reply as proto-loader hands it over (`longs: String`). */
interface TableReply {
  data: Buffer;
  rows: string;
}

/** The analysis RPC this job calls, as grpc-js builds it from engine.proto. */
interface AnalysisClient extends EngineClient {
  GetLongitudinalMeanMax(request: GetLongitudinalMeanMaxRequest, metadata: Metadata, options: CallOptions, callback: requestCallback<TableReply>): ClientUnaryCall;
}

/** One GetLongitudinalMeanMax call with a deadline; the reply's Arrow table. */
function longitudinalMeanMax(client: AnalysisClient, metadata: Metadata, request: GetLongitudinalMeanMaxRequest): Promise<Table> {
  return new Promise((resolve, reject) => {
    client.GetLongitudinalMeanMax(request, metadata, { deadline: Date.now() + DEADLINE_MS }, (error, reply) => {
      if (error) reject(error);
      else resolve(tableFromIPC(reply!.data));
    });
  });
}

// ---------------------------------------------------------------------------------------------------------
// The season: seeded, so every run measures the same rides.


/**
 * A two-hour ride at 1 Hz: power (W, whole watts) around an endurance `level` with threshold and VO2
 * intervals, sprints, coasting zeros and the odd stop; distance (m) from a speed that follows power
 * (coasting downhill is fast, a stop is still).
 */
export function seasonRide(seconds: number, seed: number, level: number): { power: Float64Array; distance: Float64Array } {
  const next = random(seed);
  const power = new Float64Array(seconds);
  const speed = new Float64Array(seconds); // m/s
  let i = 0;
  let drift = 0; // W, mean-reverting
  const ride = (target: number, noise: number) => {
    if (i >= seconds) return;
    drift += -0.02 * drift + (next() - 0.5) * 3;
    const w = Math.max(0, Math.round(target + drift + (next() + next() + next() - 1.5) * noise));
    power[i] = w;
    speed[i] = Math.min(14, 3 + 0.03 * w);
    i++;
  };
  const coast = (length: number, metresPerSecond: number) => {
    for (let k = 0; k < length && i < seconds; k++) speed[i++] = metresPerSecond; // power stays 0
  };
  while (i < seconds) {
    const choice = next();
    if (choice < 0.55) {
      const length = 300 + Math.floor(next() * 900);
      for (let k = 0; k < length; k++) {
        if (next() < 0.004) coast(2 + Math.floor(next() * 12), 9);
        else ride(level, 40);
      }
    } else if (choice < 0.67) {
      const reps = 3 + Math.floor(next() * 3); // 3–5 × 5–8 min at threshold, 3 min easy
      const length = 300 + Math.floor(next() * 180);
      for (let r = 0; r < reps; r++) {
        for (let k = 0; k < length; k++) ride(1.35 * level, 25);
        for (let k = 0; k < 180; k++) ride(0.7 * level, 30);
      }
    } else if (choice < 0.75) {
      for (let r = 0; r < 8; r++) { // 8 × 30 s hard, 30 s easy
        for (let k = 0; k < 30; k++) ride(2.1 * level, 40);
        for (let k = 0; k < 30; k++) ride(0.6 * level, 30);
      }
    } else if (choice < 0.86) {
      const peak = 800 + next() * 300; // a sprint: 8–15 s from 800–1100 W
      const length = 8 + Math.floor(next() * 8);
      for (let k = 0; k < length; k++) ride(peak * (1 - k / (2 * length)), 60);
      for (let k = 0; k < 60; k++) ride(0.55 * level, 20);
    } else if (choice < 0.97) {
      const length = 60 + Math.floor(next() * 300); // a descent
      for (let k = 0; k < length; k++) {
        if (next() < 0.1) ride(0.6 * level, 40);
        else coast(1, 12);
      }
    } else {
      coast(300 + Math.floor(next() * 300), 0); // a stop, recorded as zeros
    }
  }
  const distance = new Float64Array(seconds);
  for (let k = 1; k < seconds; k++) distance[k] = distance[k - 1]! + speed[k]!;
  return { power, distance };
}

/** Inserts the season (ride k on LAST_DAY − k, 07:00 UTC); endurance level 180–230 W, rising through it. */
async function insertSeason(store: Store, userId: string): Promise<void> {
  const levels = random(7);
  for (let k = 0; k < RIDES; k++) {
    const day = addDays(LAST_DAY, -k);
    const level = 180 + 40 * ((RIDES - k) / RIDES) + 10 * levels();
    const { power, distance } = seasonRide(RIDE_S, 1000 + k, level);
    await insertActivity(store, userId, {
      sport: 'cycling.road',
      start: Date.parse(`${day}T07:00:00Z`),
      series: { rows: RIDE_S, metrics: { power: (i) => power[i]!, distance: (i) => distance[i]! } },
    });
  }
}

// ---------------------------------------------------------------------------------------------------------
// Timing

type Work = () => Promise<unknown> | unknown;

function middle(times: number[]): number {
  times.sort((a, b) => a - b);
  return times[times.length >> 1]!;
}

/** Median wall time (ms) of `runs` calls of `work`, after `warmUp` unmeasured ones. */
async function median(runs: number, work: Work, warmUp = 2): Promise<number> {
  for (let w = 0; w < warmUp; w++) await work();
  const times: number[] = [];
  for (let r = 0; r < runs; r++) {
    const started = performance.now();
    await work();
    times.push(performance.now() - started);
  }
  return middle(times);
}

/** Medians (ms) of `a` and `b` run alternately, so both meet the same moments of a noisy machine. */
async function pairedMedians(runs: number, a: Work, b: Work, warmUp = 2): Promise<[number, number]> {
  for (let w = 0; w < warmUp; w++) {
    await a();
    await b();
  }
  const times: [number[], number[]] = [[], []];
  for (let r = 0; r < runs; r++) {
    for (const [k, work] of [a, b].entries()) {
      const started = performance.now();
      await work();
      times[k]!.push(performance.now() - started);
    }
  }
  return [middle(times[0]), middle(times[1])];
}

const ms = (x: number) => (x < 10 ? x.toFixed(2) : x < 100 ? x.toFixed(1) : x.toFixed(0));
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
const verdict = (value: number, target: number) => (value <= target ? `target ≤ ${target} ms met` : `TARGET ≤ ${target} ms MISSED`);

/** The curve at (after, duration) → [value, activity id]; after = −1 without states. */
function curveOf(table: Table, metric = 'power'): Map<string, [number, string]> {
  const out = new Map<string, [number, string]>();
  const after = table.getChild('after');
  for (let row = 0; row < table.numRows; row++) {
    const key = `${after ? Number(after.get(row)) : -1}@${Number(table.getChild('duration')!.get(row))}`;
    out.set(key, [table.getChild(metric)!.get(row) as number, String(table.getChild('activity_id')!.get(row))]);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Where the time goes: the handler's steps one at a time, on this thread unless said.

/**
 * The cached path as the handler runs it (store query → loadAnalyses from the engine's memory → the fold on
 * this thread → the table written in the pool), each step timed, medians per step; then loadAnalyses cold
 * (every cache read from the store and decoded).
 */
async function cachedBreakdown(store: Store, pool: EnginePool, userId: string, selection: Selection): Promise<string> {
  const signal = new AbortController().signal;
  const durations = Int32Array.from(DEFAULT_DURATIONS);
  const memo = new AnalysisMemo(ANALYSIS_MEMO_BYTES);
  const steps: [number[], number[], number[], number[]] = [[], [], [], []];
  for (let r = 0; r < 23; r++) {
    const t0 = performance.now();
    const records = await matchingActivities(store, userId, selection);
    const t1 = performance.now();
    const curves = await loadCurves({ store, pool, memo }, records, 'power', signal);
    const t2 = performance.now();
    const best = emptyBest(durations);
    curves.forEach((curve, holder) => foldCurve(best, curve!, holder));
    const t3 = performance.now();
    const activities = records.map((record) => ({ id: record.id, sport: record.sport }));
    await pool.run('meanMaxTable', { ...best, metric: 'power', activities, after: null, format: 'arrow_ipc' }, { signal });
    const t4 = performance.now();
    if (r < 3) continue; // warm-up (the first fills the memory)
    steps[0].push(t1 - t0);
    steps[1].push(t2 - t1);
    steps[2].push(t3 - t2);
    steps[3].push(t4 - t3);
  }
  const [query, load, fold, task] = steps.map(middle) as [number, number, number, number];
  const records = await matchingActivities(store, userId, selection);
  const cold = await median(15, () => loadCurves({ store, pool }, records, 'power', signal));
  return `(a) store query ${ms(query)} ms, caches from memory ${ms(load)} ms (from the store and decoded: ${ms(cold)} ms), ` +
    `fold ${ms(fold)} ms, table in the pool ${ms(task)} ms`;
}

async function afterBreakdown(store: Store, userId: string, selection: Selection): Promise<string> {
  const records = await matchingActivities(store, userId, selection);
  let stored: Uint8Array[] = [];
  const reads = await median(3, async () => {
    stored = [];
    for (const record of records) stored.push((await store.blobs.get(record.series_key))!);
  }, 1);
  const bytes = stored.reduce((sum, blob) => sum + blob.byteLength, 0);
  let recorded: RecordedSeries[] = [];
  const decode = await median(3, () => { recorded = stored.map((blob) => decodeSeriesIpc(blob)); }, 1);
  let canonical: CanonicalSeries[] = [];
  const grid = await median(3, () => { canonical = recorded.map((series) => canonicalSeries(series, ['power'])); }, 1);
  const durations = Int32Array.from(DEFAULT_DURATIONS);
  const thresholds = AFTER_KJ.map((kj) => kj * 1000);
  const kernels = await median(3, () => {
    for (const series of canonical) afterCurves(series, prefixOf(metricValues(series, 'power')!), durations, thresholds);
  }, 1);
  return `(c) ${records.length} series blob reads ${ms(reads)} ms for ${mb(bytes)}, Arrow IPC decode ${ms(decode)} ms, canonical 1 s series ${ms(grid)} ms, ` +
    `prefix sums + meanMaxAfter (5 states × 19) ${ms(kernels)} ms (the engine runs decode and kernels on 2 threads, 24 activities a task)`;
}

// ---------------------------------------------------------------------------------------------------------
// Scaling: the cached path over 300, 1,000 and 3,000 rides.

/** `count` rides for `userId`, ride k on LAST_DAY − k: season ride k mod 300's record and a copy of its cache under its own key. */
async function insertHistory(store: Store, userId: string, season: readonly ActivityRecord[], count: number): Promise<void> {
  for (let k = 0; k < count; k++) {
    const source = season[k % season.length]!;
    const day = addDays(LAST_DAY, -k);
    const start = Date.parse(`${day}T07:00:00Z`);
    const id = newId();
    const key = analysisKey(id);
    await store.blobs.put(key, (await store.blobs.get(source.analysis_key!))!, { userId });
    await store.activities.insert({
      ...source, id, user_id: userId, source_id: newId(), start, end: start + (source.end - source.start), local_date: day, analysis_key: key,
    });
  }
}

/** Mean stored cache bytes per ride over the season, in total and by part. */
async function cacheBytes(store: Store, season: readonly ActivityRecord[]): Promise<string> {
  const parts = new Map<string, number>();
  let total = 0;
  for (const record of season) {
    const bytes = (await store.blobs.get(record.analysis_key!))!;
    total += bytes.byteLength;
    for (const { part, bytes: size } of describeAnalysis(bytes)) parts.set(part, (parts.get(part) ?? 0) + size);
  }
  const kb = (bytes: number) => `${(bytes / season.length / 1000).toFixed(2)} KB`;
  return `stored cache per ride ${kb(total)} (${[...parts].map(([part, size]) => `${part} ${kb(size)}`).join(', ')})`;
}

async function scalingTable(store: Store, pool: EnginePool, season: readonly ActivityRecord[]): Promise<{ text: string; rows: BenchRow[] }> {
  const userId = newId();
  const largest = SCALES[SCALES.length - 1]!;
  await insertHistory(store, userId, season, largest);
  const lines: string[] = [];
  const perRide: number[] = [];
  let memoRow: BenchRow | null = null;
  for (const rides of SCALES) {
    const request: GetLongitudinalMeanMaxRequest = {
      user_id: userId, sports: ['cycling'], start_date: addDays(LAST_DAY, -(rides - 1)), end_date: LAST_DAY, metric: 'power', format: 'ARROW_IPC',
      durations: [], all_durations: false, after: [],
    };
    const memo = new AnalysisMemo(ANALYSIS_MEMO_BYTES);
    const call = (handler: ReturnType<typeof getLongitudinalMeanMax>) => () =>
      handler(request, { signal: new AbortController().signal, deadline: Date.now() + DEADLINE_MS });
    const withMemo = call(getLongitudinalMeanMax({ store, pool, memo }));
    const withoutMemo = call(getLongitudinalMeanMax({ store, pool }));
    const runs = quick(rides >= 3000 ? 9 : 15, 3);
    const [warm, cold] = await pairedMedians(runs, withMemo, withoutMemo, 2);
    const hits = memo.hits;
    const misses = memo.misses;
    await withMemo();
    const hitsPerCall = memo.hits - hits;
    const missesPerCall = memo.misses - misses;
    const held = memo.size;
    const allDurations = { ...request, all_durations: true };
    const handler = getLongitudinalMeanMax({ store, pool, memo });
    const all = await median(runs, () => handler(allDurations, { signal: new AbortController().signal, deadline: Date.now() + DEADLINE_MS }), 1);
    perRide.push(warm / rides);
    if (rides === largest) {
      memoRow = {
        question: `longitudinal mean-max at ${largest} rides, empty analysis memory (as after an engine restart)`, dataset: 'synthetic', figure: cold, unit: 'ms',
        anchor: warm, anchorLabel: 'the warm call (memory filled)', ratio: share(cold, warm, 'lower'), goal: RESTART_GOAL,
      };
    }
    lines.push(`${String(rides).padStart(5)} rides: ${ms(warm).padStart(6)} ms in the engine, ${(1000 * warm / rides).toFixed(1).padStart(5)} µs per ride; ` +
      `memory hits per call ${hitsPerCall} of ${rides} (misses ${missesPerCall}), holds ${held.entries} caches in ${mb(held.bytes)} of ${mb(ANALYSIS_MEMO_BYTES)}; ` +
      `without a memory ${ms(cold)} ms (${(1000 * cold / rides).toFixed(1)} µs per ride); all durations ${ms(all)} ms (${(1000 * all / rides).toFixed(1)} µs per ride)`);
  }
  const [first, last] = [perRide[0]!, perRide[perRide.length - 1]!];
  return {
    text: `scaling, default durations (store query + caches + fold + table in the pool), medians:\n    ${lines.join('\n    ')}\n    ` +
      `per-ride cost ${largest} ÷ ${SCALES[0]} rides ×${(last / first).toFixed(2)}; ${await cacheBytes(store, season)}`,
    rows: [
      {
        question: `longitudinal mean-max per ride at ${largest} rides (the cost per ride should be flat)`, dataset: 'synthetic', figure: 1000 * last, unit: 'µs/ride',
        anchor: 1000 * first, anchorLabel: `the same at ${SCALES[0]} rides`, ratio: share(last, first, 'lower'),
      },
      memoRow!,
    ],
  };
}

// ---------------------------------------------------------------------------------------------------------

export async function run(): Promise<BenchResult> {
  const stack = await startStack({ ENGINE_THREADS: '2' });
  const pool = createPool({ threads: 2 }); // "in the engine": the handler in this process, on the same store
  const client = createEngineClient(stack.engineAddress) as AnalysisClient;
  const metadata = authorizationMetadata(null); // the stack sets no ENGINE_TOKEN
  try {
    const { userId } = await stack.userWithToken(['activities:read']);
    await insertSeason(stack.store, userId);
    const firstDay = addDays(LAST_DAY, -(RIDES - 1));
    const base: GetLongitudinalMeanMaxRequest = {
      user_id: userId, sports: ['cycling'], start_date: firstDay, end_date: LAST_DAY, metric: 'power', format: 'ARROW_IPC',
    };
    const cached = { ...base, durations: [], all_durations: false, after: [] };
    const all = { ...base, durations: [], all_durations: true, after: [] };
    // With states a range over one year is INVALID_ARGUMENT: exactly one year, which covers the season.
    const withAfter = { ...base, start_date: yearBefore(LAST_DAY), after: AFTER_KJ };

    const warming = performance.now();
    await longitudinalMeanMax(client, metadata, cached); // computes the 300 caches
    const warmMs = performance.now() - warming;

    const handler = getLongitudinalMeanMax({ store: stack.store, pool, memo: new AnalysisMemo(ANALYSIS_MEMO_BYTES) });
    const inEngine = (request: GetLongitudinalMeanMaxRequest) => () =>
      handler(request, { signal: new AbortController().signal, deadline: Date.now() + DEADLINE_MS });
    const overGrpc = (request: GetLongitudinalMeanMaxRequest) => () => longitudinalMeanMax(client, metadata, request);

    const [aClient, aEngine] = await pairedMedians(quick(51, 3), overGrpc(cached), inEngine(cached), 5);
    const [bClient, bEngine] = await pairedMedians(quick(31, 3), overGrpc(all), inEngine(all), 3);
    const [cClient, cEngine] = await pairedMedians(quick(9, 1), overGrpc(withAfter), inEngine(withAfter), 1);
    const cachedTable = await longitudinalMeanMax(client, metadata, cached);
    const allTable = await longitudinalMeanMax(client, metadata, all);
    const afterTable = await longitudinalMeanMax(client, metadata, withAfter);

    // after = 0 is the whole activity, exact from the raw series: the cached curve at the defaults (exact there).
    const fromCache = curveOf(cachedTable);
    const fromRaw = curveOf(afterTable);
    let differ = 0;
    for (const [key, [value, holder]] of fromCache) {
      const raw = fromRaw.get(key.replace(/^-1@/, '0@'));
      if (raw?.[0] !== value || raw[1] !== holder) differ++;
    }
    const reached = AFTER_KJ.filter((kj) => [...fromRaw.keys()].some((key) => key.startsWith(`${kj}@`)));

    // The same request on a pool of one thread, and what starting a worker costs (why the pool keeps every
    // thread up).
    const single = createPool({ threads: 1 });
    let cTwoThreads: number;
    let cOneThread: number;
    let startUp: number;
    try {
      const singleHandler = getLongitudinalMeanMax({ store: stack.store, pool: single, memo: new AnalysisMemo(ANALYSIS_MEMO_BYTES) });
      [cTwoThreads, cOneThread] = await pairedMedians(quick(7, 1), inEngine(withAfter), () =>
        singleHandler(withAfter, { signal: new AbortController().signal, deadline: Date.now() + DEADLINE_MS }), 1);
      const starting = performance.now();
      const fresh = createPool({ threads: 1 });
      const none = { values: new Float64Array(0), starts: new Float64Array(0), holders: new Int32Array(0) };
      await fresh.run('meanMaxTable', { ...none, activities: [], metric: 'power', durations: new Int32Array(0), after: null, format: 'arrow_ipc' });
      startUp = performance.now() - starting;
      await fresh.destroy();
    } finally {
      await single.destroy();
    }

    const selection: Selection = { sports: ['cycling'], startDate: firstDay, endDate: LAST_DAY };
    const summary =
      `${RIDES} rides × ${RIDE_S} s (caches computed by the first call in ${ms(warmMs)} ms), medians: ` +
      `(a) from caches, default durations: ${ms(aEngine)} ms in the engine (${verdict(aEngine, TARGET_CACHED_MS)}), ${ms(aClient)} ms at the gRPC client, ${cachedTable.numRows} rows; ` +
      `(b) all durations: ${ms(bEngine)} ms in the engine, ${ms(bClient)} ms at the client, ${allTable.numRows} rows; ` +
      `(c) after ${AFTER_KJ.join(', ')} kJ from raw series over one year: ${ms(cEngine)} ms in the engine, ${ms(cClient)} ms at the client (${verdict(cClient, TARGET_AFTER_MS)}), ` +
      `${afterTable.numRows} rows, states reached: ${reached.join(', ')} kJ; ` +
      `client ÷ engine (same run): a ×${(aClient / aEngine).toFixed(2)}, b ×${(bClient / bEngine).toFixed(2)}, c ×${(cClient / cEngine).toFixed(2)}; (c) ÷ (a) in the engine ×${(cEngine / aEngine).toFixed(0)}; ` +
      `after=0 vs cached curve: ${differ === 0 ? 'identical' : `${differ} of ${fromCache.size} durations DIFFER`}`;
    const breakdown = `where the time goes: ${await cachedBreakdown(stack.store, pool, userId, selection)}; ${await afterBreakdown(stack.store, userId, selection)}; ` +
      `(c) in the engine on a 1-thread pool ${ms(cOneThread)} ms against ${ms(cTwoThreads)} ms on 2 (paired, 2 ÷ 1 threads ×${(cTwoThreads / cOneThread).toFixed(2)}); ` +
      `a new worker thread's start-up ${ms(startUp)} ms`;
    const season = await stack.store.activities.find({ user_id: userId }, { sort: { start: -1 } });
    const scaling = await scalingTable(stack.store, pool, season);
    const grpcRow = (question: string, client: number, engine: number): BenchRow => ({
      question, dataset: 'synthetic', figure: client, unit: 'ms', anchor: engine, anchorLabel: 'the handler in-process (no gRPC)', ratio: share(client, engine, 'lower'),
    });
    return {
      text: `${summary}\n  ${breakdown}\n  ${scaling.text}`,
      rows: [
        grpcRow(`longitudinal mean-max of ${RIDES} rides from the caches, 19 durations, over gRPC`, aClient, aEngine),
        grpcRow(`longitudinal mean-max of ${RIDES} rides from the caches, all durations, over gRPC`, bClient, bEngine),
        grpcRow(`longitudinal mean-max of ${RIDES} rides, 5 after states from raw series, over gRPC`, cClient, cEngine),
        ...scaling.rows,
      ],
    };
  } finally {
    client.close();
    await pool.destroy();
    await stack.close();
  }
}
