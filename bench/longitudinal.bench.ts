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
 * store with a pool of its own, so the figure is store reads + pool + kernels + table encoding, without
 * gRPC framing and loopback transfer. A breakdown (store reads, thread hop, decode, kernels) follows on a
 * second line. The after=0 curve, computed exactly from raw data, is checked against the cached curve.
 *
 * Calling the engine from a batch job (this file is also the worked example):
 *
 *   const client = createEngineClient('engine.internal:50051');          // engine/proto.ts; 1 GiB receive limit
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
 * - engine/proto.ts types only DecodeSource on the client; proto-loader builds every RPC at run time, so a
 *   job declares the methods it calls (AnalysisClient below).
 */
import { Metadata, type CallOptions, type ClientUnaryCall, type requestCallback } from '@grpc/grpc-js';
import { tableFromIPC, type Table } from 'apache-arrow';
import { addDays, yearBefore } from '../domain/time.js';
import { authorizationMetadata } from '../engine/authenticate.js';
import { cachedMeanMax } from '../engine/analysis/analysis-tasks.js';
import { canonicalSeries, metricValues } from '../engine/analysis/canonical-series.js';
import { afterCurves, prefixOf } from '../engine/analysis/curves.js';
import { decodeSeriesIpc } from '../engine/ingest/arrow.js';
import type { RecordedSeries } from '../engine/ingest/series.js';
import { DEFAULT_DURATIONS } from '../engine/kernels/duration-grid.js';
import { createPool } from '../engine/pool/pool.js';
import { createEngineClient, type EngineClient } from '../engine/proto.js';
import { matchingActivities } from '../engine/service/activity-selection.js';
import { loadAnalyses } from '../engine/service/analysis-cache.js';
import { getLongitudinalMeanMax, type GetLongitudinalMeanMaxRequest } from '../engine/service/analyses.js';
import type { ActivityRecord } from '../storage/store.js';
import { insertActivity } from '../test/support/activities.js';
import { startStack } from '../test/support/stack.js';

export const question = 'Longitudinal mean-max over a season of 300 two-hour rides: from the caches, and with five after states from raw data (engine over gRPC, no gateway)';

const RIDES = 300;
const RIDE_S = 2 * 3600;
/** The newest ride's local date; one ride a day before it. */
const LAST_DAY = '2025-06-30';
const AFTER_KJ = [0, 250, 500, 1000, 1500];
const TARGET_CACHED_MS = 10;
const TARGET_AFTER_MS = 1000;
const DEADLINE_MS = 60_000;

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

/** mulberry32. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

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
async function insertSeason(stack: Awaited<ReturnType<typeof startStack>>, userId: string): Promise<ActivityRecord[]> {
  const records: ActivityRecord[] = [];
  const levels = random(7);
  for (let k = 0; k < RIDES; k++) {
    const day = addDays(LAST_DAY, -k);
    const level = 180 + 40 * ((RIDES - k) / RIDES) + 10 * levels();
    const { power, distance } = seasonRide(RIDE_S, 1000 + k, level);
    records.push(await insertActivity(stack.store, userId, {
      sport: 'cycling.road',
      start: Date.parse(`${day}T07:00:00Z`),
      series: { rows: RIDE_S, metrics: { power: (i) => power[i]!, distance: (i) => distance[i]! } },
    }));
  }
  return records;
}

// ---------------------------------------------------------------------------------------------------------
// Timing

/** Median wall time (ms) of `runs` calls of `work`, after `warmUp` unmeasured ones. */
async function median(runs: number, work: () => Promise<unknown>, warmUp = 2): Promise<number> {
  for (let w = 0; w < warmUp; w++) await work();
  const times: number[] = [];
  for (let r = 0; r < runs; r++) {
    const started = performance.now();
    await work();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[times.length >> 1]!;
}

async function timed<T>(work: () => Promise<T> | T): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}

const ms = (x: number) => (x < 10 ? x.toFixed(2) : x < 100 ? x.toFixed(1) : x.toFixed(0));
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

