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
 * Many dates at once (seasonModelInputs: the training load of a season, one model per local date) read each
 * of these once for all of them and take each date's 90-day best by a sliding maximum; one date is the same
 * code, so every caller gets the same numbers for a date.
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
import { addDays, dateToEpochDay, daysBetween } from '../../domain/time.js';
import { rootSport } from '../../domain/sport.js';
import { markersOfTest, withDerivedThresholds } from '../../domain/measured-markers.js';
import type { CurveMetric } from '../analysis/canonical-series.js';
import type { MetricCurve } from '../analysis/curves.js';
import { foldCurveInto } from '../kernels/curve-fold.js';
import { windowMax } from '../kernels/window-max.js';
import { indexAtOrAfter } from '../kernels/summary.js';
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
  return (await seasonFitInputs(deps, userId, sport, metric, [date], signal))[0]!;
}

/**
 * fitInputs for each of `dates` (ascending, distinct) in one pass: the activities and max efforts of every
 * window read once (one query each over [first window's start, last date]), each cached curve read once
 * and laid on the season's grid, and the window's best curve taken by the sliding maximum
 * (kernels/window-max.ts). A maximum selects one of the curves' values, so each task is bit for bit the one
 * a fold of the window's own curves gives; one date is the same code (fitInputs), so the metabolic map, the
 * zones and the training load read the same numbers. The grid of a window is fullGrid up to its own
 * longest curve, a prefix of the season's.
 */
export async function seasonFitInputs(
  deps: CacheDeps, userId: string, sport: string, metric: CurveMetric, dates: readonly string[], signal: AbortSignal,
): Promise<FitIntensityModelTask[]> {
  if (dates.length === 0) return [];
  const start = windowStart(dates[0]!);
  const end = dates[dates.length - 1]!;
  const root = rootSport(sport) ?? sport;
  const [found, foundEfforts] = await Promise.all([
    matchingActivities(deps.store, userId, { sports: [sport], startDate: start, endDate: end }),
    deps.store.max_efforts.find({ user_id: userId, sport: root, metric, date: { $gte: start, $lte: end } }),
  ]);
  // Windows are ranges of local dates: records and efforts in date order (stable: the store's order within a date).
  const records = [...found].sort((a, b) => compareDates(a.local_date, b.local_date));
  const efforts = [...foundEfforts].sort((a, b) => compareDates(a.date, b.date));
  const { curves, long } = await curvesAndLongActivity(deps, records, metric, signal);
  signal.throwIfAborted();

  // One row per record: its curve on the season's grid (NaN where it does not reach), then its longest duration.
  let longest = 0;
  for (const curve of curves) if (curve !== null && curve.durations.length > 0) longest = Math.max(longest, curve.durations[curve.durations.length - 1]!);
  const grid = fullGrid(longest);
  const columns = grid.length + 1;
  const matrix = new Float64Array(records.length * columns).fill(Number.NaN);
  const starts = new Float64Array(grid.length);
  const holders = new Int32Array(grid.length);
  curves.forEach((curve, row) => {
    if (curve === null || curve.durations.length === 0) return;
    foldCurveInto(curve.durations, curve.values, curve.starts, grid, matrix.subarray(row * columns, row * columns + grid.length), starts, holders, row);
    matrix[row * columns + grid.length] = curve.durations[curve.durations.length - 1]!;
  });

  // Each date's window [date − 89, date] as ranges of records and efforts, and the counts of long ones before each.
  const recordDays = Int32Array.from(records, (record) => dateToEpochDay(record.local_date));
  const effortDays = Int32Array.from(efforts, (effort) => dateToEpochDay(effort.date));
  const lo = new Int32Array(dates.length);
  const hi = new Int32Array(dates.length);
  const effortLo = new Int32Array(dates.length);
  const effortHi = new Int32Array(dates.length);
  dates.forEach((date, q) => {
    const last = dateToEpochDay(date);
    const first = last - (MODEL_WINDOW_DAYS - 1);
    lo[q] = indexAtOrAfter(recordDays, first);
    hi[q] = indexAtOrAfter(recordDays, last + 1);
    effortLo[q] = indexAtOrAfter(effortDays, first);
    effortHi[q] = indexAtOrAfter(effortDays, last + 1);
  });
  const longBefore = new Int32Array(records.length + 1);
  long.forEach((isLong, index) => { longBefore[index + 1] = longBefore[index]! + (isLong ? 1 : 0); });
  const bests = new Float64Array(dates.length * columns);
  windowMax(matrix, columns, lo, hi, bests);

  return dates.map((_, q) => {
    const best = bests.subarray(q * columns, (q + 1) * columns);
    const windowLongest = best[grid.length]!;
    const length = windowLongest === windowLongest ? fullGrid(windowLongest).length : 0;
    const windowEfforts = efforts.slice(effortLo[q]!, effortHi[q]!);
    return {
      metric,
      curveDurations: grid.slice(0, length),
      curveValues: best.slice(0, length),
      effortDurations: Float64Array.from(windowEfforts, (effort) => effort.duration_s),
      effortValues: Float64Array.from(windowEfforts, (effort) => effort.value),
      // "no activity with 15 minutes of recorded time" (§6); a max effort that long is one too.
      hasLongActivity: longBefore[hi[q]!]! - longBefore[lo[q]!]! > 0 || windowEfforts.some((effort) => effort.duration_s >= LONG_EFFORT_SECONDS),
    };
  });
}

