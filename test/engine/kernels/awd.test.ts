import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from '../../support/uvu.js';
import * as assert from 'uvu/assert';
import { awdHistogram, histogramLength, intensityBin, reverseCumulative } from '../../../engine/kernels/awd.js';
import * as reference from '../../../engine/kernels/reference/awd.js';
import { decodeFit } from '../../../engine/ingest/fit.js';
import { FIXTURES } from '../../support/paths.js';
import { canonicalOf, random as seeded, type KernelSeries } from '../../support/kernels.js';


type Kernels = Pick<typeof reference, 'histogramLength' | 'awdHistogram' | 'reverseCumulative'>;
const fast: Kernels = { histogramLength, awdHistogram, reverseCumulative };

/** The AWD curve (ms at intensity ≥ b / resolution, b = 0 … highest recorded bin) through a set of kernels. */
function awdCurve(kernels: Kernels, values: Float64Array, coverage: Float64Array, resolution: number): Float64Array {
  const histogram = new Float64Array(kernels.histogramLength(values, coverage, resolution));
  kernels.awdHistogram(values, coverage, resolution, histogram);
  kernels.reverseCumulative(histogram, histogram);
  return histogram;
}

/** AWD at one bin straight from the definition: recorded ms of every second at that intensity or above. */
function awdAt(values: Float64Array, coverage: Float64Array, resolution: number, bin: number): number {
  let ms = 0;
  for (let k = 0; k < values.length; k++) if (coverage[k]! > 0 && intensityBin(values[k]!, resolution) >= bin) ms += coverage[k]!;
  return ms;
}

function randomSeries(random: () => number, length: number, resolution: number): KernelSeries {
  const values = new Float64Array(length);
  const coverage = new Float64Array(length);
  let paused = false;
  for (let k = 0; k < length; k++) {
    if (random() < 0.02) paused = !paused;
    if (paused) continue; // zero-filled pause: value 0, coverage 0
    const value = random() < 0.1 ? 0 : random() ** 2 * (resolution === 1 ? 1200 : 20);
    values[k] = random() < 0.5 ? Math.round(value * resolution) / resolution : value;
    coverage[k] = random() < 0.1 ? 1 + Math.floor(random() * 999) : 1000;
  }
  return { values, coverage, sectionStarts: Int32Array.from([0, length]) };
}

test('counts each recorded second at its whole-watt bin and accumulates from the top', () => {
  const values = Float64Array.from([200, 250.7, 250.2, 0, 300, 0]);
  const coverage = Float64Array.from([1000, 1000, 500, 0, 1000, 1000]);
  assert.is(histogramLength(values, coverage, 1), 301);
  const histogram = new Float64Array(301);
  awdHistogram(values, coverage, 1, histogram);
  assert.equal([histogram[0], histogram[200], histogram[250], histogram[300]], [1000, 1000, 1500, 1000]);
  assert.is(histogram.reduce((sum, ms) => sum + ms, 0), 4500);
  const curve = new Float64Array(301);
  reverseCumulative(histogram, curve);
  assert.equal([curve[0], curve[1], curve[200], curve[201], curve[250], curve[251], curve[300]], [4500, 3500, 3500, 2500, 2500, 1000, 1000]);
});

test('leaves zero-filled pause seconds out of recorded time and counts a recorded 0 W second', () => {
  const pause = Float64Array.from([0, 0, 0]);
  assert.is(histogramLength(pause, new Float64Array(3), 1), 0);
  assert.equal([...awdCurve(fast, pause, Float64Array.from([0, 1000, 0]), 1)], [1000]);
});

test('bins speed by 0.01 m/s without floating-point loss (2.35 m/s is bin 235)', () => {
  assert.is(intensityBin(2.35, 100), 235);
  const curve = awdCurve(fast, Float64Array.from([2.35, 2.349, 0.5]), Float64Array.from([1000, 1000, 1000]), 100);
  assert.is(curve.length, 236);
  assert.equal([curve[50], curve[51], curve[234], curve[235]], [3000, 2000, 2000, 1000]);
});

