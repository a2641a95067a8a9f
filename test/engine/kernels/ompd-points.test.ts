/**
 * The data side of the intensity-duration model (engine/kernels/ompd-points.ts) on hand-made points: the
 * merge, the envelope, the log grid, the fit's points (no chord across a gap, a cliff kept), the
 * too-little-data rule branch by branch, and the rounded curve.
 */
import { test } from '../../support/uvu.js';
import * as assert from 'uvu/assert';
import {
  DURATION_BANDS, durationBand, enoughData, fittingPoints, logGrid, mergePoints, monotoneEnvelope, ompdCurve,
} from '../../../engine/kernels/ompd-points.js';

const f64 = (...values: number[]) => Float64Array.from(values);

test('merges a curve and max efforts into ascending points, the higher value on a shared duration, dropping empty values', () => {
  const merged = mergePoints([1, 5, 60, 300], [900, Number.NaN, 400, 0], [60, 1200, 5], [420, 250, 700]);
  assert.equal([...merged.durations], [1, 5, 60, 1200]);
  assert.equal([...merged.values], [900, 700, 420, 250]);
});

test('the envelope raises each value to the best at any longer duration and leaves a falling curve alone', () => {
  const envelope = monotoneEnvelope({ durations: f64(1, 2, 5, 10, 60), values: f64(500, 480, 300, 320, 310) });
  assert.equal([...envelope.values], [500, 480, 320, 320, 310]);
  assert.equal([...monotoneEnvelope({ durations: f64(1, 2), values: f64(5, 4) }).values], [5, 4]);
});

test('the log grid holds every second at the short end, 24 points a decade beyond, and both ends', () => {
  const grid = [...logGrid(1, 10_000)];
  assert.equal(grid.slice(0, 10), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  assert.equal(grid[grid.length - 1], 10_000);
  assert.ok(grid.length > 70 && grid.length < 97, `${grid.length} points`);
  assert.equal([...logGrid(300, 300)], [300]);
});

test('the fit takes real envelope points only: nothing across a band without data, a cliff kept', () => {
  // A gap from 10 s to 300 s: no point may be invented in it.
  const durations = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 300, 600, 1200, 2400, 2460];
  const values = [1000, 950, 900, 860, 820, 790, 760, 730, 700, 680, 380, 340, 320, 300, 250];
  const points = fittingPoints(mergePoints(durations, values, [], []));
  for (const t of points.durations) assert.ok(durations.includes(t), `${t} s is a data point`);
  assert.ok(!points.durations.some((t) => t > 10 && t < 300));
  assert.ok(points.durations.includes(2400) && points.durations.includes(2460), 'the cliff at the end stays');
  // A dense curve is thinned to about the log grid.
  const dense = Array.from({ length: 3600 }, (_, i) => i + 1);
  const thin = fittingPoints(mergePoints(dense, dense.map((t) => 250 + 20_000 / (t + 30)), [], []));
  assert.ok(thin.durations.length < 120, `${thin.durations.length} points`);
});

test('duration bands are 1–10 s, 10 s–1 min, 1–5 min, 5–20 min and beyond', () => {
  assert.equal(DURATION_BANDS, [1, 10, 60, 300, 1200]);
  assert.equal([0.5, 1, 9, 10, 59, 60, 299, 300, 1199, 1200, 20_000].map(durationBand), [-1, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4]);
});

test('too little data: efforts in fewer than three bands, or no activity of 15 recorded minutes (never read from the curve)', () => {
  const cases: [string, number[], number[], boolean, boolean][] = [
    ['three bands and a long activity', [5, 30, 120], [900, 500, 350], true, true],
    ['three bands, no long activity, no long effort', [5, 30, 120], [900, 500, 350], false, false],
    ['three bands and a 15-minute curve point, no long activity (a window over a pause)', [5, 30, 900], [900, 500, 300], false, false],
    ['two bands and a long activity', [5, 8, 30], [900, 850, 500], true, false],
    ['three durations, two in one band', [1, 5, 400], [1000, 900, 350], true, false],
    ['a zero value is no effort', [5, 30, 120], [900, 500, 0], true, false],
    ['nothing at all', [], [], true, false],
    ['five bands', [1, 20, 100, 600, 3600], [1000, 600, 400, 320, 280], true, true],
    ['five bands, no long activity', [1, 20, 100, 600, 3600], [1000, 600, 400, 320, 280], false, false],
  ];
  for (const [name, durations, values, long, expected] of cases) assert.is(enoughData(f64(...durations), f64(...values), long), expected, name);
});

test('the curve is the model at the requested durations, whole W for power and m/s to 2 decimals for speed', () => {
  const power = f64(300, 20_000, 1200, 40);
  const curve = ompdCurve(power, [1, 60, 1800, 3600], 'power');
  // P(60) = 20000/60 · (1 − e^{−60·900/20000}) + 300 = 333.33 · 0.93279 + 300 = 610.93;
  // P(3600) = 20000/3600 · (1 − e^{−162}) + 300 − 40 · ln(3600/1800) = 5.556 + 300 − 27.726 = 277.83.
  assert.equal(curve.map((point) => point.duration), [1, 60, 1800, 3600]);
  assert.is(curve[1]!.intensity, 611);
  assert.is(curve[3]!.intensity, 278);
  const speed = ompdCurve(f64(4, 200, 7, 0.3), [60, 3600], 'speed');
  // S(60) = 200/60 · (1 − e^{−60·3/200}) + 4 = 3.3333 · 0.59343 + 4 = 5.978 → 5.98.
  assert.is(speed[0]!.intensity, 5.98);
  assert.is(speed[1]!.intensity, Math.round((4 + 200 / 3600 * (1 - Math.exp(-54)) - 0.3 * Math.LN2) * 100) / 100);
});

test.run();
