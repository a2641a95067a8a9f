/**
 * Mean-max kernels (ANALYTICS.md §2–3): hand-computed cases, then exact parity of the fast kernels with
 * their brute-force reference twins on random series and on a real ride (values and starts, bit for bit).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from '../../support/uvu.js';
import * as assert from 'uvu/assert';
import { DEFAULT_DURATIONS, fullGrid } from '../../../engine/kernels/duration-grid.js';
import * as fast from '../../../engine/kernels/mean-max.js';
import * as reference from '../../../engine/kernels/reference/mean-max.js';
import { decodeFit } from '../../../engine/ingest/fit.js';
import { FIXTURES } from '../../support/paths.js';
import { random } from '../../support/kernels.js';

type Kernels = typeof fast;
interface Curve { values: number[]; starts: number[] }

function prefixOf(values: ArrayLike<number>): Float64Array {
  const prefix = new Float64Array(values.length + 1);
  fast.prefixSums(Float64Array.from(values), prefix);
  return prefix;
}

function curve(kernels: Kernels, prefix: Float64Array, sections: ArrayLike<number>, durations: ArrayLike<number>): Curve {
  const out = new Float64Array(durations.length);
  const starts = new Int32Array(durations.length);
  kernels.meanMax(prefix, Int32Array.from(sections), Int32Array.from(durations), out, starts);
  return { values: [...out], starts: [...starts] };
}

function after(kernels: Kernels, prefix: Float64Array, sections: ArrayLike<number>, durations: ArrayLike<number>, states: ArrayLike<number>): Curve {
  const out = new Float64Array(durations.length * states.length);
  const starts = new Int32Array(durations.length * states.length);
  kernels.meanMaxAfter(prefix, Int32Array.from(sections), Int32Array.from(durations), Int32Array.from(states), out, starts);
  return { values: [...out], starts: [...starts] };
}

/** Both kernels on the same input; asserts they agree exactly and returns the result. */
function both(values: number[], sections: number[], durations: number[]): Curve {
  const prefix = prefixOf(values);
  const result = curve(fast, prefix, sections, durations);
  assert.equal(result, curve(reference, prefix, sections, durations));
  return result;
}


/** A random series of one of several shapes: integers, fractions, zero runs, plateaus with exact ties, sprints. */
function randomSeries(next: () => number, n: number, shape: number): Float64Array {
  const x = new Float64Array(n);
  let level = 100 + next() * 200;
  for (let i = 0; i < n; i++) {
    switch (shape) {
      case 0: x[i] = Math.floor(next() * 1000); break; // integer watts
      case 1: x[i] = next() * 12.5; break; // fractional (m/s)
      case 2: x[i] = next() < 0.4 ? 0 : Math.floor(next() * 400); break; // many zeros
      case 3: x[i] = 100 * (Math.floor(i / (1 + Math.floor(n / 7))) % 3); break; // plateaus: exact ties everywhere
      case 4: x[i] = Math.floor(next() * 3); break; // tiny alphabet: ties at every duration
      case 5: { // a ride-like random walk with coasting and sprints
        level += (next() - 0.5) * 20 + 0.01 * (200 - level);
        const r = next();
        x[i] = r < 0.05 ? 0 : r > 0.995 ? 900 + Math.round(next() * 300) : Math.max(0, Math.round(level));
        break;
      }
      case 6: x[i] = 0; break; // all zeros
      default: x[i] = next() < 0.01 ? next() * 1e-3 : Math.round(next() * 8) / 4; // quarters and specks
    }
  }
  return x;
}

/** Sorted section starts: 0, up to four random cuts (empty sections allowed), n. */
function randomSections(next: () => number, n: number): Int32Array {
  const cuts = Array.from({ length: Math.floor(next() * 5) }, () => Math.floor(next() * (n + 1))).sort((a, b) => a - b);
  return Int32Array.from([0, ...cuts, n]);
}

function same(a: Curve, b: Curve, what: string): void {
  for (let k = 0; k < a.values.length; k++) {
    if (!Object.is(a.values[k], b.values[k]) || a.starts[k] !== b.starts[k]) {
      assert.unreachable(`${what}: entry ${k} differs: ${a.values[k]} at ${a.starts[k]} vs ${b.values[k]} at ${b.starts[k]}`);
    }
  }
  assert.equal(a, b, what);
}

