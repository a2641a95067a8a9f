/**
 * Adaptive intensity segmentation (ANALYTICS.md §4): a lossy codec for a canonical series. W(k) = the sum
 * of values[0..k) within a run (cumulative work in J, or distance in m). A piecewise-linear Ŵ with knots on
 * the data (Ŵ = W at every knot) and |W(k) − Ŵ(k)| ≤ maxError at every whole second k: a swing filter on
 * the cumulative curve, amortised linear time.
 *
 * Algorithm (the "swing filter" of bounded-error piecewise-linear approximation; cf. Elmeleegy et al.,
 * "Online piece-wise linear approximation of numerical streams with precision guarantees", VLDB 2009,
 * here with the line pinned to the data at the segment's start and end). From a knot a, with
 * S(j) = values[a] + … + values[j − 1] = W(j) − W(a), the chord to a candidate end m has slope S(m)/(m − a)
 * and is within E = maxError of every intermediate point j (a < j < m) iff
 *   (S(j) − E)/(j − a) ≤ S(m)/(m − a) ≤ (S(j) + E)/(j − a)   for every such j.
 * So the feasible slopes are one interval [lo, hi] = [max_j (S(j) − E)/(j − a), min_j (S(j) + E)/(j − a)].
 * Per candidate: test the chord slope against [lo, hi], then tighten [lo, hi] with the new point, so each
 * step is O(1); the first failing m ends the segment at m − 1, which becomes the next knot, and m is tried
 * again as the first candidate of the next segment (always accepted: no intermediate points). Every bin
 * is examined at most twice: O(n), scalar locals only, no allocation.
 *
 * Fractions are compared by cross-multiplication (denominators are positive integers), written exactly as
 * reference/segmentation.ts writes them, and S is the running sum from the knot in the same order: for
 * integer-valued input every product is exact and the two agree bit for bit. Section starts and the edges
 * of recorded runs (coverage > 0) are always knots; a run of unrecorded bins (0 W, 0 m/s there) is one
 * segment. maxError ≥ 0 (J or m); values finite and ≥ 0. Kept honest by
 * test/engine/kernels/segmentation.test.ts (parity with the O(n²) reference and the §4 properties).
 */

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
  const e = maxError;
  let count = 0;
  knots[count++] = 0;
  for (let s = 0; s + 1 < sectionStarts.length; s++) {
    const sectionEnd = Math.min(sectionStarts[s + 1]!, n);
    let runStart = Math.max(sectionStarts[s]!, 0);
    while (runStart < sectionEnd) {
      // The run: bins from runStart on with the same recorded state, inside this section.
      const recorded = coverage[runStart]! > 0;
      let runEnd = runStart + 1;
      while (runEnd < sectionEnd && (coverage[runEnd]! > 0) === recorded) runEnd++;
      if (recorded) {
        let a = runStart;
        while (a < runEnd) {
          // Segment [a, b): b = a + 1 is always feasible; point b then bounds the slopes of longer chords.
          let b = a + 1;
          let sb = values[a]!; // S(b)
          let loNum = sb - e; // lo = loNum / loDen
          let loDen = 1;
          let hiNum = sb + e; // hi = hiNum / hiDen
          let hiDen = 1;
          while (b < runEnd) {
            const m = b + 1;
            const sm = sb + values[b]!; // S(m)
            const dm = m - a;
            // Chord slope sm/dm inside [lo, hi]: within E of every intermediate point.
            if (sm * loDen < loNum * dm || sm * hiDen > hiNum * dm) break;
            const l = sm - e;
            if (l * loDen > loNum * dm) { loNum = l; loDen = dm; }
            const h = sm + e;
            if (h * hiDen < hiNum * dm) { hiNum = h; hiDen = dm; }
            b = m;
            sb = sm;
          }
          knots[count++] = b;
          a = b;
        }
      } else {
        knots[count++] = runEnd; // "a run of unrecorded bins is one segment of its own"
      }
      runStart = runEnd;
    }
  }
  return count;
}

/**
 * Per segment j (of `count` knots − 1): out[j] = Σ sums / Σ weights over its bins (a time-weighted mean; NaN
 * when the weights sum to 0), or Σ sums / its length in seconds when `weights` is null (power and speed,
 * where an unrecorded second is 0: Σ mean · duration is then the total).
 */
export function segmentMeans(sums: Float64Array, weights: Float64Array | null, knots: Int32Array, count: number, out: Float64Array): void {
  for (let j = 0; j + 1 < count; j++) {
    const from = knots[j]!;
    const to = knots[j + 1]!;
    let sum = 0;
    for (let k = from; k < to; k++) sum += sums[k]!;
    if (weights === null) {
      out[j] = sum / (to - from);
    } else {
      let weight = 0;
      for (let k = from; k < to; k++) weight += weights[k]!;
      out[j] = weight > 0 ? sum / weight : NaN;
    }
  }
}
