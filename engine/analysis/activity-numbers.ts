/**
 * An activity's threshold-independent load numbers (ANALYTICS.md §10), cached with its other analyses
 * (activity-analysis.ts; analysis-codec.ts `ActivityNumbers`): recorded and moving time, work, the 30 s
 * fourth-power sums of power and speed, and the time at each exact heart rate. What depends on the athlete's
 * thresholds (intensity factor, load, TRIMP, time in zones) is combined from these at read time
 * (engine/service/training-load.ts), so a marker change recomputes nothing here.
 *
 * Pauses are exactly the canonical series' (§1.2; kernels/canonical.ts): time no sample holds, i.e. a gap
 * between samples longer than the hold cap (5 s) beyond the cap. Moving time = Σ coverage; recorded time =
 * the grid's bins (sections together: pauses up to the 60 min section gap are in it, longer gaps are not).
 */
import type { RecordedSeries } from '../ingest/series.js';
import { heldIntegrals, type CanonicalOptions } from '../kernels/canonical.js';
import { heartRateTime, rollingFourthPower, WEIGHTED_WINDOW_S } from '../kernels/activity-numbers.js';
import type { ActivityNumbers, HeartRateTime } from './analysis-codec.js';
import { CURVE_METRICS, metricValues, type CanonicalSeries } from './canonical-series.js';

export function activityNumbers(series: CanonicalSeries, recorded: RecordedSeries, options: CanonicalOptions): ActivityNumbers {
  const { grid } = series;
  let movingMs = 0;
  for (let k = 0; k < grid.length; k++) movingMs += grid.coverage[k]!;
  let workJ: number | null = null;
  if (series.power !== null) {
    workJ = 0;
    for (let k = 0; k < grid.length; k++) workJ += series.power[k]!;
  }
  const fourth: ActivityNumbers['fourth'] = {};
  const sums = new Float64Array(2);
  for (const metric of CURVE_METRICS) {
    const values = metricValues(series, metric);
    if (values === null) continue;
    rollingFourthPower(values, grid.sectionStarts, WEIGHTED_WINDOW_S, sums);
    if (sums[1]! > 0) fourth[metric] = { sum: sums[0]!, count: sums[1]! };
  }
  return { recordedS: grid.length, movingS: movingMs / 1000, workJ, fourth, heartRate: heartRateOf(series, recorded, options) };
}

function heartRateOf(series: CanonicalSeries, recorded: RecordedSeries, options: CanonicalOptions): HeartRateTime | null {
  const column = recorded.metrics.find((metric) => metric.name === 'heart_rate')?.values;
  if (column === undefined) return null;
  const sums = new Float64Array(series.grid.length);
  const weights = new Float64Array(series.grid.length);
  heldIntegrals(recorded.timestamps, column, series.grid, options, false, sums, weights);
  const time = heartRateTime(sums, weights);
  return time.ms.some((ms) => ms > 0) ? time : null;
}
