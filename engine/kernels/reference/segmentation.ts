/**
 * Reference twin of ../segmentation.ts for tests: the definition read literally, O(n²). The forced knots
 * (0, the length, section starts, every switch between recorded and unrecorded bins) are collected first;
 * inside each recorded stretch between them, from a knot a, each candidate end m is accepted when the
 * chord from (a, W(a)) to (m, W(m)) is within maxError of W(j) at every intermediate j, checked point by
 * point. No slope interval, no amortisation.
 *
 * The check |S(j) − S(m)·(j − a)/(m − a)| ≤ E is written as the cross-multiplied pair
 *   S(m)·(j − a) ≥ (S(j) − E)·(m − a)  and  S(m)·(j − a) ≤ (S(j) + E)·(m − a),
 * with S the running sum from the knot, the same floating-point expressions the fast kernel evaluates, so
 * on integer-valued input (exact products) the knots agree exactly.
 */

/** Forced knots, ascending and distinct: 0, every section start, every recorded/unrecorded switch, the length. */
function forcedKnots(coverage: Float64Array, sectionStarts: Int32Array, n: number): number[] {
  const forced = new Set<number>([0, n]);
  for (const start of sectionStarts) if (start >= 0 && start <= n) forced.add(start);
  for (let k = 1; k < n; k++) if ((coverage[k]! > 0) !== (coverage[k - 1]! > 0)) forced.add(k);
  return [...forced].sort((x, y) => x - y);
}

/** Whether the chord from a to m, over running sums S (S[i] = W(a + i) − W(a)), is within e of every intermediate point. */
function chordFits(partial: number[], a: number, m: number, e: number): boolean {
  const sm = partial[m - a]!;
  for (let j = a + 1; j < m; j++) {
    const sj = partial[j - a]!;
    if (sm * (j - a) < (sj - e) * (m - a)) return false;
    if (sm * (j - a) > (sj + e) * (m - a)) return false;
  }
  return true;
}

/**
 * Knots (bin indices, ascending, the first 0 and the last grid length) into `knots` (caller-owned, at
 * least values.length + 1 long); returns how many were written. Segments are [knots[j], knots[j + 1]).
 * Section starts and every boundary between recorded bins (coverage > 0) and unrecorded ones are knots, so
 * no segment spans a gap, and a run of unrecorded bins is one segment of its own. Inside a recorded run,
 * greedily from each knot a: the segment grows to b + 1 while the chord from (a, W(a)) to (b + 1, W(b + 1))
 * stays within maxError of W(j) for every a < j < b + 1; the first b + 1 where it does not ends it at b.
 */
export function segmentKnots(values: Float64Array, coverage: Float64Array, sectionStarts: Int32Array, maxError: number, knots: Int32Array): number {
  const n = values.length;
  const forced = forcedKnots(coverage, sectionStarts, n);
  const result: number[] = [0];
  for (let f = 0; f + 1 < forced.length; f++) {
    const from = forced[f]!;
    const to = forced[f + 1]!;
    if (!(coverage[from]! > 0)) {
      result.push(to); // an unrecorded run: one segment
      continue;
    }
    let a = from;
    while (a < to) {
      const partial = [0]; // partial[i] = values[a] + … + values[a + i − 1], summed in order
      for (let k = a; k < to; k++) partial.push(partial[partial.length - 1]! + values[k]!);
      let b = a + 1;
      while (b < to && chordFits(partial, a, b + 1, maxError)) b++;
      result.push(b);
      a = b;
    }
  }
  result.forEach((knot, j) => { knots[j] = knot; });
  return result.length;
}

/**
 * Per segment j (of `count` knots − 1): out[j] = Σ sums / Σ weights over its bins (a time-weighted mean; NaN
 * when the weights sum to 0), or Σ sums / its length in seconds when `weights` is null (power and speed,
 * where an unrecorded second is 0: Σ mean · duration is then the total).
 */
export function segmentMeans(sums: Float64Array, weights: Float64Array | null, knots: Int32Array, count: number, out: Float64Array): void {
  const total = (column: Float64Array, from: number, to: number) => Array.from(column.subarray(from, to)).reduce((sum, x) => sum + x, 0);
  for (let j = 0; j + 1 < count; j++) {
    const from = knots[j]!;
    const to = knots[j + 1]!;
    if (weights === null) {
      out[j] = total(sums, from, to) / (to - from);
    } else {
      const weight = total(weights, from, to);
      out[j] = weight === 0 ? NaN : total(sums, from, to) / weight;
    }
  }
}
