/**
 * The column-wise maximum of many windows of rows of a matrix, for windows that slide forward: the
 * modeled thresholds of a season (engine/service/model-inputs.ts seasonFitInputs) need the 90-day best
 * curve ending on each of up to thousands of local dates, and folding every window's curves anew costs
 * O(dates × window × grid). Here each row enters the running back maximum once and the front's suffix
 * maxima once (the "two stacks" sliding-window aggregate), O(rows × columns + windows × columns) overall.
 *
 * A maximum is a selection, never arithmetic, so every output value is bit for bit one of the rows' values:
 * the same as folding the window's rows in any order. NaN is "absent" (an activity's curve that does not
 * reach a duration); a column absent in every row of a window stays NaN. Reference twin: a plain fold per
 * window (test/engine/kernels/window-max.test.ts).
 */

/**
 * out[q·columns + j] = max over rows r in [lo[q], hi[q]) of matrix[r·columns + j] (NaN = absent). `lo` and
 * `hi` are non-decreasing, lo[q] ≤ hi[q] ≤ rows. `out` (windows × columns) is overwritten.
 */
export function windowMax(matrix: Float64Array, columns: number, lo: Int32Array, hi: Int32Array, out: Float64Array): void {
  const rows = columns === 0 ? 0 : matrix.length / columns;
  // suffix[r·columns + j]: max over rows r … mid − 1 (the front); back[j]: max over rows mid … pushed − 1.
  const suffix = new Float64Array(matrix.length);
  const back = new Float64Array(columns).fill(Number.NaN);
  let mid = 0;
  let pushed = 0;
  for (let q = 0; q < lo.length; q++) {
    const from = lo[q]!;
    const to = Math.min(hi[q]!, rows);
    for (; pushed < to; pushed++) {
      const row = pushed * columns;
      for (let j = 0; j < columns; j++) {
        const value = matrix[row + j]!;
        const held = back[j]!;
        if (value > held || held !== held) back[j] = value;
      }
    }
    if (from >= mid) {
      // The front is empty: rows from … pushed − 1 become the front, the back starts empty.
      mid = pushed;
      for (let r = mid - 1; r >= from; r--) {
        const row = r * columns;
        for (let j = 0; j < columns; j++) {
          const value = matrix[row + j]!;
          if (r + 1 >= mid) {
            suffix[row + j] = value;
            continue;
          }
          const later = suffix[row + columns + j]!;
          suffix[row + j] = value > later || later !== later ? value : later;
        }
      }
      back.fill(Number.NaN);
    }
    const at = q * columns;
    const front = from * columns;
    for (let j = 0; j < columns; j++) {
      const a = from < mid ? suffix[front + j]! : Number.NaN;
      const b = back[j]!;
      out[at + j] = a > b || b !== b ? a : b;
    }
  }
}
