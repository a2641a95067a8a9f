/**
 * `segmentation_on=power|speed` (interface §4, ANALYTICS.md §4): an activity's rows become adaptive
 * intensity segments instead of samples. Knots come from the swing segmentation of the cumulative curve
 * of the chosen metric's canonical series (engine/kernels/segmentation.ts); each segment is one row with
 * its start (UTC ms), its `duration` (s) and the time-weighted mean of every requested metric over it:
 * power and speed as canonical means over the whole segment (an unrecorded second is 0, so Σ mean ·
 * duration is the total work or distance), other metrics over the time a sample held a value (null
 * when none did). An activity without the chosen metric is cut only at its gaps and sections.
 */
import type { RecordedSeries } from '../ingest/series.js';
import { CANONICAL_DEFAULTS, heldIntegrals } from '../kernels/canonical.js';
import { segmentKnots, segmentMeans } from '../kernels/segmentation.js';
import { binInstant, canonicalOptions, canonicalSeries, CURVE_METRICS, metricValues, type CurveMetric } from './canonical-series.js';

/**
 * The codec's error bound E on the cumulative curve: J for power, m for speed (ANALYTICS.md §4 "E ≈ 250 J
 * (power) or ≈ 3 m (speed)"). A window mean from segments is off by at most 2E/d. 200 J and 2 m, not 250 J
 * and 3 m: on the fixture rides those miss the 2 % mean-max contract just beyond 20 s (2.15 % and 2.20 %),
 * these meet it at 17× and 19× fewer rows (bench/segmentation.bench.ts).
 */
export const SEGMENTATION_ERROR: Readonly<Record<CurveMetric, number>> = { power: 200, speed: 2 };

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
  const count = segmentKnots(cut, grid.coverage, grid.sectionStarts, SEGMENTATION_ERROR[on], knots);
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
