/**
 * The threshold-independent parts of an activity's load numbers (ANALYTICS.md §10), from the canonical 1 s
 * series (§1): the fourth-power mean of the 30 s rolling mean (`weighted_intensity` is its fourth root),
 * and the heart-rate time (recorded ms per exact canonical heart rate) that TRIMP and the heart-rate time in
 * zones are recombined from at read time with the athlete's resting, maximum and threshold heart rates.
 *
 * - rollingFourthPower: windows of `window` bins inside one section (§1.2 "no window spans a split"); a
 *   section shorter than the window adds none. Pause bins are in the series as 0 (§1.2), so they count, as
 *   in every published 30 s fourth-power average. Sums run in bin order with a running window sum.
 * - heartRateTime: each bin's time-weighted mean heart rate (heldIntegrals: sums / weights), kept exact
 *   ("right to the watt": a second that averages 120 and 121 bpm is 120.5 bpm, never floored to 120), with
 *   the ms a sample held in that bin, summed per distinct value. Means of integer samples are few distinct
 *   values (a 1 Hz strap gives whole bpm; sub-second samples halves, thirds …), so the sorted list is small.
 *   A mean below 0 or at MAX_HEART_RATE bpm and above is no heart rate and is left out.
 * No allocation per sample (one sort of the held bins per activity). Kept honest by test/engine/kernels/activity-numbers.test.ts against plain
 * per-sample sums, and end to end by test/gateway/training-load.test.ts.
 */
/** Seconds of the rolling mean whose fourth power is averaged (§10 "the 30 s rolling mean"). */
export const WEIGHTED_WINDOW_S = 30;

/** Heart rates kept: 0 ≤ bpm < 256 (the FIT field's range); a mean beyond is no heart rate. */
export const MAX_HEART_RATE = 256;

/**
 * Σ over every `window`-bin window inside a section of (window mean)⁴ into out[0], the window count into
 * out[1]. `values`: canonical W or m/s per bin; `sectionStarts`: the grid's (sections + 1 entries).
 */
export function rollingFourthPower(values: Float64Array, sectionStarts: Int32Array, window: number, out: Float64Array): void {
  let sum4 = 0;
  let count = 0;
  for (let s = 0; s + 1 < sectionStarts.length; s++) {
    const first = sectionStarts[s]!;
    const end = sectionStarts[s + 1]!;
    if (end - first < window) continue;
    let running = 0;
    for (let k = first; k < first + window; k++) running += values[k]!;
    for (let k = first + window - 1; ; k++) {
      const mean = running / window;
      const squared = mean * mean;
      sum4 += squared * squared;
      count++;
      if (k + 1 >= end) break;
      running += values[k + 1]! - values[k + 1 - window]!;
    }
  }
  out[0] = sum4;
  out[1] = count;
}

/**
 * The recorded ms at each distinct mean heart rate: `bpm` ascending and distinct (exact canonical values),
 * `ms` the time held at each. `sums` / `weights`: the heart rate's heldIntegrals (bpm·s and s per bin).
 */
export function heartRateTime(sums: Float64Array, weights: Float64Array): { bpm: Float64Array; ms: Float64Array } {
  const values = new Float64Array(sums.length);
  const held = new Float64Array(sums.length);
  let n = 0;
  for (let k = 0; k < sums.length; k++) {
    const weight = weights[k]!;
    if (!(weight > 0)) continue;
    const value = sums[k]! / weight;
    if (!(value >= 0 && value < MAX_HEART_RATE)) continue;
    values[n] = value;
    held[n] = Math.round(weight * 1000);
    n++;
  }
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  order.sort((a, b) => values[a]! - values[b]!);
  let distinct = 0;
  for (let i = 0; i < n; i++) if (i === 0 || values[order[i]!] !== values[order[i - 1]!]) distinct++;
  const bpm = new Float64Array(distinct);
  const ms = new Float64Array(distinct);
  let d = -1;
  for (let i = 0; i < n; i++) {
    const k = order[i]!;
    if (d < 0 || values[k] !== bpm[d]) bpm[++d] = values[k]!;
    ms[d] = ms[d]! + held[k]!;
  }
  return { bpm, ms };
}
