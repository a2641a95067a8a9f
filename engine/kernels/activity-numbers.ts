/**
 * The threshold-independent parts of an activity's load numbers (ANALYTICS.md §10), from the canonical 1 s
 * series (§1): the fourth-power mean of the 30 s rolling mean (`weighted_intensity` is its fourth root),
 * and a heart-rate histogram (recorded ms per whole bpm) that TRIMP and the heart-rate time in zones are
 * recombined from at read time with the athlete's resting, maximum and threshold heart rates.
 *
 * - rollingFourthPower: windows of `window` bins inside one section (§1.2 "no window spans a split"); a
 *   section shorter than the window adds none. Pause bins are in the series as 0 (§1.2), so they count, as
 *   in every published 30 s fourth-power average. Sums run in bin order with a running window sum.
 * - heartRateHistogram: each bin's time-weighted mean heart rate (heldIntegrals: sums / weights), binned as
 *   the AWD bins intensities (kernels/awd.ts intensityBin, whole bpm, floor), adding the ms a sample with a
 *   heart rate held in that bin. A mean above HEART_RATE_BINS − 1 bpm is no heart rate and is left out.
 * No allocation per sample. Kept honest by test/engine/kernels/activity-numbers.test.ts against plain
 * per-sample sums, and end to end by test/gateway/training-load.test.ts.
 */
import { intensityBin } from './awd.js';

/** Seconds of the rolling mean whose fourth power is averaged (§10 "the 30 s rolling mean"). */
export const WEIGHTED_WINDOW_S = 30;

/** Heart-rate histogram bins: whole bpm 0…255. */
export const HEART_RATE_BINS = 256;

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
 * histogram[b] += ms of bins whose mean heart rate falls in bin b (whole bpm). `sums` / `weights`: the
 * heart rate's heldIntegrals (bpm·s and s per bin). `histogram` (HEART_RATE_BINS long) is overwritten.
 */
export function heartRateHistogram(sums: Float64Array, weights: Float64Array, histogram: Float64Array): void {
  histogram.fill(0);
  for (let k = 0; k < sums.length; k++) {
    const held = weights[k]!;
    if (!(held > 0)) continue;
    const bin = intensityBin(sums[k]! / held, 1);
    if (bin < 0 || bin >= HEART_RATE_BINS) continue;
    histogram[bin] = histogram[bin]! + Math.round(held * 1000);
  }
}
