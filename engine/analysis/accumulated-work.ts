/**
 * Accumulated work duration tables (ANALYTICS.md §5) from AWD histograms (recorded ms per intensity bin):
 * one activity's AWD, and the longitudinal levels over local days. Highest intensity first; durations
 * in seconds. test/engine/analysis.test.ts checks the percentiles by hand.
 */
import { reverseCumulative } from '../kernels/awd.js';

/**
 * Percentiles of daily AWD over training days for the longitudinal levels: "hard, medium, easy = the
 * 90th, 75th and 50th percentile" (our choice, tunable here). Linear between closest ranks.
 */
export const AWD_LEVELS = { hard: 0.9, medium: 0.75, easy: 0.5 } as const;

export interface AwdRows {
  /** W or m/s, descending. */
  intensity: Float64Array;
  /** Seconds at or above each intensity. */
  duration: Float64Array;
}

export function awdRows(histogram: Float64Array, resolution: number): AwdRows {
  const cumulative = new Float64Array(histogram.length);
  reverseCumulative(histogram, cumulative);
  const n = histogram.length;
  const rows: AwdRows = { intensity: new Float64Array(n), duration: new Float64Array(n) };
  for (let i = 0; i < n; i++) {
    const bin = n - 1 - i;
    rows.intensity[i] = bin / resolution;
    rows.duration[i] = cumulative[bin]! / 1000;
  }
  return rows;
}

export interface LongitudinalAwdRows {
  intensity: Float64Array;
  max: Float64Array;
  hard: Float64Array;
  medium: Float64Array;
  easy: Float64Array;
}

/**
 * Per local day the activities' histograms are summed into that day's AWD; `max` is the highest daily AWD
 * at each intensity, the levels are percentiles over the training days (days with at least one activity
 * that has the metric). No training day gives no rows.
 */
export function longitudinalAwdRows(activities: readonly { date: string; histogram: Float64Array }[], resolution: number): LongitudinalAwdRows {
  const days = new Map<string, Float64Array>();
  let bins = 0;
  for (const { histogram } of activities) bins = Math.max(bins, histogram.length);
  for (const { date, histogram } of activities) {
    let day = days.get(date);
    if (!day) days.set(date, (day = new Float64Array(bins)));
    for (let b = 0; b < histogram.length; b++) day[b]! += histogram[b]!;
  }
  const daily = [...days.values()];
  for (const day of daily) reverseCumulative(day, day);
  const rows: LongitudinalAwdRows = {
    intensity: new Float64Array(bins), max: new Float64Array(bins), hard: new Float64Array(bins), medium: new Float64Array(bins), easy: new Float64Array(bins),
  };
  const sorted = new Float64Array(daily.length);
  for (let i = 0; i < bins; i++) {
    const bin = bins - 1 - i;
    for (let d = 0; d < daily.length; d++) sorted[d] = daily[d]![bin]!;
    sorted.sort();
    rows.intensity[i] = bin / resolution;
    rows.max[i] = sorted[sorted.length - 1]! / 1000;
    rows.hard[i] = percentile(sorted, AWD_LEVELS.hard) / 1000;
    rows.medium[i] = percentile(sorted, AWD_LEVELS.medium) / 1000;
    rows.easy[i] = percentile(sorted, AWD_LEVELS.easy) / 1000;
  }
  return rows;
}

/** The p-quantile of ascending values, linear between closest ranks (numpy's default). */
export function percentile(ascending: Float64Array, p: number): number {
  const position = p * (ascending.length - 1);
  const low = Math.floor(position);
  const high = Math.min(low + 1, ascending.length - 1);
  return ascending[low]! + (position - low) * (ascending[high]! - ascending[low]!);
}