test('computes prefix sums with prefix[0] = 0', () => {
  assert.equal([...prefixOf([10, 0, 10])], [0, 10, 10, 20]);
  assert.equal([...prefixOf([])], [0]);
});

test('returns the curve as computed, rising where the data make it rise ([10, 0, 10])', () => {
  assert.equal(both([10, 0, 10], [0, 3], [1, 2, 3]), { values: [10, 5, 20 / 3], starts: [0, 0, 0] });
});

test('picks the earliest start among equal means (strict >)', () => {
  assert.equal(both([5, 5, 5, 5], [0, 4], [1, 2, 3, 4]), { values: [5, 5, 5, 5], starts: [0, 0, 0, 0] });
  assert.equal(both([1, 3, 0, 3, 1], [0, 5], [1, 2, 3]), { values: [3, 2, 2], starts: [1, 0, 1] });
  assert.equal(both([0, 0, 0], [0, 3], [1, 3]), { values: [0, 0], starts: [0, 0] });
  // Ties across sections: the earlier section's window wins.
  assert.equal(both([0, 4, 0, 0, 4, 0], [0, 3, 6], [1, 2]), { values: [4, 2], starts: [1, 0] });
  // With a long duration, a tie far apart (the block bounds must not hide the earlier one).
  const values = [...Array(200).fill(1), 7, 7, ...Array(300).fill(1), 7, 7, ...Array(100).fill(1)];
  const result = both(values, [0, values.length], [2, 50, 150]);
  assert.equal(result.starts, [200, 152, 52]);
});

test('answers NaN with start −1 for durations longer than every section', () => {
  assert.equal(both([1, 2, 3, 4, 5, 6], [0, 3, 6], [3, 4, 6, 7]), { values: [5, NaN, NaN, NaN], starts: [3, -1, -1, -1] });
  assert.equal(both([], [0], [1, 2]), { values: [NaN, NaN], starts: [-1, -1] });
  assert.equal(both([1, 2], [0, 0, 2, 2], [1, 2, 3]), { values: [2, 1.5, NaN], starts: [1, 0, -1] });
});

test('never lets a window span a section boundary', () => {
  // Whole: MM(2) = 9 over bins 2–3; split after bin 2, the best 2-s window is half on the 9s.
  assert.equal(both([0, 0, 9, 9, 0, 0], [0, 6], [2]), { values: [9], starts: [2] });
  assert.equal(both([0, 0, 9, 9, 0, 0], [0, 3, 6], [2, 3]), { values: [4.5, 3], starts: [1, 0] });
});

test('takes durations in any order and repeated, each answered in its own slot', () => {
  const values = [3, 9, 1, 0, 7, 7, 2, 8, 0, 5];
  const result = both(values, [0, values.length], [5, 1, 10, 5, 2, 1, 11]);
  const single = [5, 1, 10, 5, 2, 1, 11].map((d) => both(values, [0, values.length], [d]));
  assert.equal(result.values, single.map((one) => one.values[0]));
  assert.equal(result.starts, single.map((one) => one.starts[0]));
  assert.equal(result.starts, [1, 1, 0, 1, 4, 1, -1]);
});

test('matches the reference exactly on random series (shapes, sections, duration sets)', () => {
  const next = random(20240601);
  for (let trial = 0; trial < 400; trial++) {
    const n = 1 + Math.floor(next() ** 2 * 5000);
    const shape = trial % 8;
    const prefix = prefixOf(randomSeries(next, n, shape));
    const sections = randomSections(next, n);
    const durations = n <= 700
      ? Int32Array.from({ length: n + 2 }, (_, k) => k + 1) // `all`, and one beyond
      : next() < 0.5
        ? Int32Array.from({ length: 60 }, () => 1 + Math.floor(next() ** 2 * (n + 5)))
        : fullGrid(n);
    same(curve(fast, prefix, sections, durations), curve(reference, prefix, sections, durations), `trial ${trial} (n ${n}, shape ${shape}, sections ${[...sections]})`);
  }
});

