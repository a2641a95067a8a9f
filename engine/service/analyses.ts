/**
 * The analysis RPCs (engine.proto "Analyses"): thin handlers — validate, find the records (NOT_FOUND
 * unless they are the caller's), move stored bytes to the pool, return the table the worker wrote.
 *
 * - GetMeanMax / GetAccumulatedWorkDuration: one activity. With a current analysis cache (ingest writes it)
 *   and durations on its grid (the defaults, all, or listed grid points), the numbers are read from the
 *   cache (kept decoded in memory) and only the small table is written in the pool: no series is read,
 *   inflated or moved. Otherwise computed exactly from the raw series in the pool. Both give the same
 *   bytes, and the file is remembered (AnswerMemo) under the cache's key: a warm request is one record read.
 * - GetLongitudinalMeanMax: without fatigue states, from the activities' analysis caches (kept decoded in
 *   memory, folded here, the table written in the pool); with states,
 *   from the raw series in batches of AFTER_BATCH activities, AFTER_PARALLEL at a time (bounded memory), each
 *   batch's bests folded here oldest first, then the table written in the pool.
 * - GetLongitudinalAccumulatedWorkDuration: from the caches' AWD histograms (copied to the pool).
 * test/engine/analyses.test.ts calls them over gRPC; test/gateway/analytics.test.ts through HTTP.
 */
import { status } from '@grpc/grpc-js';
import { rootSport } from '../../domain/sport.js';
import type { ActivityRecord, Store } from '../../storage/store.js';
import { defaultAwdMetric, type CurveMetric } from '../analysis/canonical-series.js';
import { EngineError, type CallContext } from '../errors.js';
import { fullGrid } from '../kernels/duration-grid.js';
import type { EnginePool } from '../pool/pool.js';
import type { ActivityLabel, AfterBests, TableFile } from '../pool/tasks.js';
import {
  MAX_AFTER_STATES, earliestAfterStart, type GetAccumulatedWorkDurationRequest, type GetLongitudinalAccumulatedWorkDurationRequest,
  type GetLongitudinalMeanMaxRequest, type GetMeanMaxRequest, type TableMessage,
} from '../contract.js';
import { matchingActivities, selectionOf, type SelectedActivity } from './activity-selection.js';
import { tableFormat } from './activity-series.js';
import { currentPart, derivedKey, loadCurves, loadHistograms, type AnalysisMemo, type AnswerMemo } from './analysis-cache.js';
import { emptyBest, exactFromCache, foldCurve, type MetricCurve } from '../analysis/curves.js';
import { mapLimit } from './map-limit.js';
import { ownActivity, storedSeries, type OwnActivity } from './activity-records.js';
import { standalone } from '../pool/standalone.js';
import { curveMetric, requestedDurations, requireField } from './request-fields.js';

export interface AnalysisDeps {
  store: Store;
  pool: EnginePool;
  memo?: AnalysisMemo;
  /** One-activity answers already given (analysis-cache.ts AnswerMemo); without one each is computed. */
  answers?: AnswerMemo;
}

/** A metric the activity does not have: an empty curve ("an empty table, not an error"). */
const EMPTY_CURVE: MetricCurve = { durations: new Int32Array(0), values: new Float64Array(0), starts: new Float64Array(0) };

/** Activities per afterBests task: about 15 MB of two-hour series in flight per task. */
const AFTER_BATCH = 24;
/** afterBests tasks in flight at once. */
const AFTER_PARALLEL = 2;

export function getMeanMax(deps: AnalysisDeps) {
  return async function getMeanMaxCall(request: GetMeanMaxRequest, { signal }: CallContext): Promise<TableMessage> {
    const subsystem = 'mean-max';
    const record = await requestedActivity(deps.store, request, subsystem);
    const metric = curveMetric(request.metric, 'metric', subsystem, 'power');
    const durations = requestedDurations(request.durations, request.all_durations, subsystem);
    const format = tableFormat(request.format);
    return answer(deps, record, `mean-max.${metric}.${format}.${durations === null ? 'all' : durations.join(',')}`, async () => {
      const cached = await currentPart(deps, record, 'curve', metric);
      const curve = cached === undefined ? null : cached === null ? EMPTY_CURVE : exactFromCache(cached as MetricCurve, durations);
      if (curve !== null) return deps.pool.run('curveFile', { metric, curve, format }, { signal });
      const series = await storedSeries(deps.store, record, subsystem);
      signal.throwIfAborted();
      return deps.pool.run('activityMeanMax', { series, sport: record.sport, metric, durations, format }, { signal, transferList: [series] });
    });
  };
}

