/**
 * The per-activity analysis cache (DESIGN.md §2 "derived caches per activity"): for power and for speed
 * where the activity has them, the mean-max curve on the full grid up to the longest section plus that
 * length itself (values and best-window starts), and the AWD histogram (recorded ms per intensity bin);
 * and once per activity the load numbers (activity-numbers.ts).
 * Computed at ingest in the worker, stored as a blob beside the series (engine/analysis/analysis-codec.ts,
 * lossless), versioned by ANALYSIS_VERSION so a change of any algorithm below or of the stored layout
 * recomputes it (engine/service/analysis-cache.ts).
 */
import { fullGrid } from '../kernels/duration-grid.js';
import { awdHistogram, histogramLength } from '../kernels/awd.js';
import type { RecordedSeries } from '../ingest/series.js';
import {
  canonicalOptions, canonicalSeries, CURVE_METRICS, longestSection, metricValues, type CanonicalSeries, type CurveMetric,
} from './canonical-series.js';
import type { ActivityAnalysis, ActivityNumbers } from './analysis-codec.js';
import { activityNumbers } from './activity-numbers.js';
import { meanMaxCurve, prefixOf } from './curves.js';

/**
 * Bump when the canonical series, the mean-max or the AWD kernels, the grid or the stored layout change:
 * every cache is recomputed (at engine start and whenever a stale one is read). 1: the THA1 layout (36 KB
 * for a two-hour ride); 2: THA2, the same numbers in about 5 KB; 3: AWD bins in integers, a speed on a 0.01 m/s
 * edge counts at that edge (kernels/awd.ts intensityBin), and speed from the device's speed channel when the
 * series has one, else distance with GPS spikes removed, capped per sport, rounded to 1e-9 m/s (ANALYTICS.md
 * §1.3; it was distance-derived speed with its jumps); 4: the load numbers (ANALYTICS.md §10, part kind 2);
 * 5: the heart-rate time per exact canonical heart rate (a second averaging 120 and 121 bpm is 120.5), not
 * per whole bpm floored, so TRIMP and heart-rate zones are exact.
 */
export const ANALYSIS_VERSION = 5;

/** AWD bins per unit: whole watts, 0.01 m/s (ANALYTICS.md §5). */
export const AWD_RESOLUTION: Readonly<Record<CurveMetric, number>> = { power: 1, speed: 100 };

/** The cache of a recorded series of `sport`: its canonical series analysed, load numbers included. */
export function analyzeRecorded(recorded: RecordedSeries, sport: string): ActivityAnalysis {
  const options = canonicalOptions(sport);
  const series = canonicalSeries(recorded, CURVE_METRICS, options);
  return analyzeActivity(series, activityNumbers(series, recorded, options));
}

export function analyzeActivity(series: CanonicalSeries, numbers?: ActivityNumbers): ActivityAnalysis {
  const analysis: ActivityAnalysis = { version: ANALYSIS_VERSION, curves: {}, awd: {}, ...(numbers && { numbers }) };
  const longest = longestSection(series.grid);
  for (const metric of CURVE_METRICS) {
    const values = metricValues(series, metric);
    if (values === null) continue;
    analysis.curves[metric] = meanMaxCurve(series, prefixOf(values), cacheGrid(longest));
    analysis.awd[metric] = histogramOf(values, series.grid.coverage, AWD_RESOLUTION[metric]);
  }
  return analysis;
}

/** The full grid up to the longest section, plus that length, so any duration it lasted has points around it. */
export function cacheGrid(longest: number): Int32Array {
  const grid = fullGrid(longest);
  if (longest === 0 || grid[grid.length - 1] === longest) return grid;
  const out = new Int32Array(grid.length + 1);
  out.set(grid);
  out[grid.length] = longest;
  return out;
}

export function histogramOf(values: Float64Array, coverage: Float64Array, resolution: number): Float64Array {
  const histogram = new Float64Array(histogramLength(values, coverage, resolution));
  awdHistogram(values, coverage, resolution, histogram);
  return histogram;
}
