/**
 * Kernels for the derived time columns of a series table, over int64 millisecond columns viewed as
 * the little-endian int32 word pairs Arrow stores them in (no BigInt per row):
 *
 * - `timestamp_local` = UTC instant + the activity's UTC offset, as naive wall-clock milliseconds
 *   (DESIGN §5: "instants are stored as UTC milliseconds plus the UTC offset … so local time
 *   round-trips exactly"); exact for every int64 by adding with carry.
 * - `duration` = seconds since the activity's first sample, (t_i − t_0) / 1000.
 *
 * Callers on big-endian hosts use the BigInt fallbacks in series-table.ts.
 */

const TWO_32 = 4_294_967_296;

/** Milliseconds of row `index` (exact while |ms| < 2^53). */
export function millisAt(words: Int32Array, index: number): number {
  return words[2 * index + 1]! * TWO_32 + (words[2 * index]! >>> 0);
}

/** out = words + offsetMs, row by row, as int64 word pairs; |offsetMs| < 2^31 (a UTC offset is at most ±18 h). */
export function shiftMillis(words: Int32Array, offsetMs: number, out: Int32Array): void {
  const n = words.length >> 1;
  for (let i = 0; i < n; i++) {
    const sum = (words[2 * i]! >>> 0) + offsetMs; // in (−2^31, 2^33): exact
    const carry = Math.floor(sum / TWO_32); // −1, 0 or 1
    out[2 * i] = (sum - carry * TWO_32) | 0;
    out[2 * i + 1] = (words[2 * i + 1]! + carry) | 0;
  }
}

/** out[i] = (t_i − firstMs) / 1000: seconds since the first sample. */
export function secondsSince(words: Int32Array, firstMs: number, out: Float64Array): void {
  const n = words.length >> 1;
  for (let i = 0; i < n; i++) {
    out[i] = (words[2 * i + 1]! * TWO_32 + (words[2 * i]! >>> 0) - firstMs) / 1000;
  }
}
