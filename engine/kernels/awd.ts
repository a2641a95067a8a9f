/**
 * Accumulated work duration (ANALYTICS.md §5): AWD(x) = recorded time with intensity ≥ x, from a histogram
 * of recorded milliseconds per intensity bin and a reverse cumulative sum, O(n + bins). Bins are
 * `intensityBin(value, resolution)`: whole watts (resolution 1) or 0.01 m/s (resolution 100). Unrecorded
 * (zero-filled pause) bins do not count. Durations are whole milliseconds, so sums are exact.
 *
 * Algorithm: "samples sorted by intensity" without the sort. The histogram is a counting sort of the
 * recorded seconds by intensity bin (each adds its coverage, ms); the reverse cumulative sum then reads
 * the sorted order from the top: out[b] = ms recorded at bin ≥ b. Callers size the histogram with
 * histogramLength (one pass), allocate once, and may run the sum in place. Values are canonical
 * intensities (finite, ≥ 0). Kept honest by test/engine/kernels/awd.test.ts against reference/awd.ts,
 * which literally sorts the recorded seconds by intensity and accumulates.
 */

/** Intensity bin of a value ≥ 0: floor(value · resolution), robust to 2.35 · 100 = 234.99999999999997. */
export function intensityBin(value: number, resolution: number): number {
  return Math.floor(value * resolution + 1e-9);
}

/** Bins needed for a histogram of these values: the highest bin of a recorded (coverage > 0) second + 1; 0 when none is recorded. */
export function histogramLength(values: Float64Array, coverage: Float64Array, resolution: number): number {
  let length = 0;
  for (let k = 0; k < values.length; k++) {
    if (!(coverage[k]! > 0)) continue; // "Zero-filled pause seconds are not recorded time."
    const bin = intensityBin(values[k]!, resolution);
    if (bin >= length) length = bin + 1;
  }
  return length;
}

/** histogram[b] = Σ coverage[k] (ms) over bins k with coverage > 0 and intensityBin(values[k]) = b; caller-owned, overwritten. */
export function awdHistogram(values: Float64Array, coverage: Float64Array, resolution: number, histogram: Float64Array): void {
  histogram.fill(0);
  const bins = histogram.length;
  for (let k = 0; k < values.length; k++) {
    const ms = coverage[k]!;
    if (!(ms > 0)) continue;
    const bin = intensityBin(values[k]!, resolution);
    if (!(bin >= 0 && bin < bins)) {
      throw new RangeError(`awd: value ${values[k]} at bin ${k} falls in intensity bin ${bin}, outside the histogram (${bins} bins)`);
    }
    histogram[bin] = histogram[bin]! + ms;
  }
}

/** out[b] = Σ histogram[b'] for b' ≥ b: the AWD at intensity b / resolution, ms. `out` may be `histogram`. */
export function reverseCumulative(histogram: Float64Array, out: Float64Array): void {
  let total = 0; // ms recorded at or above the current bin; whole numbers, exact below 2^53
  for (let b = histogram.length - 1; b >= 0; b--) {
    total += histogram[b]!; // read before the write: in place is safe
    out[b] = total;
  }
}
