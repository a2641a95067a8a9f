/**
 * The sliding-window maximum (engine/kernels/window-max.ts) against its twin, a plain fold of each window's
 * rows: bit for bit on random matrices with absent values (NaN), windows that are empty, repeated, jump
 * ahead or cover everything, as the season's model windows do.
 */
import { test } from '../../support/uvu.js';
import * as assert from 'uvu/assert';
import { windowMax } from '../../../engine/kernels/window-max.js';
import { random } from '../../support/kernels.js';

function plainWindowMax(matrix: Float64Array, columns: number, lo: Int32Array, hi: Int32Array): Float64Array {
  const out = new Float64Array(lo.length * columns).fill(Number.NaN);
  for (let q = 0; q < lo.length; q++) {
    for (let r = lo[q]!; r < hi[q]!; r++) {
      for (let j = 0; j < columns; j++) {
        const value = matrix[r * columns + j]!;
        const best = out[q * columns + j]!;
        if (value === value && (best !== best || value > best)) out[q * columns + j] = value;
      }
    }
  }
  return out;
}

test('every window\'s column maxima equal a plain fold of its rows, bit for bit, absent values and empty windows included', () => {
  for (let seed = 1; seed <= 40; seed++) {
    const next = random(seed);
    const rows = Math.floor(next() * 200);
    const columns = 1 + Math.floor(next() * 30);
    const matrix = Float64Array.from({ length: rows * columns }, () => (next() < 0.2 ? Number.NaN : next() * 500));
    const windows = Math.floor(next() * 150);
    const lo = new Int32Array(windows);
    const hi = new Int32Array(windows);
    let from = 0;
    let to = 0;
    for (let q = 0; q < windows; q++) {
      to = Math.min(rows, to + Math.floor(next() * (next() < 0.1 ? 40 : 4)));
      from = Math.min(to, from + Math.floor(next() * (next() < 0.1 ? 40 : 4)));
      lo[q] = from;
      hi[q] = to;
    }
    const out = new Float64Array(windows * columns);
    windowMax(matrix, columns, lo, hi, out);
    const expected = plainWindowMax(matrix, columns, lo, hi);
    for (let k = 0; k < out.length; k++) assert.ok(Object.is(out[k], expected[k]), `seed ${seed}, value ${k}: ${out[k]} vs ${expected[k]}`);
  }
});
test.run();
