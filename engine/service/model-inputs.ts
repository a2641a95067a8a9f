/**
 * What the physiological models read for (user, sport, date) (ANALYTICS.md §6–7; interface §8 "Model
 * window: currently 90 days ending on the requested date"), and a watermark that changes with any of it.
 *
 * - The longitudinal best curve of the sport's activities (a parent sport matches sub-sports) whose own
 *   local date lies in [date − 89, date], from their analysis caches (as GetLongitudinalMeanMax reads them:
 *   analysis-cache.ts, never the raw series), on the full grid up to the longest cached duration.
 * - Whether any of those activities recorded at least 15 minutes of the metric (pauses excluded: the sum of
 *   its cached AWD histogram), or a max effort lasted that long.
 * - The max efforts of the sport and metric dated in the window (declared and measured alike).
 * - body_mass and resting_hr on `date` as `GET /dailies` gives them (§7 "the one GET /dailies/body_mass
 *   gives … interpolated between stored values as dailies are"): storage/dailies.ts `readDailyRange`, so a
 *   later stored value counts (interpolated towards, or held before the first). A value of any age counts.
 * - The markers of the sport's root dated on or before `date`: written ones (collection `markers`) and
 *   measured ones from tests (domain/measured-markers.ts, LT1/LT2 derived with the engine's own kernels
 *   for tests lacking them).
 *
 * The watermark: per collection the user writes model inputs to (activities, markers, max_efforts,
 * dailies, tests, traces), the number of the user's documents and the latest `updated_at` (or `created_at`
 * where documents are never updated: markers, max efforts). A write raises a timestamp; a deletion lowers a
 * count; a deletion and an insert between two reads raise the timestamp. Limits: two writes to one
 * collection in the same millisecond that leave the count and the latest timestamp unchanged (a delete of
 * an older document plus an update stamped with the same millisecond as the newest) go unseen, and clocks
 * of several gateways must not run backwards. It covers the user's whole history, not only the window: a
 * change outside the window costs one recomputation, never a stale answer. Twelve indexed reads.
 * test/engine/physiological-models.test.ts checks that a new activity, marker and daily change it.
 */
import type { Store } from '../../storage/store.js';
import { readDailyRange } from '../../storage/dailies.js';
import type { DailyMeasure } from '../../domain/daily-measures.js';
import { addDays, dateToEpochDay } from '../../domain/time.js';
import { rootSport } from '../../domain/sport.js';
import { markersOfTest, withDerivedThresholds } from '../../domain/measured-markers.js';
import type { CurveMetric } from '../analysis/canonical-series.js';
import { emptyBest, foldCurve, type MetricCurve } from '../analysis/curves.js';
import { lactateThresholds } from '../analysis/lactate-thresholds.js';
import { fullGrid } from '../kernels/duration-grid.js';
import { LONG_EFFORT_SECONDS } from '../kernels/ompd-points.js';
import type { StoredMarker } from '../models/metabolic-map.js';
import type { FitIntensityModelTask } from '../pool/tasks.js';
import { matchingActivities } from './activity-selection.js';
import { loadCurves, loadCurvesAndHistograms, type CacheDeps } from './analysis-cache.js';

/** "currently 90 days ending on date", inclusive. */
export const MODEL_WINDOW_DAYS = 90;

export interface ModelInputs {
  /** The pool task's input: curve, efforts, the 15-minute rule. */
  fit: FitIntensityModelTask;
  /** kg / bpm valid on the date, null without any stored value on or before it. */
  bodyMass: number | null;
  restingHr: number | null;
  /** Written and measured markers of the sport's root, dated on or before the date. */
  markers: StoredMarker[];
}

/** First date of the window ending on `date`. */
export function windowStart(date: string): string {
  return addDays(date, -(MODEL_WINDOW_DAYS - 1));
}

/** The curve, efforts and long-activity flag of (user, sport, metric) in the window ending on `date`. */
export async function fitInputs(deps: CacheDeps, userId: string, sport: string, metric: CurveMetric, date: string, signal: AbortSignal): Promise<FitIntensityModelTask> {
  const start = windowStart(date);
  const root = rootSport(sport) ?? sport;
  const [records, efforts] = await Promise.all([
    matchingActivities(deps.store, userId, { sports: [sport], startDate: start, endDate: date }),
    deps.store.max_efforts.find({ user_id: userId, sport: root, metric, date: { $gte: start, $lte: date } }),
  ]);
  const { curves, hasLongActivity } = await curvesAndLongActivity(deps, records, metric, signal);
  let longest = 0;
  for (const curve of curves) if (curve !== null && curve.durations.length > 0) longest = Math.max(longest, curve.durations[curve.durations.length - 1]!);
  const best = emptyBest(fullGrid(longest));
  curves.forEach((curve, holder) => {
    if (curve !== null) foldCurve(best, curve, holder);
  });
  return {
    metric,
    curveDurations: best.durations,
    curveValues: best.values,
    effortDurations: Float64Array.from(efforts, (effort) => effort.duration_s),
    effortValues: Float64Array.from(efforts, (effort) => effort.value),
    // "no activity with 15 minutes of recorded time" (§6); a max effort that long is one too.
    hasLongActivity: hasLongActivity || efforts.some((effort) => effort.duration_s >= LONG_EFFORT_SECONDS),
  };
}

