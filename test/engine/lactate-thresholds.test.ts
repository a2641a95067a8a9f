/**
 * Lactate thresholds from a test's points (engine/analysis/lactate-thresholds.ts, ANALYTICS.md §7): the
 * worked examples, the resting point and the 4 steps it needs, unsorted and repeated points, a resting
 * point at or below 0 W, and heart rate and VO2 read between the points that carry them.
 */
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { lactateThresholds } from '../../engine/analysis/lactate-thresholds.js';
import type { LactatePoint } from '../../engine/contract.js';
import { LACTATER_DEMO } from '../support/lactate.js';

const DEMO = LACTATER_DEMO;

const near = (actual: number | null | undefined, expected: number, tolerance: number, what: string): void => {
  assert.ok(typeof actual === 'number' && Math.abs(actual - expected) <= tolerance, `${what}: ${actual}, expected ${expected} ± ${tolerance}`);
};

test('derives LT1 83.4 W and LT2 140.1 W at 3.6 mmol/L from lactater\'s demo test', () => {
  const { lt1, lt2 } = lactateThresholds('power', DEMO);
  near(lt1?.intensity, 83.4, 0.5, 'LT1');
  // "lactate: … the interpolated curve's (LT1)": between 75 W (1.23) and 100 W (1.88).
  near(lt1?.lactate, 1.23 + ((lt1!.intensity - 75) / 25) * 0.65, 1e-9, 'LT1 lactate');
  near(lt2?.intensity, 140.1, 0.5, 'LT2');
  near(lt2?.lactate, 3.6, 0.05, 'LT2 lactate');
  // "Heart rate at a threshold: linear interpolation between the points".
  near(lt1?.heart_rate, 134 + ((lt1!.intensity - 75) / 25) * 20, 1e-9, 'LT1 heart rate');
  near(lt2?.heart_rate, 170 + ((lt2!.intensity - 125) / 25) * 12, 1e-9, 'LT2 heart rate');
  assert.is(lt1?.vo2, null);
  assert.is(lt2?.vo2, null);
});

test('derives the analytic breakpoint of a speed test and no LT2 when lactate never rises 0.4 mmol/L in a step', () => {
  // Resting point at 2.0 m/s (2.5 − 0.5); ln(lactate) flat to 3.5 m/s, then proportional to speed.
  const points: LactatePoint[] = [
    { intensity: null, lactate: 1, heart_rate: null, vo2: null },
    ...[2.5, 3, 3.5, 4, 4.5, 5].map((speed) => ({ intensity: speed, lactate: Math.max(1, speed / 3.5), heart_rate: null, vo2: null })),
  ];
  const { lt1, lt2 } = lactateThresholds('speed', points);
  near(lt1?.intensity, 3.5, 1e-9, 'LT1');
  assert.is(lt1?.heart_rate, null, 'no heart rate measured');
  assert.is(lt2, null);
});

test('derives nothing without a resting point or with fewer than 4 steps', () => {
  assert.equal(lactateThresholds('power', DEMO.slice(1)), { lt1: null, lt2: null });
  assert.equal(lactateThresholds('power', DEMO.slice(0, 4)), { lt1: null, lt2: null });
  assert.equal(lactateThresholds('power', []), { lt1: null, lt2: null });
  assert.ok(lactateThresholds('power', DEMO.slice(0, 5)).lt1 !== null, 'a resting point and 4 steps suffice');
});

test('sorts the points by intensity and averages repeated intensities and resting points', () => {
  const shuffled = [...DEMO].reverse();
  assert.equal(lactateThresholds('power', shuffled), lactateThresholds('power', DEMO));
  // Two samples at 125 W whose mean is the demo's, one without heart rate; two resting samples, one at intensity null.
  const repeated: LactatePoint[] = [
    ...DEMO.filter((point) => point.intensity !== 125 && point.intensity !== 0),
    { intensity: 125, lactate: 2.6, heart_rate: 170, vo2: null },
    { intensity: 125, lactate: 3.0, heart_rate: null, vo2: null },
    { intensity: 0, lactate: 0.9, heart_rate: 96, vo2: null },
    { intensity: null, lactate: 0.96, heart_rate: null, vo2: null },
  ];
  const expected = lactateThresholds('power', DEMO);
  const actual = lactateThresholds('power', repeated);
  near(actual.lt1?.intensity, expected.lt1!.intensity, 1e-9, 'LT1');
  near(actual.lt2?.intensity, expected.lt2!.intensity, 1e-9, 'LT2');
  near(actual.lt2?.heart_rate, expected.lt2!.heart_rate!, 1e-9, 'LT2 heart rate');
});

test('derives no LT1 when the resting point falls at or below 0 W, but still LT2', () => {
  // Steps 50, 100, …: the resting point goes to 50 − 50 = 0 W, which has no logarithm.
  const points: LactatePoint[] = [0, 50, 100, 150, 200, 250].map((intensity, i) => ({ intensity, lactate: [1, 1.1, 1.4, 2.2, 4, 7.5][i]!, heart_rate: null, vo2: null }));
  const { lt1, lt2 } = lactateThresholds('power', points);
  assert.is(lt1, null);
  assert.ok(lt2 !== null && lt2.intensity > 150 && lt2.intensity <= 250, `LT2 ${lt2?.intensity}`);
});

test('reads heart rate and VO2 only between points that carry them', () => {
  const points = DEMO.map((point) => ({ ...point, heart_rate: point.intensity === 150 ? null : point.heart_rate, vo2: point.intensity! >= 150 ? 3000 + point.intensity! * 10 : null }));
  const { lt1, lt2 } = lactateThresholds('power', points);
  // LT2 (≈140 W) lies between 125 W and 175 W once 150 W has no heart rate.
  near(lt2?.heart_rate, 170 + ((lt2!.intensity - 125) / 50) * 23, 1e-9, 'LT2 heart rate across the gap');
  assert.is(lt2?.vo2, null, 'no VO2 at or below 140 W');
  assert.is(lt1?.vo2, null);
});

test.run();