export function getAccumulatedWorkDuration(deps: AnalysisDeps) {
  return async function getAccumulatedWorkDurationCall(request: GetAccumulatedWorkDurationRequest, { signal }: CallContext): Promise<TableMessage> {
    const subsystem = 'accumulated work duration';
    const record = await requestedActivity(deps.store, request, subsystem);
    // "defaults to power for cycling, speed otherwise"
    const metric = curveMetric(request.metric, 'metric', subsystem, defaultAwdMetric(record.sport));
    const format = tableFormat(request.format);
    return answer(deps, record, `awd.${metric}.${format}`, async () => {
      const histogram = await currentPart(deps, record, 'awd', metric);
      if (histogram !== undefined) return deps.pool.run('awdFile', { metric, histogram: (histogram as Float64Array | null) ?? new Float64Array(0), format }, { signal });
      const series = await storedSeries(deps.store, record, subsystem);
      signal.throwIfAborted();
      return deps.pool.run('activityAwd', { series, sport: record.sport, metric, format }, { signal, transferList: [series] });
    });
  };
}

/**
 * A one-activity answer: from the answer memory when this question about this cache was answered before, else
 * `compute`d (from the cache when it holds the answer, else from the series) and remembered. Only activities
 * with a current cache are remembered, under its key (analysis-cache.ts derivedKey).
 */
async function answer(deps: AnalysisDeps, record: OwnActivity, question: string, compute: () => Promise<TableFile>): Promise<TableMessage> {
  const key = deps.answers === undefined ? null : derivedKey(record, question);
  const remembered = key === null ? undefined : deps.answers!.get(key);
  if (remembered !== undefined) return remembered;
  const computed = tableMessage(await compute());
  if (key !== null) deps.answers!.set(key, computed);
  return computed;
}

export function getLongitudinalMeanMax(deps: AnalysisDeps) {
  return async function getLongitudinalMeanMaxCall(request: GetLongitudinalMeanMaxRequest, { signal }: CallContext): Promise<TableMessage> {
    const subsystem = 'longitudinal mean-max';
    const userId = requireField(request.user_id, 'user_id', subsystem);
    const selection = selectionOf(request, subsystem, { requireSport: true });
    const metric = curveMetric(request.metric, 'metric', subsystem, 'power');
    const durations = requestedDurations(request.durations, request.all_durations, subsystem);
    const after = afterStates(request.after ?? [], selection.startDate, selection.endDate, subsystem);
    const format = tableFormat(request.format);
    const records = await matchingActivities(deps.store, userId, selection);
    signal.throwIfAborted();

    if (after === null) {
      // From the caches: the fold is one merge pass per activity (linear in the activities), done here; the
      // table is written in the pool, which gets the labels of the holders only.
      const curves = await loadCurves(deps, records, metric, signal);
      const grid = durations ?? fullGrid(largest(curves, (curve) => (curve === null ? 0 : curve.durations.at(-1) ?? 0)));
      const best = emptyBest(grid);
      for (let holder = 0; holder < curves.length; holder++) {
        const curve = curves[holder]!;
        if (curve !== null) foldCurve(best, curve, holder);
      }
      const activities = holderLabels(best.holders, records);
      return tableMessage(await deps.pool.run(
        'meanMaxTable',
        { values: best.values, starts: best.starts, holders: best.holders, metric, durations: grid, activities, after: null, format },
        { signal },
      ));
    }
    const grid = durations ?? fullGrid(largest(records, (record) => Math.ceil(record.duration_s) + 1));
    // "after = W (kJ for power, m for speed)": thresholds in J or m.
    const thresholds = after.map((state) => (metric === 'power' ? state * 1000 : state));
    const bests = await afterBestsOf(deps, records, metric, grid, thresholds, signal);
    return tableMessage(await deps.pool.run(
      'meanMaxTable',
      { ...bests.folded, metric, durations: grid, activities: bests.labels, after, format },
      { signal },
    ));
  };
}

export function getLongitudinalAccumulatedWorkDuration(deps: AnalysisDeps) {
  return async function getLongitudinalAwdCall(request: GetLongitudinalAccumulatedWorkDurationRequest, { signal }: CallContext): Promise<TableMessage> {
    const subsystem = 'longitudinal accumulated work duration';
    const userId = requireField(request.user_id, 'user_id', subsystem);
    const selection = selectionOf(request, subsystem, { requireSport: false });
    const cyclingOnly = selection.sports.every((sport) => rootSport(sport) === 'cycling');
    const metric = curveMetric(request.metric, 'metric', subsystem, cyclingOnly ? 'power' : 'speed');
    const format = tableFormat(request.format);
    const records = await matchingActivities(deps.store, userId, selection);
    const histograms = await loadHistograms(deps, records, metric, signal);
    const days: { date: string; histogram: Float64Array }[] = [];
    histograms.forEach((histogram, index) => {
      if (histogram !== null) days.push({ date: records[index]!.local_date, histogram });
    });
    return tableMessage(await deps.pool.run('longitudinalAwd', { days, metric, format }, { signal }));
  };
}

// ---------------------------------------------------------------------------------------------------------