/**
 * The `metric` curves of `records`, in order, and whether one of them recorded 15 minutes of it ("at least
 * 15 minutes of recorded time (pauses excluded)", ANALYTICS.md §7): the sum of its cached AWD histogram,
 * which counts recorded time only ("zero-filled pause seconds are not recorded time", §5). Histograms are
 * read only for activities whose span is that long, in the same pass as their curves (each cache read or
 * computed once).
 */
async function curvesAndLongActivity(
  deps: CacheDeps, records: readonly SelectedActivity[], metric: CurveMetric, signal: AbortSignal,
): Promise<{ curves: (MetricCurve | null)[]; hasLongActivity: boolean }> {
  const long: number[] = [];
  const short: number[] = [];
  records.forEach((record, index) => (record.duration_s >= LONG_EFFORT_SECONDS ? long : short).push(index));
  const [both, shortCurves] = await Promise.all([
    loadCurvesAndHistograms(deps, long.map((index) => records[index]!), metric, signal),
    loadCurves(deps, short.map((index) => records[index]!), metric, signal),
  ]);
  const curves: (MetricCurve | null)[] = new Array(records.length).fill(null);
  long.forEach((index, i) => { curves[index] = both.curves[i]!; });
  short.forEach((index, i) => { curves[index] = shortCurves[i]!; });
  const hasLongActivity = both.histograms.some((histogram) => histogram !== null && recordedMs(histogram) >= LONG_EFFORT_SECONDS * 1000);
  return { curves, hasLongActivity };
}

type SelectedActivity = Parameters<typeof loadCurves>[1][number] & { duration_s: number };

/** Recorded ms of an AWD histogram (ms per intensity bin). */
function recordedMs(histogram: Float64Array): number {
  let total = 0;
  for (let bin = 0; bin < histogram.length; bin++) total += histogram[bin]!;
  return total;
}

/** Everything a map needs. */
export async function modelInputs(deps: CacheDeps, userId: string, sport: string, metric: CurveMetric, date: string, signal: AbortSignal): Promise<ModelInputs> {
  const [fit, bodyMass, restingHr, markers] = await Promise.all([
    fitInputs(deps, userId, sport, metric, date, signal),
    dailyOn(deps.store, userId, 'body_mass', date),
    dailyOn(deps.store, userId, 'resting_hr', date),
    markersOn(deps.store, userId, rootSport(sport) ?? sport, date),
  ]);
  return { fit, bodyMass, restingHr, markers };
}

/**
 * The value of `measure` on `date` as `GET /dailies/{measure}` gives it (storage/dailies.ts `readDailyRange`,
 * estimates on): stored, else interpolated between the nearest stored values or held beyond them; null
 * without any stored value.
 */
export async function dailyOn(store: Store, userId: string, measure: DailyMeasure, date: string): Promise<number | null> {
  const [entry] = await readDailyRange(store, userId, measure, date, date, true);
  return entry?.value ?? null;
}

const DAY_MS = 86_400_000;

/** Written and measured markers of `sport` (a root) dated on or before `date`. */
export async function markersOn(store: Store, userId: string, sport: string, date: string): Promise<StoredMarker[]> {
  const [written, tests] = await Promise.all([
    store.markers.find({ user_id: userId, sport, date: { $lte: date } }),
    // A coarse bound on the UTC start (a local date lies within a day of its UTC date); exact below.
    store.tests.find({ user_id: userId, start: { $lt: (dateToEpochDay(date) + 2) * DAY_MS } }),
  ]);
  const own = tests.filter((test) => rootSport(test.sport) === sport);
  const derived = await withDerivedThresholds(
    own,
    (testIds) => store.traces.find({ user_id: userId, test_id: { $in: testIds } }),
    (request) => lactateThresholds(request.sport_kind, request.points),
  );
  const measured = derived.flatMap((test) => markersOfTest(test, userId)).filter((row) => row.date <= date);
  return [...written, ...measured];
}

/** The collections a model input lives in, and the field each write stamps (indexed with the user: schema.ts). */
export const WATERMARKED = [
  ['activities', 'updated_at'], ['markers', 'created_at'], ['max_efforts', 'created_at'],
  ['dailies', 'updated_at'], ['tests', 'updated_at'], ['traces', 'updated_at'],
] as const;

/** A string that changes whenever the user's model inputs do (see the header for what it misses). */
export async function inputWatermark(store: Store, userId: string): Promise<string> {
  const parts = await Promise.all(WATERMARKED.map(async ([name, stamp]) => {
    // The collections differ in type but share the two fields read here.
    const collection = store[name] as unknown as Store['dailies'];
    const field = stamp as 'updated_at';
    const [count, latest] = await Promise.all([
      collection.count({ user_id: userId }),
      // Newest first by the index (user_id, stamp, id) read backwards: no sort of the user's documents.
      collection.findFields({ user_id: userId }, [field], { sort: { [field]: -1, id: -1 }, limit: 1 }),
    ]);
    return `${count}:${latest[0]?.[field] ?? 0}`;
  }));
  return parts.join('/');
}
