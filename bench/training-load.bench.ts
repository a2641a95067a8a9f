/**
 * Question: what does GET /api/v1/ext/training-load over 3,000 cached activities cost (issue 28 "a season of
 * 3,000 activities answers from caches, not by re-reading series") — time and store calls — cold (the
 * engine's memory of decoded caches empty, the caches in the store) and warm (decoded caches in memory)?
 *
 * One user with 3,000 ten-minute rides and their analysis caches (bench/history.ts seedHistory) and one
 * pinned declared second_threshold, so no model is fitted. The figure is the engine's handler
 * (engine/service/training-load.ts getTrainingLoad: records' fields, load numbers from the caches in batches,
 * thresholds once, the daily table as Parquet); the anchor is the longitudinal mean-max over the same
 * activities in the same state (engine/service/analyses.ts: the same records and cache reads, a fold of
 * curves instead of loads), the interface's own "answers from caches" path. Store calls are counted through
 * test/support/counting-store.ts (MongoDB commands: those calls with each blob read counted twice). Medians
 * of 3 runs (warm: 5) on SQLite in memory; a shared machine reads low, the ratio is what to compare. The day
 * table is 3,288 rows (nine years of days), written as Parquet in the pool; the mean-max table is a curve.
 *
 *   npm run build && node dist/bench/run.js training-load
 */
import { ANALYSIS_MEMO_BYTES, AnalysisMemo } from '../engine/service/analysis-cache.js';
import { getLongitudinalMeanMax } from '../engine/service/analyses.js';
import { ModelCache } from '../engine/service/model-cache.js';
import { modeledMarkersFrom, type ModelState } from '../engine/service/physiological-models.js';
import { getTrainingLoad } from '../engine/service/training-load.js';
import { createPool } from '../engine/pool/pool.js';
import { openStore } from '../storage/open-store.js';
import { newId } from '../storage/ids.js';
import { daily } from '../test/storage/records.js';
import { countingStore, mongoCommands } from '../test/support/counting-store.js';
import { median, ms, seedHistory } from './history.js';
import { share, type BenchResult, type BenchRow } from './results.js';

export const question = 'GET /ext/training-load over 3,000 cached activities: time and store calls, cold and warm, vs the longitudinal mean-max over the same caches';

const RIDES = 3_000;
const USER = 'bench-training-load';
/** Rides of the user whose thresholds are modeled, one a day: each local date fits the model once. */
const MODELED_RIDES = 300;

export async function run(): Promise<BenchResult> {
  const pool = createPool({ threads: 1 });
  const store = await openStore({ mongodbUri: null, sqliteFile: ':memory:' });
  try {
    await seedHistory(store, pool, USER, RIDES);
    await store.markers.insert({
      id: newId(), user_id: USER, sport: 'cycling', marker: 'second_threshold', metric: 'power', value: 250, date: '2016-01-01',
      provenance: 'declared', pinned: true, source: null, application_id: null, activity_id: null, test_id: null, created_at: Date.now(),
    });
    const context = () => ({ signal: new AbortController().signal, deadline: Date.now() + 600_000 });
    const loadRequest = { user_id: USER, sports: ['cycling'], start_date: '', end_date: '2024-12-31', format: 'PARQUET' as const };
    const meanMaxRequest = { user_id: USER, sports: ['cycling'], metric: 'power', durations: [], all_durations: false, after: [], format: 'PARQUET' };
    const load = (memo: AnalysisMemo, s = store) => {
      const models = { store: s, pool, memo, cache: new ModelCache<Promise<ModelState>>() };
      return getTrainingLoad({ store: s, pool, memo, modeledMarkers: modeledMarkersFrom(models) })(loadRequest, context());
    };
    const meanMax = (memo: AnalysisMemo, s = store) => getLongitudinalMeanMax({ store: s, pool, memo })(meanMaxRequest as never, context());

    const counting = countingStore(store);
    counting.reset();
    const table = await load(new AnalysisMemo(ANALYSIS_MEMO_BYTES), counting.store);
    const loadCalls = counting.total();
    const loadCommands = mongoCommands(counting.counts);
    counting.reset();
    await meanMax(new AnalysisMemo(ANALYSIS_MEMO_BYTES), counting.store);
    const meanMaxCalls = counting.total();

    const coldLoad = await median(3, () => load(new AnalysisMemo(ANALYSIS_MEMO_BYTES)));
    const coldMeanMax = await median(3, () => meanMax(new AnalysisMemo(ANALYSIS_MEMO_BYTES)));
    const warmMemo = new AnalysisMemo(ANALYSIS_MEMO_BYTES);
    await load(warmMemo);
    await meanMax(warmMemo);
    const warmLoad = await median(5, () => load(warmMemo));
    const warmMeanMax = await median(5, () => meanMax(warmMemo));

    // Without a declared threshold every local date asks the metabolic map's model (fresh model cache).
    const modeledUser = `${USER}-modeled`;
    await seedHistory(store, pool, modeledUser, MODELED_RIDES);
    await store.dailies.insert(daily(newId(), modeledUser, { measure: 'body_mass', date: '2016-01-01', value: 70 }));
    const modeledRequest = { ...loadRequest, user_id: modeledUser };
    const modeled = () => {
      const memo = new AnalysisMemo(ANALYSIS_MEMO_BYTES);
      const models = { store, pool, memo, cache: new ModelCache<Promise<ModelState>>() };
      return getTrainingLoad({ store, pool, memo, modeledMarkers: modeledMarkersFrom(models) })(modeledRequest, context());
    };
    const modeledMs = await median(1, modeled);

    const row = (what: string, figure: number, anchor: number): BenchRow => ({
      question: `training-load, 3,000 rides, ${what}`, dataset: 'synthetic', figure, unit: 'ms',
      anchor, anchorLabel: `longitudinal mean-max, ${what}`, ratio: share(figure, anchor, 'lower'),
    });
    const text = `sqlite (in memory): ${table.rows} days; cold ${ms(coldLoad)} ms, ${loadCalls} store calls (${loadCommands} MongoDB commands) ` +
      `vs longitudinal mean-max ${ms(coldMeanMax)} ms, ${meanMaxCalls} calls; warm ${ms(warmLoad)} ms vs ${ms(warmMeanMax)} ms; ` +
      `${MODELED_RIDES} rides without a declared threshold (modeled per date): ${ms(modeledMs)} ms`;
    return { text, rows: [row('cold caches', coldLoad, coldMeanMax), row('warm caches', warmLoad, warmMeanMax)] };
  } finally {
    await store.close();
    await pool.destroy();
  }
}
