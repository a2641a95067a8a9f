/**
 * `segmentation_on=power|speed` (interface §4, ANALYTICS.md §4): an activity's rows become adaptive
 * intensity segments instead of samples. Knots come from the swing segmentation of the cumulative curve
 * of the chosen metric's canonical series (engine/kernels/segmentation.ts); each segment is one row with
 * its start (UTC ms), its `duration` (s) and the time-weighted mean of every requested metric over it:
 * power and speed as canonical means over the whole segment (an unrecorded second is 0, so Σ mean ·
 * duration is the total work or distance), other metrics over the time a sample held a value (null
 * when none did). An activity without the chosen metric is cut only at its gaps and sections. The error
 * bound E is chosen per activity (segmentationError) so that §4's 2 % mean-max promise holds for every athlete.
 */
import type { RecordedSeries } from '../ingest/series.js';
import { CANONICAL_DEFAULTS, heldIntegrals, type CanonicalGrid } from '../kernels/canonical.js';
import { meanMax, prefixSums } from '../kernels/mean-max.js';
import { segmentKnots, segmentMeans } from '../kernels/segmentation.js';
import { prefixOf } from './curves.js';
import { binInstant, canonicalOptions, canonicalSeries, CURVE_METRICS, metricValues, type CurveMetric } from './canonical-series.js';

/**
 * The cap of the codec's error bound E on the cumulative curve: J for power, m for speed. It keeps the rows
 * few for strong riders (17× and 19× fewer than samples on the fixture rides, bench/segmentation.bench.ts);
 * below it E comes from the activity itself (segmentationError).
 */
export const SEGMENTATION_ERROR: Readonly<Record<CurveMetric, number>> = { power: 200, speed: 2 };

/** §4: "mean-max from segments is within 2 % of the raw curve for every duration beyond 20 s". */
export const SEGMENTATION_PROMISE = 0.02;
export const RAW_MEAN_MAX_SECONDS = 20;
/** The fraction of a best work that keeps the promise by itself (see segmentationError). */
export const SEGMENTATION_ERROR_FRACTION = SEGMENTATION_PROMISE / 2;
/** Durations up to this are checked one by one, s; beyond it E is bounded by the best work over it. */
export const CHECKED_SECONDS = 600;
/** Each E tried is this fraction of the one before, down to the floor. */
const ERROR_STEP = 0.8;

/**
 * E for one activity (ANALYTICS.md §4: "derive E from the activity itself … with a cap that keeps the row
 * count low for strong riders"). The bound: segments are the chords of Ŵ with |W − Ŵ| ≤ E at every whole
 * second, so any window's work from segments is off by at most 2E and its mean by 2E/d, and mean-max from
 * segments is off by at most 2E/d too (each window's error is); relative to MM(d) that is 2E / W(d), with
 * W(d) = d · MM(d) the best work over d seconds. No window spans a section split, so W(d) is not monotone
 * across sections (a short hard section can hold the best 10 min while only a long easy one lasts 20 min),
 * but inside one section it never falls as d grows (x ≥ 0). With L the longest section, every d ≤ |L| has
 * W(d) ≥ W_L(d) ≥ W_L(h) for d ≥ h: E ≤ 1 % of W_L(h) keeps mean-max from segments within 2 % at every
 * d ≥ h, and E ≤ 1 % of W_L(20 s) at every d > 20 s. Hence, with h = CHECKED_SECONDS (or |L|): start at
 * min(SEGMENTATION_ERROR, 1 % of W_L(h)), try E × ERROR_STEP … while the segments' mean-max misses 2 % at
 * some whole second 21 … h, and never go below the floor, 1 % of W_L(20 s), which keeps the promise by
 * itself. A fixed 200 J broke it for a rider whose 20 s best is ~280 W (−3.65 % at 21 s,
 * sample-activity-indoor-trainer.fit); segments/2 took W(h) over every section, which missed it beyond h
 * on an activity split by a long stop (2.49 % at 730 s). test/gateway/segmentation-promise.test.ts checks
 * the promise on such an activity and on every corpus ride with power or speed.
 */
