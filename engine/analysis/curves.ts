/**
 * Mean-max curves as the API serves them (ANALYTICS.md §2–3), built on engine/kernels/mean-max.ts:
 * one activity's curve at given durations, its curves after fatigue states, a cached curve read at any
 * duration (exact on its grid points, linear between them) or read exactly where it can be (one activity's
 * curve without its series), and the best of many activities' curves.
 * Durations no window fits are left out ("Durations the activity did not last are omitted").
 */
import { foldCurveInto } from '../kernels/curve-fold.js';
import { fullGrid } from '../kernels/duration-grid.js';
import { meanMax, meanMaxAfter, prefixSums, stateStart } from '../kernels/mean-max.js';
import { indexAtOrAfter } from '../kernels/summary.js';
import { binInstant, type CanonicalSeries } from './canonical-series.js';

/** A mean-max curve: ascending durations (s), the best means (W or m/s) and where they began (UTC epoch ms). */
export interface MetricCurve {
  durations: Int32Array;
  values: Float64Array;
  starts: Float64Array;
}

/** Prefix sums of one metric's canonical values, for the kernels. */
export function prefixOf(values: Float64Array): Float64Array {
  const prefix = new Float64Array(values.length + 1);
  prefixSums(values, prefix);
  return prefix;
}

/** The curve at `durations` (ascending, distinct), without the durations no section lasts. */
export function meanMaxCurve(series: CanonicalSeries, prefix: Float64Array, durations: Int32Array): MetricCurve {
  const values = new Float64Array(durations.length);
  const starts = new Int32Array(durations.length);
  meanMax(prefix, series.grid.sectionStarts, durations, values, starts);
  return keepFound(series, durations, values, starts, 0);
}

/**
 * The curves after each fatigue state (§3): `thresholds` in J (power) or m (speed). A state the activity
 * never reaches gives null ("an activity that never reaches W does not contribute").
 */
export function afterCurves(series: CanonicalSeries, prefix: Float64Array, durations: Int32Array, thresholds: readonly number[]): (MetricCurve | null)[] {
  const stateStarts = Int32Array.from(thresholds, (threshold) => stateStart(prefix, threshold));
  const values = new Float64Array(thresholds.length * durations.length);
  const starts = new Int32Array(values.length);
  meanMaxAfter(prefix, series.grid.sectionStarts, durations, stateStarts, values, starts);
  return thresholds.map((_, state) => (stateStarts[state]! < 0 ? null : keepFound(series, durations, values, starts, state * durations.length)));
}

function keepFound(series: CanonicalSeries, durations: Int32Array, values: Float64Array, starts: Int32Array, offset: number): MetricCurve {
  let found = 0;
  for (let j = 0; j < durations.length; j++) if (starts[offset + j]! >= 0) found++;
  const curve: MetricCurve = { durations: new Int32Array(found), values: new Float64Array(found), starts: new Float64Array(found) };
  let k = 0;
  for (let j = 0; j < durations.length; j++) {
    const start = starts[offset + j]!;
    if (start < 0) continue;
    curve.durations[k] = durations[j]!;
    curve.values[k] = values[offset + j]!;
    curve.starts[k] = binInstant(series.grid, start);
    k++;
  }
  return curve;
}

/** A curve's value at `duration`: exact on a grid point, linear between the two around it, null beyond its last. */
export function curveAt(curve: MetricCurve, duration: number): { value: number; start: number } | null {
  const { durations, values, starts } = curve;
  const low = indexAtOrAfter(durations, duration);
  if (low === durations.length) return null;
  if (durations[low] === duration) return { value: values[low]!, start: starts[low]! };
  if (low === 0) return null;
  // "Values between stored points are interpolated"; the start is the nearer point's (the lower on a tie).
  const d0 = durations[low - 1]!;
  const d1 = durations[low]!;
  const weight = (duration - d0) / (d1 - d0);
  return { value: values[low - 1]! + weight * (values[low]! - values[low - 1]!), start: weight <= 0.5 ? starts[low - 1]! : starts[low]! };
}

/**
 * The cached curve at `durations` (ascending, distinct; null = the full grid up to its longest section) as
 * meanMaxCurve would compute it from the series, or null when that needs the series. A cache holds the
 * full grid up to the longest section plus that length (activity-analysis.ts cacheGrid), each point exact (the
 * kernel's (max, earliest start) does not depend on the other durations asked), and its last duration is the
 * longest section: a duration beyond it is one the activity did not last (left out), one on a cached point
 * is that point, and any other needs computing. An empty curve means no section lasts a second.
 */
export function exactFromCache(cached: MetricCurve, durations: Int32Array | null): MetricCurve | null {
  const longest = cached.durations.length === 0 ? 0 : cached.durations[cached.durations.length - 1]!;
  const wanted = durations ?? fullGrid(longest);
  const picked: number[] = [];
  for (let j = 0; j < wanted.length; j++) {
    const d = wanted[j]!;
    if (d > longest) break;
    const at = indexAtOrAfter(cached.durations, d);
    if (cached.durations[at] !== d) return null;
    picked.push(at);
  }
  const curve: MetricCurve = { durations: new Int32Array(picked.length), values: new Float64Array(picked.length), starts: new Float64Array(picked.length) };
  picked.forEach((at, k) => {
    curve.durations[k] = cached.durations[at]!;
    curve.values[k] = cached.values[at]!;
    curve.starts[k] = cached.starts[at]!;
  });
  return curve;
}

/** The best of many activities' curves at each duration (§3 "an element-wise max"). */
export interface BestCurve {
  durations: Int32Array;
  values: Float64Array;
  starts: Float64Array;
  /** Index of the activity that holds each best, −1 where none reached the duration. */
  holders: Int32Array;
}

export function emptyBest(durations: Int32Array): BestCurve {
  return { durations, values: new Float64Array(durations.length).fill(Number.NaN), starts: new Float64Array(durations.length), holders: new Int32Array(durations.length).fill(-1) };
}

/**
 * Folds one activity's curve into `best` at best.durations (ascending; read as curveAt reads, by the merge kernel
 * engine/kernels/curve-fold.ts). Activities must be folded
 * oldest first: a later one replaces the holder only when strictly better, so ties go to the earliest effort.
 */
export function foldCurve(best: BestCurve, curve: MetricCurve, holder: number): void {
  foldCurveInto(curve.durations, curve.values, curve.starts, best.durations, best.values, best.starts, best.holders, holder);
}
