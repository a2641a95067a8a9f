/**
 * Reference twin of ../mean-max.ts: brute force over every window, written for obviousness, not speed.
 * Same exported names and signatures; every value is computed with the same expression,
 * (prefix[i + d] − prefix[i]) / d, so the fast kernel must match it exactly (values and starts).
 * test/engine/kernels/mean-max.test.ts holds them together.
 */

/** prefix[0] = 0, prefix[k + 1] = prefix[k] + values[k]; `prefix.length` = values.length + 1. */
export function prefixSums(values: Float64Array, prefix: Float64Array): void {
  prefix[0] = 0;
  for (let k = 0; k < values.length; k++) prefix[k + 1] = prefix[k]! + values[k]!;
}

/** Every window of every section, left to right; strict `>` keeps the earliest maximising start. */
export function meanMax(prefix: Float64Array, sectionStarts: Int32Array, durations: Int32Array, out: Float64Array, starts: Int32Array): void {
  for (let j = 0; j < durations.length; j++) {
    const d = durations[j]!;
    let best = -Infinity;
    let bestStart = -1;
    if (d >= 1) {
      for (let s = 0; s + 1 < sectionStarts.length; s++) {
        for (let i = sectionStarts[s]!; i + d <= sectionStarts[s + 1]!; i++) {
          const v = (prefix[i + d]! - prefix[i]!) / d;
          if (v > best) {
            best = v;
            bestStart = i;
          }
        }
      }
    }
    out[j] = bestStart < 0 ? NaN : best;
    starts[j] = bestStart;
  }
}

/** A linear scan for the least k with prefix[k] ≥ threshold; −1 when there is none. */
export function stateStart(prefix: Float64Array, threshold: number): number {
  for (let k = 0; k < prefix.length; k++) if (prefix[k]! >= threshold) return k;
  return -1;
}

/** For each state separately, every window starting at or after its start, left to right, strict `>`. */
export function meanMaxAfter(
  prefix: Float64Array, sectionStarts: Int32Array, durations: Int32Array, stateStarts: Int32Array, out: Float64Array, starts: Int32Array,
): void {
  const D = durations.length;
  for (let state = 0; state < stateStarts.length; state++) {
    const from = stateStarts[state]!;
    for (let j = 0; j < D; j++) {
      const d = durations[j]!;
      let best = -Infinity;
      let bestStart = -1;
      if (from >= 0 && d >= 1) {
        for (let s = 0; s + 1 < sectionStarts.length; s++) {
          for (let i = Math.max(sectionStarts[s]!, from); i + d <= sectionStarts[s + 1]!; i++) {
            const v = (prefix[i + d]! - prefix[i]!) / d;
            if (v > best) {
              best = v;
              bestStart = i;
            }
          }
        }
      }
      out[state * D + j] = bestStart < 0 ? NaN : best;
      starts[state * D + j] = bestStart;
    }
  }
}