/**
 * The fatigue states, ascending without repeats, or null without any. "At most 5 states per request"; "when
 * used, the date range is capped at 1 year": both dates are needed and start may not precede the same day a
 * year before end.
 */
function afterStates(after: number[], startDate: string | null, endDate: string | null, subsystem: string): number[] | null {
  if (after.length === 0) return null;
  if (after.length > MAX_AFTER_STATES) throw new EngineError(status.INVALID_ARGUMENT, `${subsystem}: at most ${MAX_AFTER_STATES} after states, not ${after.length}`);
  for (const state of after) {
    if (!Number.isFinite(state) || state < 0) throw new EngineError(status.INVALID_ARGUMENT, `${subsystem}: after ${state} must be a number ≥ 0`);
  }
  if (startDate === null || endDate === null) throw new EngineError(status.INVALID_ARGUMENT, `${subsystem}: after states need start_date and end_date`);
  if (startDate < earliestAfterStart(endDate)) {
    throw new EngineError(status.INVALID_ARGUMENT, `${subsystem}: with after states the range may span at most one year; ${startDate} is before ${earliestAfterStart(endDate)}`);
  }
  return [...new Set(after)].sort((a, b) => a - b);
}

/**
 * The bests after each state over all records, oldest first: the series go to the pool in batches, each
 * batch answered with its own bests, folded here in order (a later batch wins only when strictly better).
 */
async function afterBestsOf(
  deps: AnalysisDeps, records: readonly SelectedActivity[], metric: CurveMetric, durations: Int32Array, thresholds: number[], signal: AbortSignal,
): Promise<{ folded: AfterBests; labels: ActivityLabel[] }> {
  const size = thresholds.length * durations.length;
  const folded: AfterBests = { values: new Float64Array(size).fill(Number.NaN), starts: new Float64Array(size), holders: new Int32Array(size).fill(-1) };
  const labels: ActivityLabel[] = [];
  const batches: SelectedActivity[][] = [];
  for (let i = 0; i < records.length; i += AFTER_BATCH) batches.push(records.slice(i, i + AFTER_BATCH));
  // Two batches in flight keep both default threads busy while bounding the series held in memory.
  const results = await mapLimit(batches, AFTER_PARALLEL, async (batch) => {
    const found: { record: SelectedActivity; series: ArrayBuffer }[] = [];
    // One query per batch (AFTER_BATCH bounds its bytes), not one per activity.
    const stored = await deps.store.blobs.getMany(batch.map((record) => record.series_key));
    batch.forEach((record, j) => {
      const bytes = stored[j]!;
      if (bytes !== null) found.push({ record, series: standalone(bytes) });
    });
    signal.throwIfAborted();
    const series = found.map((entry) => entry.series);
    const sports = found.map((entry) => entry.record.sport);
    const bests = await deps.pool.run('afterBests', { series, sports, metric, durations, thresholds }, { signal, transferList: series });
    return { records: found.map((entry) => entry.record), bests };
  });
  for (const { records: batchRecords, bests } of results) {
    const base = labels.length;
    labels.push(...batchRecords.map(label));
    for (let k = 0; k < size; k++) {
      const holder = bests.holders[k]!;
      if (holder < 0) continue;
      const current = folded.values[k]!;
      if (current === current && !(bests.values[k]! > current)) continue;
      folded.values[k] = bests.values[k]!;
      folded.starts[k] = bests.starts[k]!;
      folded.holders[k] = base + holder;
    }
  }
  return { folded, labels };
}

function requestedActivity(store: Store, request: { user_id: string; activity_id: string }, subsystem: string): Promise<OwnActivity> {
  return ownActivity(store, requireField(request.user_id, 'user_id', subsystem), requireField(request.activity_id, 'activity_id', subsystem));
}

/** The largest `of(item)`, 0 for none (a loop: spreading a long history into Math.max overflows the stack). */
function largest<T>(items: readonly T[], of: (item: T) => number): number {
  let max = 0;
  for (const item of items) max = Math.max(max, of(item));
  return max;
}

/** The labels of the activities that hold a best, in first-held order; `holders` renumbered into them, in place. */
function holderLabels(holders: Int32Array, records: readonly SelectedActivity[]): ActivityLabel[] {
  const renumbered = new Map<number, number>();
  const labels: ActivityLabel[] = [];
  for (let j = 0; j < holders.length; j++) {
    const holder = holders[j]!;
    if (holder < 0) continue;
    let index = renumbered.get(holder);
    if (index === undefined) {
      index = labels.length;
      renumbered.set(holder, index);
      labels.push(label(records[holder]!));
    }
    holders[j] = index;
  }
  return labels;
}

function label(record: Pick<ActivityRecord, 'id' | 'sport'>): ActivityLabel {
  return { id: record.id, sport: record.sport };
}

/** A worker's table file as the `Table` message. */
export function tableMessage(file: TableFile): TableMessage {
  return { data: new Uint8Array(file.data), rows: file.rows };
}
