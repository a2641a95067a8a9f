/** The cold code around the kernels (engine/analysis/): the cache codec, grid reads, AWD tables and percentiles. */
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { ANALYSIS_VERSION, cacheGrid } from '../../engine/analysis/activity-analysis.js';
import { decodeAnalysis, encodeAnalysis, type ActivityAnalysis } from '../../engine/analysis/analysis-codec.js';
import { awdRows, longitudinalAwdRows, percentile } from '../../engine/analysis/accumulated-work.js';
import { curveAt, emptyBest, foldCurve, type MetricCurve } from '../../engine/analysis/curves.js';
import { DEFAULT_DURATIONS, fullGrid } from '../../engine/kernels/duration-grid.js';

const curve: MetricCurve = { durations: Int32Array.of(1, 5, 10), values: Float64Array.of(900, 500, 400), starts: Float64Array.of(1000, 2000, 3000) };

test('the full grid steps 1 s to 3 min, 5 s to 10 min, 10 s to 20 min, 30 s to 60 min, then 60 s', () => {
  const grid = Array.from(fullGrid(4000));
  assert.equal(grid.slice(0, 3), [1, 2, 3]);
  assert.equal(grid.slice(178, 183), [179, 180, 185, 190, 195]);
  assert.ok(grid.includes(600) && grid.includes(610) && grid.includes(1200) && grid.includes(1230) && grid.includes(3600) && grid.includes(3660));
  assert.is(grid.at(-1), 3960);
  assert.is(grid.length, 180 + 84 + 60 + 80 + 6);
  assert.equal(Array.from(fullGrid(0)), []);
  assert.ok(DEFAULT_DURATIONS.every((d) => fullGrid(21_600).includes(d)), 'every default duration is a grid point');
});

test('a cache grid ends at the longest section so every duration it lasted has points around it', () => {
  assert.is(cacheGrid(4000).at(-1), 4000);
  assert.is(cacheGrid(3600).at(-1), 3600);
  assert.is(cacheGrid(0).length, 0);
});

test('the cache codec round-trips curves and histograms, also from an unaligned buffer', () => {
  const analysis: ActivityAnalysis = { version: ANALYSIS_VERSION, curves: { power: curve }, awd: { power: Float64Array.of(0, 1000, 2000), speed: Float64Array.of(5) } };
  const bytes = encodeAnalysis(analysis);
  const shifted = new Uint8Array(bytes.length + 3);
  shifted.set(bytes, 3);
  for (const input of [bytes, shifted.subarray(3)]) {
    const decoded = decodeAnalysis(input);
    assert.is(decoded.version, ANALYSIS_VERSION);
    assert.equal(Array.from(decoded.curves.power!.durations), [1, 5, 10]);
    assert.equal(Array.from(decoded.curves.power!.values), [900, 500, 400]);
    assert.equal(Array.from(decoded.curves.power!.starts), [1000, 2000, 3000]);
    assert.is(decoded.curves.speed, undefined);
    assert.equal(Array.from(decoded.awd.speed!), [5]);
  }
  assert.throws(() => decodeAnalysis(new Uint8Array(16)), /not a THA2 cache/);
});

test('reads a cached curve exactly on a grid point, linearly between points, and not beyond its ends', () => {
  assert.equal(curveAt(curve, 5), { value: 500, start: 2000 });
  assert.equal(curveAt(curve, 2), { value: 900 - 400 / 4, start: 1000 });
  assert.equal(curveAt(curve, 8), { value: 440, start: 3000 });
  assert.is(curveAt(curve, 11), null);
  assert.is(curveAt({ ...curve, durations: Int32Array.of(2, 5, 10) }, 1), null);
});

test('folding curves keeps the best per duration, the earlier activity on a tie', () => {
  const best = emptyBest(Int32Array.of(1, 5, 20));
  foldCurve(best, curve, 0);
  foldCurve(best, { durations: Int32Array.of(1, 5), values: Float64Array.of(900, 600), starts: Float64Array.of(7, 8) }, 1);
  assert.equal(Array.from(best.values), [900, 600, Number.NaN]);
  assert.equal(Array.from(best.holders), [0, 1, -1]);
});

test('an AWD table lists every intensity bin from the highest down, in seconds', () => {
  const rows = awdRows(Float64Array.of(2000, 0, 500, 1000), 100);
  assert.equal(Array.from(rows.intensity), [0.03, 0.02, 0.01, 0]);
  assert.equal(Array.from(rows.duration), [1, 1.5, 1.5, 3.5]);
});

test('percentiles interpolate between closest ranks as numpy does', () => {
  const values = Float64Array.of(1, 2, 3, 4);
  assert.is(percentile(values, 0.5), 2.5);
  assert.is(percentile(values, 0.9), 3.7);
  assert.is(percentile(values, 0.75), 3.25);
  assert.is(percentile(Float64Array.of(7), 0.9), 7);
});

test('longitudinal AWD sums activities per day, then takes the max and the 90th, 75th and 50th percentiles over training days', () => {
  // Day A: two activities (1 s at 1 W and 2 s at 0 W; 3 s at 1 W). Day B: 1 s at 0 W.
  const rows = longitudinalAwdRows([
    { date: '2024-05-01', histogram: Float64Array.of(2000, 1000) },
    { date: '2024-05-01', histogram: Float64Array.of(0, 3000) },
    { date: '2024-05-02', histogram: Float64Array.of(1000) },
  ], 1);
  assert.equal(Array.from(rows.intensity), [1, 0]);
  // Daily AWD at 1 W: A 4 s, B 0 s. At 0 W: A 6 s, B 1 s.
  assert.equal(Array.from(rows.max), [4, 6]);
  assert.equal(Array.from(rows.hard), [3.6, 5.5]);
  assert.equal(Array.from(rows.medium), [3, 4.75]);
  assert.equal(Array.from(rows.easy), [2, 3.5]);
  assert.is(longitudinalAwdRows([], 1).intensity.length, 0);
});

test.run();
