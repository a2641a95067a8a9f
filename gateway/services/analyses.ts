/**
 * The analysis calls behind the API's analysis routes and the athlete's pages, one place each (interface §4
 * "Activities", "Profile"): an activity's series and mean-max curve (ownership checked first: another user's
 * activity is a 404), the longitudinal mean-max with its `after` fatigue states ("When used, the date range is
 * capped at 1 year"), the intensity-duration curve and the metabolic map. The routes ask for Parquet; the
 * pages ask the engine for Arrow IPC of the same table. Kept honest by test/gateway/analytics.test.ts,
 * test/gateway/physiological-models.test.ts and test/gateway/athlete-pages.test.ts.
 */
import type { Readable } from 'node:stream';
import { earliestAfterStart } from '../../engine/contract.js';
import type { CallOptions } from '../engine-client.js';
import type { GatewayDeps } from '../deps.js';
import { ProblemError, ValidationError } from '../errors.js';
import { presentMetabolicMap, type PublishedMap } from '../presenters/metabolic-map.js';
import { ownActivityId } from './activities.js';

export type TableFormat = 'PARQUET' | 'ARROW_IPC';

/** Durations as requestedDurations gives them: [] (the defaults), 'all', or seconds. */
export type Durations = number[] | 'all';

type Deps = Pick<GatewayDeps, 'store' | 'engine'>;

function grid(durations: Durations): { durations: number[]; all_durations: boolean } {
  return { durations: durations === 'all' ? [] : durations, all_durations: durations === 'all' };
}

/** The caller's activity's series as a streamed table file (rows per sample, or adaptive segments). */
export async function activitySeries(
  deps: Deps, userId: string, activityId: string, query: { metrics: readonly string[]; segmentationOn?: string | undefined }, format: TableFormat, options: CallOptions,
): Promise<Readable> {
  const id = await ownActivityId(deps, activityId, userId);
  return deps.engine.activitySeries(
    { user_id: userId, activity_id: id, metrics: [...query.metrics], format, segmentation_on: query.segmentationOn ?? '' },
    options,
  );
}

/** The caller's activity's mean-max curve: duration, the metric, start. */
export async function activityMeanMax(
  deps: Deps, userId: string, activityId: string, query: { metric: string; durations: Durations }, format: TableFormat, options: CallOptions,
): Promise<Uint8Array> {
  const id = await ownActivityId(deps, activityId, userId);
  const result = await deps.engine.meanMax({ user_id: userId, activity_id: id, metric: query.metric, ...grid(query.durations), format }, options);
  return result.data;
}

export interface LongitudinalMeanMaxQuery {
  sports: string[];
  metric: string;
  /** Inclusive local dates; start null = unbounded (capped at a year before `end` when `after` is given). */
  start: string | null;
  end: string;
  durations: Durations;
  /** Fatigue states, kJ (power) or m (speed). */
  after: number[];
}

/** The best mean-max curve across the caller's matching activities (with an `after` column when states are given). */
export async function longitudinalMeanMax(deps: Deps, userId: string, query: LongitudinalMeanMaxQuery, format: TableFormat, options: CallOptions): Promise<Uint8Array> {
  let start = query.start;
  if (query.after.length > 0) {
    // "When used, the date range is capped at 1 year."
    const earliest = earliestAfterStart(query.end);
    if (start === null) start = earliest;
    else if (start < earliest) throw ValidationError.single(['query', 'start'], `with after, the range may span at most one year: start must be on or after ${earliest}`);
  }
  const result = await deps.engine.longitudinalMeanMax(
    { user_id: userId, sports: query.sports, start_date: start ?? '', end_date: query.end, metric: query.metric, ...grid(query.durations), after: query.after, format },
    options,
  );
  return result.data;
}

export const PROBLEM_TITLES = { missing_body_mass: 'No body mass', insufficient_data: 'Not enough training data' } as const;

/** The fitted intensity-duration curve ("Without enough data the curve is empty, never an error"). */
export async function intensityDurationCurve(
  deps: Deps, userId: string, query: { quantity: string; sport: string; date: string; durations: Durations }, options: CallOptions,
): Promise<{ algorithm: string; curve: { duration: number; intensity: number }[] }> {
  const result = await deps.engine.intensityDurationModel(
    { user_id: userId, quantity: query.quantity, sport: query.sport, date: query.date, ...grid(query.durations) },
    options,
  );
  return { algorithm: result.algorithm, curve: result.curve.map((point) => ({ duration: point.duration, intensity: point.intensity })) };
}

/** The metabolic map as published, or its problem (missing_body_mass, insufficient_data) as the 422 the API answers. */
export async function metabolicMap(
  deps: Deps, userId: string, query: { quantity: string; sport: string; date: string }, options: CallOptions,
): Promise<{ algorithm: string; map: PublishedMap; problem: null } | { algorithm: string; map: null; problem: ProblemError }> {
  const result = await deps.engine.metabolicMap({ user_id: userId, quantity: query.quantity, sport: query.sport, date: query.date }, options);
  if (result.problem !== '') {
    return { algorithm: result.algorithm, map: null, problem: new ProblemError(422, result.problem, PROBLEM_TITLES[result.problem], result.problem_detail) };
  }
  return { algorithm: result.algorithm, map: presentMetabolicMap(query.quantity, result), problem: null };
}