function compareDates(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The `metric` curves of `records`, in order, and which of them recorded 15 minutes of it ("at least
 * 15 minutes of recorded time (pauses excluded)", ANALYTICS.md §7): the sum of its cached AWD histogram,
 * which counts recorded time only ("zero-filled pause seconds are not recorded time", §5). Histograms are
 * read only for activities whose span is that long, in the same pass as their curves (each cache read or
 * computed once).
 */
async function curvesAndLongActivity(
  deps: CacheDeps, records: readonly SelectedActivity[], metric: CurveMetric, signal: AbortSignal,
): Promise<{ curves: (MetricCurve | null)[]; long: boolean[] }> {
  const longIndices: number[] = [];
  const short: number[] = [];
  records.forEach((record, index) => (record.duration_s >= LONG_EFFORT_SECONDS ? longIndices : short).push(index));
  const [both, shortCurves] = await Promise.all([
    loadCurvesAndHistograms(deps, longIndices.map((index) => records[index]!), metric, signal),
    loadCurves(deps, short.map((index) => records[index]!), metric, signal),
  ]);
  const curves: (MetricCurve | null)[] = new Array(records.length).fill(null);
  longIndices.forEach((index, i) => { curves[index] = both.curves[i]!; });
  short.forEach((index, i) => { curves[index] = shortCurves[i]!; });
  const long: boolean[] = new Array(records.length).fill(false);
  longIndices.forEach((index, i) => {
    const histogram = both.histograms[i];
    long[index] = histogram !== null && histogram !== undefined && recordedMs(histogram) >= LONG_EFFORT_SECONDS * 1000;
  });
  return { curves, long };
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
  return (await seasonModelInputs(deps, userId, sport, metric, [date], signal))[0]!;
}

/**
 * modelInputs for each of `dates` (ascending, distinct), each input read once for all of them: the fits'
 * inputs by seasonFitInputs, body_mass and resting_hr as one range of dailies (the same estimates a single
 * date's read gives: domain/daily-series.ts), the markers once up to the last date and kept per date.
 */
export async function seasonModelInputs(
  deps: CacheDeps, userId: string, sport: string, metric: CurveMetric, dates: readonly string[], signal: AbortSignal,
): Promise<ModelInputs[]> {
  if (dates.length === 0) return [];
  const first = dates[0]!;
  const last = dates[dates.length - 1]!;
  const [fits, bodyMass, restingHr, markers] = await Promise.all([
    seasonFitInputs(deps, userId, sport, metric, dates, signal),
    readDailyRange(deps.store, userId, 'body_mass', first, last, true),
    readDailyRange(deps.store, userId, 'resting_hr', first, last, true),
    markersOn(deps.store, userId, rootSport(sport) ?? sport, last),
  ]);
  const valueOn = (entries: readonly { value: number | null }[], date: string) => entries[daysBetween(first, date)]?.value ?? null;
  return dates.map((date, q) => ({
    fit: fits[q]!,
    bodyMass: valueOn(bodyMass, date),
    restingHr: valueOn(restingHr, date),
    markers: date === last ? markers : markers.filter((row) => row.date <= date),
  }));
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
