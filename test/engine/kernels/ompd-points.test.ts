/**
 * The data side of the intensity-duration model (engine/kernels/ompd-points.ts) on hand-made points: the
 * merge, the envelope, the fit's points (the maximal efforts: the upper concave hull of work, within noise), the
 * too-little-data rule branch by branch, and the rounded curve.
 */
import { test } from '../../support/uvu.js';
import * as assert from 'uvu/assert';
import {
  DURATION_BANDS, durationBand, enoughData, fittingPoints, mergePoints, monotoneEnvelope, ompdCurve,
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

test('the fit takes the maximal efforts: a window inside a longer effort and an effort padded with easy riding leave, every effort stays', () => {
  // A rider with CP 250 W, W′ 20 kJ: efforts held evenly at 10 s, 60 s, 300 s and 1200 s (on the work curve),
  // and the windows a mean-max curve also holds: 30 s inside the 60 s effort, 180 s inside the 300 s
  // effort, and 600 s = the 300 s effort then 300 s at 150 W.
  const truth = (t: number) => 250 + (20_000 / t) * (1 - Math.exp(-t / 25));
  const durations = [10, 30, 60, 180, 300, 600, 1200];
  const values = durations.map(truth);
  values[1] = truth(60);
  values[3] = truth(300);
  values[5] = (truth(300) * 300 + 150 * 300) / 600;
  const points = fittingPoints(mergePoints(durations, values, [], []));
  assert.equal([...points.durations], [10, 60, 300, 1200]);
  assert.equal([...points.values], [10, 60, 300, 1200].map(truth));
});

test('a point within the noise of a best effort under the hull stays: one lucky second does not push its neighbours out', () => {
  // A 1 s best 6 % above a smooth sprint curve: its chord to 30 s passes over 2–20 s by less than their noise (3 %/√t).
  const durations = [1, 2, 5, 10, 20, 30];
  const values = [1060, 980, 940, 880, 780, 700];
  const points = fittingPoints(mergePoints(durations, values, [], []));
  assert.equal([...points.durations], durations);
  // A 3-minute window inside a 5-minute effort is 8 % under the hull: out.
  const dip = fittingPoints(mergePoints([60, 180, 300], [500, 350, 350], [], []));
  assert.equal([...dip.durations], [60, 300]);
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
