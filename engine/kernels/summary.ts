/**
 * Summary statistics kernels over a recorded series' samples (the blocks of an activity's `summary` and
 * of each lap are assembled from them by engine/ingest/summary.ts).
 *
 * Means are time-weighted like the canonical series (ANALYTICS.md §1): each sample holds until the
 * next one for at most HOLD_CAP_MS, the last sample for one second; missing values (NaN) carry no
 * weight. `sum` is the rise of a cumulative channel over the range (distance). Altitude gain and
 * loss count only moves of at least ALTITUDE_HYSTERESIS_M from the last turning point, so sensor
 * noise does not accumulate into climbing. test/engine/summary.test.ts checks hand-computed values.
 */

export const HOLD_CAP_MS = 5000;
/**
 * How long the last sample holds, ms: "the activity's last sample holds 1 s" (canonical.ts), so an activity
 * ends one second after its last sample and its `duration` is the length of the series the analyses use
 * (ANALYTICS.md §4: "the activity's duration, its AWD at zero and its segments agree to the second").
 */
export const LAST_SAMPLE_HOLD_MS = 1000;

/** The end of an activity whose last sample is at `lastSampleMs` (UTC epoch ms): the end of that sample's hold. */
export function recordingEnd(lastSampleMs: number): number {
  return lastSampleMs + LAST_SAMPLE_HOLD_MS;
}
export const ALTITUDE_HYSTERESIS_M = 1;

export type Statistic = 'mean' | 'min' | 'max' | 'start' | 'end' | 'sum' | 'gain' | 'loss';

/** Sample weights in seconds: time to the next sample capped at HOLD_CAP_MS, 1 s for the last. */
export function sampleWeights(timestamps: Float64Array): Float64Array {
  const n = timestamps.length;
  const weights = new Float64Array(n);
  for (let i = 0; i < n - 1; i++) weights[i] = Math.min(timestamps[i + 1]! - timestamps[i]!, HOLD_CAP_MS) / 1000;
  if (n > 0) weights[n - 1] = LAST_SAMPLE_HOLD_MS / 1000;
  return weights;
}

/**
 * Every statistic of samples [from, to) of one column (values in the metric's unit, weights from
 * sampleWeights); gain and loss only when `withClimb`. Null when no sample there has a value.
 */
export function summarizeColumn(values: Float64Array, weights: Float64Array, from: number, to: number, withClimb: boolean): Record<Statistic, number> | null {
  let weighted = 0;
  let weight = 0;
  let min = Infinity;
  let max = -Infinity;
  let first = NaN;
  let last = NaN;
  let gain = 0;
  let loss = 0;
  let turning = NaN;
  for (let i = from; i < to; i++) {
    const value = values[i]!;
    if (value !== value) continue; // NaN: no value
    if (first !== first) first = value;
    last = value;
    weighted += value * weights[i]!;
    weight += weights[i]!;
    if (value < min) min = value;
    if (value > max) max = value;
    if (withClimb) {
      if (turning !== turning) turning = value;
      else if (value - turning >= ALTITUDE_HYSTERESIS_M) {
        gain += value - turning;
        turning = value;
      } else if (turning - value >= ALTITUDE_HYSTERESIS_M) {
        loss += turning - value;
        turning = value;
      }
    }
  }
  if (first !== first) return null;
  return { mean: weight > 0 ? weighted / weight : first, min, max, start: first, end: last, sum: last - first, gain, loss };
}

/** Index of the first value at or after `ms` (binary search over ascending values: timestamps, durations). */
export function indexAtOrAfter(timestamps: Float64Array | Int32Array, ms: number): number {
  let low = 0;
  let high = timestamps.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (timestamps[mid]! < ms) low = mid + 1;
    else high = mid;
  }
  return low;
}