test('bins a speed exactly on a 0.01 m/s edge at that edge, whatever floating error the division left (1.19 m/s counts at 1.19)', () => {
  // 1.19 m and 7.55 m per second, 100 km into a run: the distance differences the canonical series divides.
  const at119 = 100_001.26 - 100_000.07;
  const at755 = 100_007.62 - 100_000.07;
  assert.ok(at119 < 1.19 && at755 < 7.55, 'the differences fall short of the edge in binary');
  const values = Float64Array.from([at119, 7.5499999999883585, at755, 1.18999, 1.19 - 1e-7, 2.35, 0.07, 1.19 + 1e-12]);
  const expected = [119, 755, 755, 118, 118, 235, 7, 119];
  assert.equal(Array.from(values, (value) => intensityBin(value, 100)), expected, 'fast kernel');
  assert.equal(Array.from(values, (value) => reference.intensityBin(value, 100)), expected, 'reference twin');
  const coverage = new Float64Array(values.length).fill(1000);
  const curve = awdCurve(fast, values, coverage, 100);
  assert.equal(curve, awdCurve(reference, values, coverage, 100));
  assert.equal([curve[118], curve[119], curve[120], curve[755]], [7000, 5000, 3000, 2000], '1.19 m/s seconds count at 1.19');
  // Whole watts held over whole milliseconds: 249.999 W stays at 249, 250 − 1e-12 is 250.
  assert.equal([intensityBin(249.999, 1), intensityBin(250 - 1e-12, 1), intensityBin(0, 1)], [249, 250, 0]);
});

test('bins every second of a long GPS ride whose speed sits on an edge at that edge (python-fitparse/nick.fit)', async () => {
  const decoded = await decodeFit(new Uint8Array(readFileSync(path.join(FIXTURES, 'fit', 'python-fitparse', 'nick.fit'))));
  const { values, coverage } = canonicalOf(decoded.activities[0]!, 'speed');
  let onEdge = 0;
  let wrong = 0;
  for (let k = 0; k < values.length; k++) {
    const scaled = values[k]! * 100;
    if (!(coverage[k]! > 0) || Math.abs(scaled - Math.round(scaled)) > 1e-6) continue;
    onEdge++;
    if (intensityBin(values[k]!, 100) !== Math.round(scaled)) wrong++;
  }
  assert.ok(onEdge > 100, `${onEdge} seconds on an edge`);
  assert.is(wrong, 0, 'seconds on an edge binned one bin low');
  assert.equal(awdCurve(fast, values, coverage, 100), awdCurve(reference, values, coverage, 100));
});

test('sums in place, and rejects a histogram too short for the values', () => {
  const histogram = Float64Array.from([1, 2, 3]);
  reverseCumulative(histogram, histogram);
  assert.equal([...histogram], [6, 5, 3]);
  assert.throws(() => awdHistogram(Float64Array.from([5]), Float64Array.from([1000]), 1, new Float64Array(5)), RangeError);
});

test('matches the sorted-by-intensity reference exactly on random power and speed series', () => {
  const random = seeded(5);
  for (let trial = 0; trial < 200; trial++) {
    const resolution = trial % 2 === 0 ? 1 : 100;
    const { values, coverage } = randomSeries(random, Math.floor(random() * 3000), resolution);
    const length = histogramLength(values, coverage, resolution);
    assert.is(length, reference.histogramLength(values, coverage, resolution));
    const histogram = new Float64Array(length);
    const expected = new Float64Array(length);
    awdHistogram(values, coverage, resolution, histogram);
    reference.awdHistogram(values, coverage, resolution, expected);
    assert.equal(histogram, expected);
    const curve = awdCurve(fast, values, coverage, resolution);
    assert.equal(curve, awdCurve(reference, values, coverage, resolution));
    for (let i = 0; i < 20 && length > 0; i++) {
      const bin = Math.floor(random() * length);
      assert.is(curve[bin], awdAt(values, coverage, resolution, bin));
    }
    for (let b = 1; b < length; b++) assert.ok(curve[b]! <= curve[b - 1]!, 'AWD never rises with intensity');
  }
});

for (const { file, metric, resolution } of [
  { file: '4078723797.fit', metric: 'power', resolution: 1 },
  { file: '4801048867.fit', metric: 'speed', resolution: 100 },
] as const) {
  test(`matches the reference exactly on a real ride and totals its recorded time (${file}, ${metric})`, async () => {
    const decoded = await decodeFit(new Uint8Array(readFileSync(path.join(FIXTURES, 'fit', 'sweatpy', file))));
    const { values, coverage } = canonicalOf(decoded.activities[0]!, metric);
    const curve = awdCurve(fast, values, coverage, resolution);
    assert.equal(curve, awdCurve(reference, values, coverage, resolution));
    assert.is(curve[0], coverage.reduce((sum, ms) => sum + ms, 0), 'AWD at 0 = every recorded millisecond');
    let top = 0;
    for (let k = 0; k < values.length; k++) top = Math.max(top, intensityBin(values[k]!, resolution));
    assert.is(curve.length, top + 1);
    assert.ok(curve[top]! > 0);
  });
}

test.run();
