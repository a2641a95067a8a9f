/**
 * An activity's recorded series → its canonical 1 s power and speed (ANALYTICS.md §1), the input of
 * every curve, histogram and segmentation. Cold code around the kernels in engine/kernels/canonical.ts.
 */
import { isFootSport, rootSport } from '../../domain/sport.js';
import type { RecordedSeries, SeriesMetric } from '../ingest/series.js';
import {
  CANONICAL_DEFAULTS, canonicalGrid, canonicalPower, canonicalSpeed, SPEED_CAPS_MPS, type CanonicalGrid, type CanonicalOptions,
} from '../kernels/canonical.js';

/** The metrics curves are computed for: W, or m/s. */
export type CurveMetric = 'power' | 'speed';

export const CURVE_METRICS: readonly CurveMetric[] = ['power', 'speed'];

export interface CanonicalSeries {
  grid: CanonicalGrid;
  /** W per second; null when the activity has no power value. */
  power: Float64Array | null;
  /** m/s per second, from the speed channel, else despiked distance; null when the activity has neither. */
  speed: Float64Array | null;
}

/** The canonical options of an activity of `sport`: §1.3 "the sport's physical cap" for speed. */
export function canonicalOptions(sport: string): CanonicalOptions {
  const cap = isFootSport(sport) ? SPEED_CAPS_MPS.foot : rootSport(sport) === 'cycling' ? SPEED_CAPS_MPS.cycling : SPEED_CAPS_MPS.other;
  return { ...CANONICAL_DEFAULTS, maxSpeedMps: cap };
}

/**
 * The grid and the canonical values of `metrics` (both by default; one that is not asked for is null).
 * `options`: canonicalOptions(the activity's sport); the defaults hold speed to the cap of other sports.
 */
export function canonicalSeries(
  recorded: RecordedSeries, metrics: readonly CurveMetric[] = CURVE_METRICS, options: CanonicalOptions = CANONICAL_DEFAULTS,
): CanonicalSeries {
  const grid = canonicalGrid(recorded.timestamps, options);
  const power = metrics.includes('power') ? column(recorded, 'power') : null;
  const speed = metrics.includes('speed') ? column(recorded, 'speed') : null;
  const distance = metrics.includes('speed') ? column(recorded, 'distance') : null;
  let canonicalPowerValues: Float64Array | null = null;
  if (power !== null && valueCount(power, 1) >= 1) {
    canonicalPowerValues = new Float64Array(grid.length);
    canonicalPower(recorded.timestamps, power, grid, options, canonicalPowerValues);
  }
  let canonicalSpeedValues: Float64Array | null = null;
  const usableDistance = distance !== null && valueCount(distance, 2) >= 2 ? distance : null;
  const usableSpeed = speed !== null && valueCount(speed, 1) >= 1 ? speed : null;
  if (usableDistance !== null || usableSpeed !== null) {
    canonicalSpeedValues = new Float64Array(grid.length);
    canonicalSpeed(recorded.timestamps, usableSpeed, usableDistance, grid, options, canonicalSpeedValues);
  }
  return { grid, power: canonicalPowerValues, speed: canonicalSpeedValues };
}

/** The canonical values of a metric, or null when the activity does not have it. */
export function metricValues(series: CanonicalSeries, metric: CurveMetric): Float64Array | null {
  return metric === 'power' ? series.power : series.speed;
}

/** UTC epoch ms at which a bin of the grid begins. */
export function binInstant(grid: CanonicalGrid, bin: number): number {
  let section = 0;
  while (section + 1 < grid.sectionAnchors.length && grid.sectionStarts[section + 1]! <= bin) section++;
  return grid.sectionAnchors[section]! + (bin - grid.sectionStarts[section]!) * 1000;
}

/** Bins of the longest section: no window is longer. */
export function longestSection(grid: CanonicalGrid): number {
  let longest = 0;
  for (let s = 0; s + 1 < grid.sectionStarts.length; s++) longest = Math.max(longest, grid.sectionStarts[s + 1]! - grid.sectionStarts[s]!);
  return longest;
}

/** Interface §4: "defaults to power for cycling, speed otherwise". */
export function defaultAwdMetric(sport: string): CurveMetric {
  return rootSport(sport) === 'cycling' ? 'power' : 'speed';
}

function column(recorded: RecordedSeries, name: SeriesMetric): Float64Array | null {
  return recorded.metrics.find((metric) => metric.name === name)?.values ?? null;
}

/** Values present (not NaN), counting no further than `enough`. */
function valueCount(values: Float64Array, enough: number): number {
  let count = 0;
  for (let i = 0; i < values.length && count < enough; i++) if (values[i] === values[i]) count++;
  return count;
}
