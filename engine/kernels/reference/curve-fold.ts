/**
 * Reference twin of ../curve-fold.ts for tests: the fold as the first engine wrote it — for each grid
 * duration, find the curve's bracketing points by binary search, read the point (exact on it, linear
 * between, none outside), and keep it when strictly better. Slow and allocating on purpose.
 */

interface Point {
  value: number;
  start: number;
}

/** The curve at `duration`: exact on a point, linear between the two around it (start: the nearer, lower on a tie), null outside. */
function pointAt(durations: Int32Array, values: Float64Array, starts: Float64Array, duration: number): Point | null {
  let low = 0;
  let high = durations.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (durations[mid]! < duration) low = mid + 1;
    else high = mid;
  }
  if (low === durations.length) return null;
  if (durations[low] === duration) return { value: values[low]!, start: starts[low]! };
  if (low === 0) return null;
  const d0 = durations[low - 1]!;
  const d1 = durations[low]!;
  const weight = (duration - d0) / (d1 - d0);
  return { value: values[low - 1]! + weight * (values[low]! - values[low - 1]!), start: weight <= 0.5 ? starts[low - 1]! : starts[low]! };
}

export function foldCurveInto(
  durations: Int32Array, values: Float64Array, starts: Float64Array, grid: Int32Array,
  bestValues: Float64Array, bestStarts: Float64Array, bestHolders: Int32Array, holder: number,
): void {
  for (let j = 0; j < grid.length; j++) {
    const point = pointAt(durations, values, starts, grid[j]!);
    if (point === null) continue;
    const current = bestValues[j]!;
    if (!Number.isNaN(current) && !(point.value > current)) continue;
    bestValues[j] = point.value;
    bestStarts[j] = point.start;
    bestHolders[j] = holder;
  }
}
