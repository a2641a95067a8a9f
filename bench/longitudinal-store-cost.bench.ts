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
 *
 *   npm run build && node dist/bench/run.js longitudinal-store-cost
 */
import { ANALYSIS_MEMO_BYTES, AnalysisMemo, loadCurves } from '../engine/service/analysis-cache.js';
import { decodeAnalysisPart } from '../engine/analysis/analysis-codec.js';
import { emptyBest, foldCurve } from '../engine/analysis/curves.js';
import { DEFAULT_DURATIONS } from '../engine/kernels/duration-grid.js';
import type { EnginePool } from '../engine/pool/pool.js';
import { getLongitudinalMeanMax } from '../engine/service/analyses.js';
import { matchingActivities, selectionFilter, type Selection } from '../engine/service/activity-selection.js';
import type { Store } from '../storage/store.js';
import { countingStore, mongoCommands } from '../test/support/counting-store.js';
import { median, ms, onEachBackend, seedHistory } from './history.js';

export const question = 'Cold longitudinal mean-max over 3,000 activities: store calls, MongoDB commands and time, before (whole records, one cache read each) vs after (fields, caches in batches)';

const RIDES = 3_000;
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

export function run(): Promise<string> {
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
    const fieldBytes = Buffer.byteLength(JSON.stringify(await matchingActivities(store, USER, SELECTION)));
    return `before ${beforeCalls} calls (${beforeCommands} MongoDB commands), ${ms(beforeMs)} ms, records read ${(recordBytes / 1e6).toFixed(1)} MB; ` +
      `after ${afterCalls} calls (${afterCommands} commands), ${ms(afterMs)} ms, fields read ${(fieldBytes / 1e6).toFixed(2)} MB`;
  });
}
