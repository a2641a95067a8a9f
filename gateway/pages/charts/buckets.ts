/**
 * Min/max/mean per pixel bucket: a long series (a 5-hour ride is 18,000 samples) drawn at chart width
 * without dropping a peak: every sample lands in exactly one bucket of the time axis, and each bucket keeps
 * its lowest, highest and mean value, so the band between min and max shows every extreme the mean line
 * smooths away (the "min/max per pixel" decimation of time-series plotting; cf. M4, Jugel et al., VLDB 2014).
 * An empty bucket (a pause, or a metric missing there) is NaN and breaks the line, unless `bridgeGaps` fills
 * it: a device that records every few seconds ("smart recording") leaves buckets narrower than its interval
 * empty, which is no pause, so a gap no longer than a few seconds is drawn straight across.
 *
 * Typed arrays in, typed arrays out, one pass; kept honest by test/gateway/chart-buckets.test.ts.
 */

export interface Buckets {
  /** Bucket count; bucket i covers [x0 + i·w, x0 + (i+1)·w), the last one closed. */
  count: number;
  min: Float64Array;
  max: Float64Array;
  mean: Float64Array;
}

/** Buckets `values` (NaN = no value) over `x` (ascending) into `count` equal slices of [x0, x1]. */
export function bucketize(x: Float64Array, values: Float64Array, x0: number, x1: number, count: number): Buckets {
  const min = new Float64Array(count).fill(Number.NaN);
  const max = new Float64Array(count).fill(Number.NaN);
  const mean = new Float64Array(count).fill(Number.NaN);
  const sums = new Float64Array(count);
  const counts = new Uint32Array(count);
  const span = x1 - x0;
  if (span <= 0 || count <= 0) return { count, min, max, mean };
  for (let i = 0; i < x.length; i++) {
    const v = values[i]!;
    if (Number.isNaN(v)) continue;
    let b = Math.floor(((x[i]! - x0) / span) * count);
    if (b < 0 || b > count) continue;
    if (b === count) b = count - 1;
    if (counts[b] === 0) {
      min[b] = v;
      max[b] = v;
    } else {
      if (v < min[b]!) min[b] = v;
      if (v > max[b]!) max[b] = v;
    }
    sums[b]! += v;
    counts[b]!++;
  }
  for (let b = 0; b < count; b++) if (counts[b]! > 0) mean[b] = sums[b]! / counts[b]!;
  return { count, min, max, mean };
}

/**
 * Fills, in place, each run of empty buckets between two filled ones when the time from the end of the
 * bucket before to the start of the bucket after is at most `maxGapSeconds` (`secondsPerBucket` is the
 * bucket width): min, max and mean go in a straight line between the neighbours. Longer gaps, and empty
 * buckets at either end, stay empty. Answers how many buckets it filled.
 */
export function bridgeGaps(buckets: Buckets, secondsPerBucket: number, maxGapSeconds: number): number {
  const { count, min, max, mean } = buckets;
  let filled = 0;
  let last = -1;
  for (let b = 0; b < count; b++) {
    if (Number.isNaN(mean[b]!)) continue;
    const empty = b - last - 1;
    if (last >= 0 && empty > 0 && empty * secondsPerBucket <= maxGapSeconds) {
      for (let k = 1; k <= empty; k++) {
        const t = k / (empty + 1);
        min[last + k] = min[last]! + (min[b]! - min[last]!) * t;
        max[last + k] = max[last]! + (max[b]! - max[last]!) * t;
        mean[last + k] = mean[last]! + (mean[b]! - mean[last]!) * t;
      }
      filled += empty;
    }
    last = b;
  }
  return filled;
}