export async function run(): Promise<string> {
  const stack = await startStack({ ENGINE_THREADS: '2' });
  const pool = createPool({ threads: 2 }); // "in the engine": the handler in this process, on the same store
  const client = createEngineClient(stack.engineAddress) as AnalysisClient;
  const metadata = authorizationMetadata(null); // the stack sets no ENGINE_TOKEN
  try {
    const { userId } = await stack.userWithToken(['activities:read']);
    const inserting = await timed(() => insertSeason(stack, userId));
    const firstDay = addDays(LAST_DAY, -(RIDES - 1));
    const base: GetLongitudinalMeanMaxRequest = {
      user_id: userId, sports: ['cycling'], start_date: firstDay, end_date: LAST_DAY, metric: 'power', format: 'ARROW_IPC',
    };
    const cached = { ...base, durations: [], all_durations: false, after: [] };
    const all = { ...base, durations: [], all_durations: true, after: [] };
    // "with states ... a range longer than one year" is INVALID_ARGUMENT: exactly one year, covering the season.
    const withAfter = { ...base, start_date: yearBefore(LAST_DAY), durations: [], all_durations: false, after: AFTER_KJ };

    const warming = await timed(() => longitudinalMeanMax(client, metadata, cached)); // computes the 300 caches
    const handler = getLongitudinalMeanMax({ store: stack.store, pool });
    const inEngine = (request: GetLongitudinalMeanMaxRequest) => () =>
      handler(request, { signal: new AbortController().signal, deadline: Date.now() + DEADLINE_MS });

    // (a) and (b): from the caches.
    const aClient = await median(31, () => longitudinalMeanMax(client, metadata, cached), 5);
    const aEngine = await median(31, inEngine(cached), 5);
    const bClient = await median(21, () => longitudinalMeanMax(client, metadata, all), 3);
    const bEngine = await median(21, inEngine(all), 3);
    const cachedTable = await longitudinalMeanMax(client, metadata, cached);
    const allTable = await longitudinalMeanMax(client, metadata, all);

    // (c): five states from the raw series.
    const cClient = await median(5, () => longitudinalMeanMax(client, metadata, withAfter), 1);
    const cEngine = await median(5, inEngine(withAfter), 1);
    const afterTable = await longitudinalMeanMax(client, metadata, withAfter);

    // after = 0 is the whole activity: exactly the cached curve at the default durations (both exact there).
    const fromCache = curveOf(cachedTable);
    const fromRaw = curveOf(afterTable);
    let differ = 0;
    for (const d of DEFAULT_DURATIONS) {
      const a = fromCache.get(`-1@${d}`);
      const b = fromRaw.get(`0@${d}`);
      if (a?.[0] !== b?.[0] || a?.[1] !== b?.[1]) differ++;
    }
    const reached = AFTER_KJ.filter((kj) => [...fromRaw.keys()].some((key) => key.startsWith(`${kj}@`)));

    // Where the time goes, one thread, cached case: the store query, the cache reads, the pool hop, the fold.
    const selection = { sports: ['cycling'], startDate: firstDay, endDate: LAST_DAY };
    const signal = new AbortController().signal;
    const query = await median(11, () => matchingActivities(stack.store, userId, selection));
    const records = await matchingActivities(stack.store, userId, selection);
    const cacheReads = await median(11, () => loadAnalyses({ store: stack.store, pool }, records, signal));
    const analyses = await loadAnalyses({ store: stack.store, pool }, records, signal);
    const cacheBytes = analyses.reduce((sum, cache) => sum + (cache?.byteLength ?? 0), 0);
    const labels = records.map((record) => ({ id: record.id, sport: record.sport }));
    const durations = Int32Array.from(DEFAULT_DURATIONS);
    const copies = () => analyses.map((cache) => cache!.slice(0));
    const foldInThread = await median(11, async () => cachedMeanMax({ analyses: copies(), activities: labels, metric: 'power', durations, format: 'arrow_ipc' }));
    const foldInPool = await median(11, async () => {
      const moved = copies();
      await pool.run('cachedMeanMax', { analyses: moved, activities: labels, metric: 'power', durations, format: 'arrow_ipc' }, { transferList: moved });
    });

    // After states, one thread: reading the 300 series, decoding the IPC, the canonical series, the kernel.
    const seriesRead = await timed(async () => {
      const out: Uint8Array[] = [];
      for (const record of records) out.push((await stack.store.blobs.get(record.series_key))!.slice());
      return out;
    });
    const seriesBytes = seriesRead.value.reduce((sum, bytes) => sum + bytes.byteLength, 0);
    const decoded = await timed(() => seriesRead.value.map((bytes) => decodeSeriesIpc(bytes)));
    const canonical = await timed(() => decoded.value.map((recorded: RecordedSeries) => canonicalSeries(recorded)));
    const thresholds = AFTER_KJ.map((kj) => kj * 1000);
    const kernels = await timed(() => {
      for (const series of canonical.value) afterCurves(series, prefixOf(metricValues(series, 'power')!), durations, thresholds);
    });

    const summary =
      `300 × 2 h rides (${RIDES * RIDE_S} s of 1 Hz data; inserted in ${(inserting.ms / 1000).toFixed(1)} s, caches computed by the first call in ${ms(warming.ms)} ms): ` +
      `(a) from caches, 19 defaults: ${ms(aEngine)} ms in the engine (${verdict(aEngine, TARGET_CACHED_MS)}), ${ms(aClient)} ms at the gRPC client, ${cachedTable.numRows} rows; ` +
      `(b) all durations: ${ms(bEngine)} ms in the engine, ${ms(bClient)} ms at the client, ${allTable.numRows} rows; ` +
      `(c) after ${AFTER_KJ.join(',')} kJ from raw series over one year: ${ms(cEngine)} ms in the engine, ${ms(cClient)} ms at the client (${verdict(cClient, TARGET_AFTER_MS)}), ` +
      `${afterTable.numRows} rows, states reached ${reached.join(',')} kJ; after=0 vs cached curve: ${differ === 0 ? 'identical' : `${differ} of ${DEFAULT_DURATIONS.length} durations DIFFER`} ` +
      `(medians; client ÷ engine: a ×${(aClient / aEngine).toFixed(1)}, c ×${(cClient / cEngine).toFixed(2)})`;
    const breakdown =
      `where the time goes (one thread unless said): (a) store query ${ms(query)} ms, ${records.length} cache reads ${ms(cacheReads)} ms (${(cacheBytes / 1e6).toFixed(1)} MB), ` +
      `fold + Arrow table in this thread ${ms(foldInThread)} ms, same as a pool task (transfer both ways) ${ms(foldInPool)} ms; ` +
      `(c) ${records.length} series reads ${ms(seriesRead.ms)} ms (${(seriesBytes / 1e6).toFixed(1)} MB), IPC decode ${ms(decoded.ms)} ms, canonical series ${ms(canonical.ms)} ms, ` +
      `prefix sums + meanMaxAfter (5 states × 19) ${ms(kernels.ms)} ms; the engine splits decode and kernels over 2 threads, batches of 24`;
    return `${summary}\n  ${breakdown}`;
  } finally {
    client.close();
    await pool.destroy();
    await stack.close();
  }
}
