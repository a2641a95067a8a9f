/**
 * The longitudinal fold (ANALYTICS.md §3, "an element-wise max" over the activities' cached curves): one
 * activity's curve, read at each duration of a query grid — exact on its own grid points, "interpolate
 * linearly between bracketing grid points" (§2), nothing beyond its last point or before its first —
 * replaces the running best where it is strictly greater (callers fold oldest first, so ties keep the
 * earliest effort). The start of an interpolated point is the nearer point's, the lower on a tie.
 *
 * One merge pass over the two ascending duration lists, O(curve + grid) per activity, no allocation; the
 * longitudinal cost is therefore linear in the activities. Not here: loading caches, building the table.
 * Reference twin: reference/curve-fold.ts (a binary search per duration, as the first engine did);
 * test/engine/kernels/curve-fold.test.ts holds them equal bit for bit on random and real curves.
 */

/**
 * Folds the curve (`durations` ascending, distinct; `values` W or m/s; `starts` UTC ms) into the bests at
 * `grid` (ascending, distinct, s): `bestValues` (NaN = none yet), `bestStarts`, `bestHolders` (−1 = none).
 */
export function foldCurveInto(
  durations: Int32Array, values: Float64Array, starts: Float64Array, grid: Int32Array,
  bestValues: Float64Array, bestStarts: Float64Array, bestHolders: Int32Array, holder: number,
): void {
  const n = durations.length;
  if (n === 0) return;
  const last = durations[n - 1]!;
  let low = 0; // the first curve point at or after the grid duration
  for (let j = 0; j < grid.length; j++) {
    const d = grid[j]!;
    if (d > last) break; // the grid ascends: no later duration is reached either
    while (durations[low]! < d) low++;
    let value: number;
    let start: number;
    if (durations[low] === d) {
      value = values[low]!;
      start = starts[low]!;
    } else {
      if (low === 0) continue; // before the curve's first point
      const d0 = durations[low - 1]!;
      const weight = (d - d0) / (durations[low]! - d0);
      const v0 = values[low - 1]!;
      value = v0 + weight * (values[low]! - v0);
      start = weight <= 0.5 ? starts[low - 1]! : starts[low]!;
    }
    const current = bestValues[j]!;
    if (current === current && !(value > current)) continue;
    bestValues[j] = value;
    bestStarts[j] = start;
    bestHolders[j] = holder;
  }
}
