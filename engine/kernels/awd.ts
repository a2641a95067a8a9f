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

/**
 * Parts of a bin an intensity is rounded to before it is binned: 1e-6 bin (1e-6 W, 1e-8 m/s). Far above floating
 * error (a speed from a distance difference 100 km into a run is off by ~1.2e-11 m/s, 1.2e-9 bin) and far below
 * any real difference from an edge: a recorded value is cm over ms or whole watts, held over whole ms, so one
 * that is not on an edge lies at least 1e-4 bin from it.
 */
export const BIN_PARTS = 1_000_000;

/**
 * Intensity bin of a value ≥ 0, in integers: m = round(value · resolution · BIN_PARTS), bin = ⌊m / BIN_PARTS⌋.
 * "A value exactly on a bin edge belongs to that bin: 1.19 m/s counts at 1.19, whatever floating error the
 * division left" (ANALYTICS.md §5): 1.1899999999883585 (a distance difference) is bin 119, and so is
 * 2.35 · 100 = 234.99999999999997 → 235. Exact below 2^53 / BIN_PARTS ≈ 9e9 bins.
 */
export function intensityBin(value: number, resolution: number): number {
  const parts = Math.round(value * resolution * BIN_PARTS);
  return (parts - (parts % BIN_PARTS)) / BIN_PARTS;
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
