/**
 * The longitudinal fold kernel (engine/kernels/curve-fold.ts) against its reference twin: the same bests,
 * starts and holders, bit for bit, on random curves and query grids (points before, between, on and beyond
 * a curve's, ties) and on the fixture rides' cached curves at the default, full and odd grids.
 */
import { test } from '../../support/uvu.js';
import * as assert from 'uvu/assert';
import { foldCurveInto } from '../../../engine/kernels/curve-fold.js';
import * as reference from '../../../engine/kernels/reference/curve-fold.js';
import { DEFAULT_DURATIONS, fullGrid } from '../../../engine/kernels/duration-grid.js';
import { analyzeActivity } from '../../../engine/analysis/activity-analysis.js';
import { canonicalSeries } from '../../../engine/analysis/canonical-series.js';
import { GOLDEN_RIDES, decodeRide } from '../../support/analytics-golden.js';
import { random as seeded } from '../../support/kernels.js';

interface Curve { durations: Int32Array; values: Float64Array; starts: Float64Array }

/** Up to `count` distinct durations in [from, from + spread), ascending. */
function ascending(random: () => number, count: number, from: number, spread: number): Int32Array {
  const out = new Set<number>();
  for (let k = 0; k < count; k++) out.add(from + Math.floor(random() * spread));
  return Int32Array.from(out).sort();
}

function randomCurve(random: () => number): Curve {
  const durations = ascending(random, 1 + Math.floor(random() * 40), 1 + Math.floor(random() * 20), 1 + Math.floor(random() * 3000));
  const values = Float64Array.from(durations, () => (random() < 0.2 ? 300 : random() * 500));
  const starts = Float64Array.from(durations, () => 1.7e12 + Math.floor(random() * 1e6) * 1000);
  return { durations, values, starts };
}

function foldAll(fold: typeof foldCurveInto, curves: readonly Curve[], grid: Int32Array) {
  const values = new Float64Array(grid.length).fill(Number.NaN);
  const starts = new Float64Array(grid.length);
  const holders = new Int32Array(grid.length).fill(-1);
  curves.forEach((curve, holder) => fold(curve.durations, curve.values, curve.starts, grid, values, starts, holders, holder));
  return { values, starts, holders };
}

function assertSameFold(curves: readonly Curve[], grid: Int32Array, what: string): void {
  const fast = foldAll(foldCurveInto, curves, grid);
  const slow = foldAll(reference.foldCurveInto, curves, grid);
  for (const field of ['values', 'starts', 'holders'] as const) {
    for (let j = 0; j < grid.length; j++) {
      if (!Object.is(fast[field][j], slow[field][j])) assert.unreachable(`${what}: ${field} at ${grid[j]} s: ${fast[field][j]} where the twin has ${slow[field][j]}`);
    }
  }
}

test('the merge fold equals the binary-search twin on random curves and grids, ties to the earliest', () => {
  const random = seeded(11);
  for (let round = 0; round < 200; round++) {
    const curves = Array.from({ length: 1 + Math.floor(random() * 12) }, () => randomCurve(random));
    if (random() < 0.3) curves.push(curves[0]!); // an identical later activity never takes a best
    const grid = ascending(random, 1 + Math.floor(random() * 60), 1, 3500);
    assertSameFold(curves, grid, `round ${round}`);
  }
  assertSameFold([], Int32Array.of(1, 2), 'no curves');
  assertSameFold([{ durations: new Int32Array(0), values: new Float64Array(0), starts: new Float64Array(0) }], Int32Array.of(1), 'an empty curve');
});

test('the merge fold equals the twin on the fixture rides cached curves at the default, full and odd grids', async () => {
  const curves: Curve[] = [];
  for (const file of GOLDEN_RIDES) {
    const analysis = analyzeActivity(canonicalSeries(await decodeRide(file)));
    for (const curve of [analysis.curves.power, analysis.curves.speed]) if (curve) curves.push(curve);
  }
  assert.ok(curves.length >= 4);
  const odd = Int32Array.from([1, 3, 7, 45, 61, 187, 299, 301, 777, 1234, 2001, 3599, 3601, 5000, 7777, 10_001, 40_000]);
  for (const grid of [Int32Array.from(DEFAULT_DURATIONS), fullGrid(40_000), odd]) assertSameFold(curves, grid, `grid of ${grid.length}`);
});

test.run();
