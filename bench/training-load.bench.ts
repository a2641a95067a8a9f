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
 * Modeled thresholds (issue 28 item 1): a second user with 3,000 rides (distinct caches of 20 minutes:
 * varyCaches), a body mass and no marker, so every local date's threshold is the metabolic map's model. The
 * figure: the call with the season modeled in one pass (modeledSeason: one read of the inputs, a sliding
 * 90-day best, one fit per distinct input), the decoded caches in memory, the model cache empty; its anchor,
 * measured in the same run: the same call asking the model date by date (modeledMarkers alone, as before:
 * a watermark, the window's reads and a fit per date). Both tables must be equal byte for byte. Then the
 * model cache kept (a second call on one engine: every date a hit).
 *
 *   npm run build && node dist/bench/run.js training-load
 */
import { ANALYSIS_MEMO_BYTES, AnalysisMemo } from '../engine/service/analysis-cache.js';
import { getLongitudinalMeanMax } from '../engine/service/analyses.js';
import { ModelCache } from '../engine/service/model-cache.js';
import { modeledMarkersFrom, modeledSeasonFrom, type ModelState } from '../engine/service/physiological-models.js';
import { seasonFitInputs } from '../engine/service/model-inputs.js';
import { decodeAnalysis, encodeAnalysis } from '../engine/analysis/analysis-codec.js';
import type { EnginePool } from '../engine/pool/pool.js';
import type { Store } from '../storage/store.js';
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

/**
 * The modeled user's rides made distinct and long enough to model from: each ride's cached power curve scaled
 * by its own factors (short efforts, long efforts, log-blended between 30 s and 5 min, 0.8–1.2 each) and its
 * record and recorded time doubled to 20 minutes (the 15-minute rule), so the 90-day best changes as rides
 * enter and leave a window, as a real season's does (seedHistory's copies would give every date one input).
 */
async function varyCaches(store: Store, userId: string): Promise<void> {
  const records = await store.activities.findFields({ user_id: userId }, ['id', 'analysis_key'], { sort: { start: 1 } });
  const base = decodeAnalysis((await store.blobs.get(records[0]!.analysis_key!))!);
  let seed = 7;
  const next = () => ((seed = (seed * 48271) % 2147483647) / 2147483647);
  for (const record of records) {
    const short = 0.8 + 0.4 * next();
    const long = 0.8 + 0.4 * next();
    const curve = base.curves.power!;
    const values = Float64Array.from(curve.values, (value, j) => {
      const blend = Math.min(1, Math.max(0, Math.log(curve.durations[j]! / 30) / Math.log(10)));
      return value * (short + (long - short) * blend);
    });
    const awd = Float64Array.from(base.awd.power!, (msInBin) => 2 * msInBin);
    const analysis = { ...base, curves: { power: { ...curve, values } }, awd: { power: awd }, numbers: { ...base.numbers!, recordedS: 2 * base.numbers!.recordedS } };
    await store.blobs.put(record.analysis_key!, encodeAnalysis(analysis), { userId });
    await store.activities.updateOne({ user_id: userId, id: record.id }, { set: { duration_s: 1200 } });
  }
}

/** How many distinct fit inputs the modeled season has (the fits a cold one-pass call runs). */
async function distinctFits(store: Store, pool: EnginePool, userId: string): Promise<number> {
  const records = await store.activities.findFields({ user_id: userId }, ['local_date'], {});
  const dates = [...new Set(records.map((record) => record.local_date))].sort();
  const tasks = await seasonFitInputs({ store, pool }, userId, 'cycling', 'power', dates, new AbortController().signal);
  return new Set(tasks.map((task) => `${task.hasLongActivity}:${Array.from(task.curveValues).join(',')}`)).size;
}

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

    // Without a declared threshold every local date's threshold is modeled: the season in one pass
    // (modeledSeason) against one model per date (modeledMarkers alone: how every date was modeled before).
    const modeledUser = `${USER}-modeled`;
    await seedHistory(store, pool, modeledUser, RIDES);
    await varyCaches(store, modeledUser);
    await store.dailies.insert(daily(newId(), modeledUser, { measure: 'body_mass', date: '2016-01-01', value: 70 }));
    const modeledRequest = { ...loadRequest, user_id: modeledUser };
    const modeled = (perDate: boolean, s: Store = store, models = { store: s, pool, memo: new AnalysisMemo(ANALYSIS_MEMO_BYTES), cache: new ModelCache<Promise<ModelState>>() }) => {
      const deps = { store: s, pool, memo: models.memo, modeledMarkers: modeledMarkersFrom(models), ...(!perDate && { modeledSeason: modeledSeasonFrom(models) }) };
      return getTrainingLoad(deps)(modeledRequest, context());
    };
    // The decoded caches in memory for both, the model cache empty: the cost of modeling itself.
    const warmCaches = new AnalysisMemo(ANALYSIS_MEMO_BYTES);
    await modeled(false, store, { store, pool, memo: warmCaches, cache: new ModelCache<Promise<ModelState>>() });
    const fresh = (s: Store) => ({ store: s, pool, memo: warmCaches, cache: new ModelCache<Promise<ModelState>>() });
    counting.reset();
    const seasonTable = await modeled(false, counting.store, fresh(counting.store));
    const seasonCalls = counting.total();
    const seasonCommands = mongoCommands(counting.counts);
    const seasonMs = await median(3, () => modeled(false, store, fresh(store)));
    counting.reset();
    const started = performance.now();
    const perDateTable = await modeled(true, counting.store, fresh(counting.store));
    const perDateMs = performance.now() - started;
    const perDateCalls = counting.total();
    const perDateCommands = mongoCommands(counting.counts);
    if (Buffer.compare(Buffer.from(seasonTable.data), Buffer.from(perDateTable.data)) !== 0) throw new Error('training-load bench: the season and the per-date tables differ');
    // Then the model cache kept (one engine's memory): every date a hit.
    const kept = fresh(store);
    await modeled(false, store, kept);
    const keptMs = await median(5, () => modeled(false, store, kept));
    const fits = await distinctFits(store, pool, modeledUser);

    const row = (what: string, figure: number, anchor: number): BenchRow => ({
      question: `training-load, 3,000 rides, ${what}`, dataset: 'synthetic', figure, unit: 'ms',
      anchor, anchorLabel: `longitudinal mean-max, ${what}`, ratio: share(figure, anchor, 'lower'),
    });
    const modeledRow = (what: string, figure: number, anchor: number, unit = 'ms'): BenchRow => ({
      question: `training-load, 3,000 rides, modeled thresholds, ${what}`, dataset: 'synthetic', figure, unit,
      anchor, anchorLabel: `one model per local date (before), ${unit === 'ms' ? 'time' : unit}`, ratio: share(figure, anchor, 'lower'),
    });
    const text = `sqlite (in memory): ${table.rows} days; cold ${ms(coldLoad)} ms, ${loadCalls} store calls (${loadCommands} MongoDB commands) ` +
      `vs longitudinal mean-max ${ms(coldMeanMax)} ms, ${meanMaxCalls} calls; warm ${ms(warmLoad)} ms vs ${ms(warmMeanMax)} ms;\n  ` +
      `${RIDES} rides without a declared threshold (${RIDES} local dates modeled, ${fits} distinct 90-day inputs): season in one pass ` +
      `${ms(seasonMs)} ms, ${seasonCalls} store calls (${seasonCommands} MongoDB commands) vs one model per date ${ms(perDateMs)} ms, ` +
      `${perDateCalls} calls (${perDateCommands} commands), the same table; model cache kept ${ms(keptMs)} ms`;
    return {
      text,
      rows: [
        row('cold caches', coldLoad, coldMeanMax), row('warm caches', warmLoad, warmMeanMax),
        modeledRow('one pass', seasonMs, perDateMs), modeledRow('one pass, store calls', seasonCalls, perDateCalls, 'calls'),
        modeledRow('model cache kept', keptMs, perDateMs),
      ],
    };
  } finally {
    await store.close();
    await pool.destroy();
  }
}