/** The sweatpy ride as a canonical power series: 1 Hz without gaps, so the samples are the bins (NaN → 0). */
async function realRide(): Promise<Float64Array> {
  const file = await decodeFit(new Uint8Array(readFileSync(path.join(FIXTURES, 'fit', 'sweatpy', '4078723797.fit'))));
  const series = file.activities[0]!.series;
  const t = series.timestamps;
  for (let i = 1; i < t.length; i++) assert.is(t[i]! - t[i - 1]!, 1000, `sample ${i} is 1 s after the previous one`);
  const power = series.metrics.find((metric) => metric.name === 'power')!.values;
  return Float64Array.from(power, (w) => (Number.isNaN(w) ? 0 : Math.max(0, w)));
}

test('matches the reference exactly on a real ride (full grid, defaults, every duration; in halves)', async () => {
  const power = await realRide();
  const n = power.length;
  assert.ok(n > 8000);
  const prefix = prefixOf(power);
  for (const sections of [[0, n], [0, n >> 1, n]]) {
    for (const durations of [fullGrid(n), Int32Array.from(DEFAULT_DURATIONS), Int32Array.from({ length: n }, (_, k) => k + 1)]) {
      same(curve(fast, prefix, sections, durations), curve(reference, prefix, sections, durations), `ride, sections ${sections}, ${durations.length} durations`);
    }
  }
  const top = curve(fast, prefix, [0, n], [1, 60, 1200]);
  assert.ok(top.values[0]! >= top.values[1]! && top.values[1]! >= top.values[2]!);
});

test('finds the first bin at which the accumulated total reaches a state (stateStart)', () => {
  const prefix = prefixOf([10, 0, 20]); // 0, 10, 10, 30
  for (const kernels of [fast, reference]) {
    assert.equal([-5, 0, 5, 10, 10.5, 30, 30.5, NaN].map((w) => kernels.stateStart(prefix, w)), [0, 0, 1, 1, 3, 3, -1, -1]);
    assert.is(kernels.stateStart(prefixOf([]), 0), 0);
    assert.is(kernels.stateStart(prefixOf([]), 1), -1);
  }
  const next = random(7);
  const long = prefixOf(randomSeries(next, 3000, 2));
  for (let k = 0; k < 200; k++) {
    const w = next() * long[3000]! * 1.1;
    assert.is(fast.stateStart(long, w), reference.stateStart(long, w));
  }
});

test('meanMaxAfter at the state 0 equals meanMax', () => {
  const next = random(11);
  const prefix = prefixOf(randomSeries(next, 4000, 5));
  const sections = [0, 1500, 4000];
  const durations = [...fullGrid(4000), 1, 2, 60];
  const all = after(fast, prefix, sections, durations, [0]);
  assert.equal(all, curve(fast, prefix, sections, durations));
});

test('meanMaxAfter answers NaN with start −1 for a state beyond the total, and for windows that no longer fit', () => {
  const prefix = prefixOf([10, 0, 10, 5]); // total 25
  const states = [fast.stateStart(prefix, 26), fast.stateStart(prefix, 12), fast.stateStart(prefix, 0)];
  assert.equal(states, [-1, 3, 0]);
  for (const kernels of [fast, reference]) {
    assert.equal(after(kernels, prefix, [0, 4], [1, 2, 4], states), {
      values: [NaN, NaN, NaN, 5, NaN, NaN, 10, 7.5, 25 / 4],
      starts: [-1, -1, -1, 3, -1, -1, 0, 2, 0],
    });
  }
});

test('meanMaxAfter matches the reference exactly on random series and states', () => {
  const next = random(99);
  for (let trial = 0; trial < 150; trial++) {
    const n = 1 + Math.floor(next() ** 2 * 3000);
    const prefix = prefixOf(randomSeries(next, n, trial % 8));
    const sections = randomSections(next, n);
    const durations = n <= 300
      ? Int32Array.from({ length: n + 1 }, (_, k) => k + 1)
      : Int32Array.from({ length: 25 }, () => 1 + Math.floor(next() ** 2 * n));
    const states = Int32Array.from({ length: 1 + Math.floor(next() * 5) }, () => {
      const r = next();
      return r < 0.15 ? -1 : r < 0.3 ? 0 : r < 0.4 ? n : fast.stateStart(prefix, next() * prefix[n]!);
    });
    same(after(fast, prefix, sections, durations, states), after(reference, prefix, sections, durations, states), `trial ${trial} (n ${n}, states ${[...states]})`);
  }
});

test.run();
