/**
 * Question: what does a cold longitudinal mean-max over 3,000 activities cost the store — calls and time —
 * before (every whole record read, then one cache blob read per activity, as until issue 24 item 7) and after
 * (the records' few fields, the caches in batches of CACHE_BATCH through `Blobs.getMany`)?
 *
 * One user with 3,000 ten-minute rides, each with its analysis cache in the store (bench/history.ts). "Cold"
 * means the engine's memory of decoded caches is empty; the caches exist. Both paths run in this process over
 * a store that counts its port calls (test/support/counting-store.ts); MongoDB commands are those calls with
 * each blob read counted twice (header, then chunks). "Before" is the old loop re-enacted here (find, then
 * get + decode + fold per activity); "after" is counted through the engine's handler (engine/service/analyses.ts)
 * and timed as its read and fold (matchingActivities, loadCurves, foldCurve; the table left out on both sides). Medians of
 * 3 runs each, on SQLite (in memory) and, with MONGODB_URI, MongoDB (bench/history.ts benchBackends).
 * Rows: the after path against its reads alone (the fields, every cache in batches; nothing decoded or
 * folded: its ceiling), and against the old read, in time and store calls (a floor it must beat).
 *
 *   npm run build && node dist/bench/run.js longitudinal-store-cost
 */
import { ANALYSIS_MEMO_BYTES, AnalysisMemo, CACHE_BATCH, loadCurves } from '../engine/service/analysis-cache.js';
import { decodeAnalysisPart } from '../engine/analysis/analysis-codec.js';
import { emptyBest, foldCurve } from '../engine/analysis/curves.js';
import { DEFAULT_DURATIONS } from '../engine/kernels/duration-grid.js';
import type { EnginePool } from '../engine/pool/pool.js';
import { getLongitudinalMeanMax } from '../engine/service/analyses.js';
import { matchingActivities, selectionFilter, type Selection } from '../engine/service/activity-selection.js';
import type { Store } from '../storage/store.js';
import { countingStore, mongoCommands } from '../test/support/counting-store.js';
import { median, ms, onEachBackend, seedHistory } from './history.js';
import { share, type BenchResult } from './results.js';
import { quick } from './support.js';

export const question = 'Cold longitudinal mean-max over 3,000 activities: store calls, MongoDB commands and time, before (whole records, one cache read each) vs after (fields, caches in batches)';

const RIDES = quick(3_000, 30);
const USER = 'bench-longitudinal';
const SELECTION: Selection = { sports: ['cycling'], startDate: null, endDate: null };

/** The read path as it was: every whole record, then each cache alone. Returns the bytes of records read. */
async function before(store: Store): Promise<number> {
  const records = await store.activities.find(selectionFilter(USER, SELECTION), { sort: { start: 1 } });
  const best = emptyBest(Int32Array.from(DEFAULT_DURATIONS));
  for (let holder = 0; holder < records.length; holder++) {
    const bytes = await store.blobs.get(records[holder]!.analysis_key!);
    const curve = decodeAnalysisPart(bytes!, 'curve', 'power');
    if (curve !== null) foldCurve(best, curve, holder);
  }
  return Buffer.byteLength(JSON.stringify(records));
}

/** The same read and fold as the handler does it now (its table, written in the pool, left out as in `before`). */
async function after(store: Store, pool: EnginePool): Promise<void> {
  const records = await matchingActivities(store, USER, SELECTION);
  const curves = await loadCurves({ store, pool }, records, 'power', new AbortController().signal);
  const best = emptyBest(Int32Array.from(DEFAULT_DURATIONS));
  curves.forEach((curve, holder) => {
    if (curve !== null) foldCurve(best, curve, holder);
  });
}

/** The reads alone, nothing decoded or folded: the fields, then every cache in batches of CACHE_BATCH (the after path's floor of I/O). */
async function readsAlone(store: Store): Promise<void> {
  const keys = (await matchingActivities(store, USER, SELECTION)).map((record) => record.analysis_key!);
  for (let k = 0; k < keys.length; k += CACHE_BATCH) await store.blobs.getMany(keys.slice(k, k + CACHE_BATCH));
}

export function run(): Promise<BenchResult> {
  return onEachBackend(async (store, pool) => {
    await seedHistory(store, pool, USER, RIDES);
    const counting = countingStore(store);
    const request = { user_id: USER, sports: ['cycling'], metric: 'power', durations: [], all_durations: false, after: [], format: 'ARROW_IPC' };
    const signal = new AbortController().signal;

    counting.reset();
    const recordBytes = await before(counting.store);
    const beforeCalls = counting.total();
    const beforeCommands = mongoCommands(counting.counts);
    const beforeMs = await median(3, () => before(store));

    counting.reset();
    await getLongitudinalMeanMax({ store: counting.store, pool, memo: new AnalysisMemo(ANALYSIS_MEMO_BYTES) })(request as never, { signal, deadline: Date.now() + 600_000 });
    const afterCalls = counting.total();
    const afterCommands = mongoCommands(counting.counts);
    const afterMs = await median(3, () => after(store, pool));
    const readsMs = await median(3, () => readsAlone(store));
    const fieldBytes = Buffer.byteLength(JSON.stringify(await matchingActivities(store, USER, SELECTION)));
    const text = `before ${beforeCalls} calls (${beforeCommands} MongoDB commands), ${ms(beforeMs)} ms, records read ${(recordBytes / 1e6).toFixed(1)} MB; ` +
      `after ${afterCalls} calls (${afterCommands} commands), ${ms(afterMs)} ms, fields read ${(fieldBytes / 1e6).toFixed(2)} MB; ` +
      `the same reads alone (no decode, no fold) ${ms(readsMs)} ms`;
    const cold = `cold longitudinal read and fold of ${RIDES} activities`;
    return {
      text,
      rows: [
        { question: cold, dataset: 'synthetic', figure: afterMs, unit: 'ms', anchor: readsMs, anchorLabel: 'its reads alone (fields, caches in batches; no decode)', ratio: share(afterMs, readsMs, 'lower') },
        { question: `${cold}, against the old read`, dataset: 'synthetic', figure: afterMs, unit: 'ms', anchor: beforeMs, anchorLabel: 'whole records, a cache read each (a floor to beat)', ratio: share(afterMs, beforeMs, 'lower') },
        { question: `store calls of a ${cold}`, dataset: 'synthetic', figure: afterCalls, unit: 'calls', anchor: beforeCalls, anchorLabel: 'the old read\'s (a floor to beat)', ratio: share(afterCalls, beforeCalls, 'lower') },
      ],
    };
  });
}
