/**
 * Reference twin of ../awd.ts for tests: the definition read literally, "samples sorted by intensity".
 * The recorded seconds (coverage > 0) are collected as (intensity bin, ms) pairs, sorted by bin from the
 * highest, and accumulated; AWD at bin b is the sum over every recorded second at bin ≥ b, computed
 * directly for each b (O(n log n + bins · distinct bins)). Slow and allocating on purpose; whole
 * milliseconds make every sum exact, so the fast kernel must match it exactly.
 */

/**
 * Intensity bin of a value ≥ 0, by decimal text: value · resolution written with 6 decimals (rounded to 1e-6
 * bin, as ../awd.ts's BIN_PARTS), then its integer digits. "1.19 m/s counts at 1.19" (ANALYTICS.md §5).
 */
export function intensityBin(value: number, resolution: number): number {
  return Number((value * resolution).toFixed(6).split('.')[0]);
}

interface RecordedSecond {
  bin: number;
  ms: number;
}

/** The recorded seconds, highest intensity first. */
function sortedByIntensity(values: Float64Array, coverage: Float64Array, resolution: number): RecordedSecond[] {
  const seconds: RecordedSecond[] = [];
  values.forEach((value, k) => {
    if (coverage[k]! > 0) seconds.push({ bin: intensityBin(value, resolution), ms: coverage[k]! });
  });
  return seconds.sort((x, y) => y.bin - x.bin);
}

/** Bins needed for a histogram of these values: the highest bin of a recorded (coverage > 0) second + 1; 0 when none is recorded. */
export function histogramLength(values: Float64Array, coverage: Float64Array, resolution: number): number {
  const sorted = sortedByIntensity(values, coverage, resolution);
  return sorted.length === 0 ? 0 : sorted[0]!.bin + 1;
}

/** histogram[b] = Σ coverage[k] (ms) over bins k with coverage > 0 and intensityBin(values[k]) = b; caller-owned, overwritten. */
export function awdHistogram(values: Float64Array, coverage: Float64Array, resolution: number, histogram: Float64Array): void {
  histogram.fill(0);
  for (const { bin, ms } of sortedByIntensity(values, coverage, resolution)) {
    if (bin >= histogram.length) throw new RangeError(`reference awd: intensity bin ${bin} outside the histogram (${histogram.length} bins)`);
    histogram[bin] = histogram[bin]! + ms;
  }
}

/** out[b] = Σ histogram[b'] for b' ≥ b: the AWD at intensity b / resolution, ms. `out` may be `histogram`. */
export function reverseCumulative(histogram: Float64Array, out: Float64Array): void {
  const input = Array.from(histogram); // `out` may alias `histogram`
  for (let b = 0; b < input.length; b++) {
    out[b] = input.slice(b).reduce((sum, ms) => sum + ms, 0);
  }
}