export function segmentationError(values: Float64Array, grid: CanonicalGrid, metric: CurveMetric): number {
  const longestBounds = longestSectionBounds(grid);
  const horizon = Math.min(longestBounds[1]! - longestBounds[0]!, CHECKED_SECONDS);
  if (horizon <= RAW_MEAN_MAX_SECONDS) return SEGMENTATION_ERROR[metric]; // no duration beyond 20 s to serve
  const prefix = prefixOf(values);
  // 21 s … horizon.
  const durations = Int32Array.from({ length: horizon - RAW_MEAN_MAX_SECONDS }, (_, j) => RAW_MEAN_MAX_SECONDS + 1 + j);
  const exact = bestMeans(prefix, grid.sectionStarts, durations);
  // W_L(20 s) and W_L(h): best means inside the longest section only.
  const longest = bestMeans(prefix, longestBounds, Int32Array.of(RAW_MEAN_MAX_SECONDS, horizon));
  const start = Math.min(SEGMENTATION_ERROR[metric], SEGMENTATION_ERROR_FRACTION * horizon * longest[1]!);
  const floor = Math.min(start, SEGMENTATION_ERROR_FRACTION * RAW_MEAN_MAX_SECONDS * longest[0]!);
  const knots = new Int32Array(values.length + 1);
  const expanded = new Float64Array(values.length);
  const segmentedPrefix = new Float64Array(values.length + 1);
  for (let e = start; e > floor; e *= ERROR_STEP) {
    const count = segmentKnots(values, grid.coverage, grid.sectionStarts, e, knots);
    for (let j = 0; j + 1 < count; j++) {
      const from = knots[j]!;
      const to = knots[j + 1]!;
      expanded.fill((prefix[to]! - prefix[from]!) / (to - from), from, to);
    }
    prefixSums(expanded, segmentedPrefix);
    const segmented = bestMeans(segmentedPrefix, grid.sectionStarts, durations);
    let kept = true;
    for (let j = 0; j < durations.length && kept; j++) kept = Math.abs(segmented[j]! - exact[j]!) <= SEGMENTATION_PROMISE * exact[j]!;
    if (kept) return e;
  }
  return floor;
}

/** The first longest section as a sectionStarts array of its own, [start, end) ([0, 0] without a section). */
function longestSectionBounds(grid: CanonicalGrid): Int32Array {
  const bounds = Int32Array.of(0, 0);
  for (let s = 0; s + 1 < grid.sectionStarts.length; s++) {
    if (grid.sectionStarts[s + 1]! - grid.sectionStarts[s]! > bounds[1]! - bounds[0]!) bounds.set(grid.sectionStarts.subarray(s, s + 2));
  }
  return bounds;
}

/** Mean-max at `durations` (s) from prefix sums, one section at a time (NaN where no section lasts that long). */
export function bestMeans(prefix: Float64Array, sectionStarts: Int32Array, durations: Int32Array): Float64Array {
  const out = new Float64Array(durations.length);
  meanMax(prefix, sectionStarts, durations, out, new Int32Array(durations.length));
  return out;
}

export interface Segments {
  /** UTC epoch ms at which each segment begins. */
  starts: Float64Array;
  /** Seconds. */
  durations: Float64Array;
  /** Mean of each requested metric per segment (NaN = no value); metrics the series lacks are absent. */
  means: Map<string, Float64Array>;
}

/** `sport`: the activity's, for the speed cap (ANALYTICS.md §1.3). */
export function segmentSeries(recorded: RecordedSeries, on: CurveMetric, metrics: readonly string[], sport: string): Segments {
  // The cut metric, and power or speed where they are columns of the table.
  const series = canonicalSeries(recorded, CURVE_METRICS.filter((metric) => metric === on || metrics.includes(metric)), canonicalOptions(sport));
  const { grid } = series;
  const cut = metricValues(series, on) ?? new Float64Array(grid.length);
  const knots = new Int32Array(grid.length + 1);
  const count = segmentKnots(cut, grid.coverage, grid.sectionStarts, segmentationError(cut, grid, on), knots);
  const rows = Math.max(0, count - 1);
  const segments: Segments = { starts: new Float64Array(rows), durations: new Float64Array(rows), means: new Map() };
  for (let j = 0; j < rows; j++) {
    segments.starts[j] = binInstant(grid, knots[j]!);
    segments.durations[j] = knots[j + 1]! - knots[j]!;
  }
  const sums = new Float64Array(grid.length);
  const weights = new Float64Array(grid.length);
  for (const name of metrics) {
    if (name === 'power' || name === 'speed') {
      const values = metricValues(series, name);
      if (values === null) continue;
      const out = new Float64Array(rows);
      segmentMeans(values, null, knots, count, out);
      segments.means.set(name, out);
      continue;
    }
    const column = recorded.metrics.find((metric) => metric.name === name);
    if (column === undefined) continue;
    heldIntegrals(recorded.timestamps, column.values, grid, CANONICAL_DEFAULTS, false, sums, weights);
    const out = new Float64Array(rows);
    segmentMeans(sums, weights, knots, count, out);
    segments.means.set(name, out);
  }
  return segments;
}
