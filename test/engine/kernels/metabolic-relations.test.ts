/**
 * The metabolic map's relations (engine/kernels/metabolic-relations.ts) and rounding
 * (engine/kernels/model-rounding.ts) against values computed by hand (the arithmetic is in the comments).
 */
import { test } from '../../support/uvu.js';
import * as assert from 'uvu/assert';
import {
  FATMAX_FRACTION, cyclingPowerAt, cyclingVo2max, runningSpeedAt, runningVo2Cost, runningVo2max, secondThresholdPower,
  secondThresholdSpeed, vdot, vdotFraction,
} from '../../../engine/kernels/metabolic-relations.js';
import { roundDPrime, roundMarker, roundPower, roundSpeed, roundWPrime } from '../../../engine/kernels/model-rounding.js';

const close = (actual: number, expected: number, tolerance: number, what: string) =>
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: ${actual}, expected ${expected} ± ${tolerance}`);

test('cycling: VO2max from the best 5 minutes per kg, MAP and the FatMax power by the ACSM equation', () => {
  // 300 W, 70 kg: 300/70 = 4.285714 W/kg; 16.6 + 8.87 · 4.285714 = 54.6143 mL/kg/min.
  const vo2max = cyclingVo2max(300, 70);
  close(vo2max, 54.6143, 1e-4, 'VO2max');
  // MAP = (54.6143 · 70 − 7 · 70) / 10.8 = (3823.0 − 490) / 10.8 = 308.61 W.
  close(cyclingPowerAt(vo2max, 70), 308.61, 0.01, 'MAP');
  // 64 %: (0.64 · 3823.0 − 490) / 10.8 = (2446.72 − 490) / 10.8 = 181.18 W.
  close(cyclingPowerAt(vo2max, 70, FATMAX_FRACTION), 181.18, 0.01, 'FatMax');
  assert.is(FATMAX_FRACTION, 0.64);
  assert.throws(() => cyclingVo2max(300, 0), /body mass must be positive, got 0/);
});

test('second threshold: 0.94 × CP and 0.93 × CS', () => {
  close(secondThresholdPower(300), 282, 1e-9, 'power');
  close(secondThresholdSpeed(4.5), 4.185, 1e-9, 'speed');
});

test('running: the Daniels–Gilbert cost, its inverse, and a VDOT of 49.8 for a 20-minute 5 km', () => {
  // 5000 m in 20 min = 250 m/min: −4.60 + 0.182258 · 250 + 0.000104 · 250² = −4.60 + 45.5645 + 6.5 = 47.4645.
  close(runningVo2Cost(5000 / 1200), 47.4645, 1e-9, 'cost at 250 m/min');
  close(runningSpeedAt(47.4645), 5000 / 1200, 1e-9, 'the inverse');
  // 20 min: 0.8 + 0.1894393 · e^(−0.25556) + 0.2989558 · e^(−3.865210) = 0.8 + 0.146718 + 0.006265 = 0.952983.
  close(vdotFraction(1200), 0.952983, 1e-6, 'fraction at 20 min');
  // 47.4645 / 0.952983 = 49.806 (Daniels' table: VDOT 50 runs 5 km in 19:57).
  close(vdot(1200, 5000 / 1200), 49.806, 1e-3, 'VDOT');
  // VO2max 49.806: 0.000104 v² + 0.182258 v − 54.406 = 0 → v = 260.6 m/min = 4.3325 m/s; 64 % (31.876): v = 181.4 m/min = 3.0227 m/s.
  close(runningSpeedAt(49.806), 4.3325, 1e-4, 'max aerobic speed');
  close(runningSpeedAt(FATMAX_FRACTION * 49.806), 3.0227, 1e-4, 'FatMax speed');
});

test('a runner VO2max is the best VDOT over the efforts of 5 to 60 minutes', () => {
  // 1 min at 7 m/s and 2 h at 3 m/s are outside the range; the 20-minute 5 km (49.8) beats 10 min at 4.2 m/s.
  // 10 min at 4.2 m/s = 252 m/min: cost 47.933; fraction 0.8 + 0.1894393 · e^(−0.12778) + 0.2989558 · e^(−1.932605) = 1.0100 → 47.46.
  close(runningVo2max([60, 600, 1200, 7200], [7, 4.2, 5000 / 1200, 3]), 49.806, 1e-3, 'VO2max');
  close(vdot(600, 4.2), 47.46, 0.01, '10 min at 4.2 m/s');
  assert.ok(Number.isNaN(runningVo2max([60, 7200], [7, 3])), 'no effort in range');
});

test('rounding: power whole W, W′ kJ to 1 decimal, speed m/s to 2 decimals, D′ whole metres, halves up', () => {
  assert.is(roundPower(281.5), 282);
  assert.is(roundPower(281.49), 281);
  assert.is(roundWPrime(18_450), 18.5);
  assert.is(roundWPrime(18_449), 18.4);
  assert.is(roundSpeed(2.345), 2.35);
  assert.is(roundSpeed(4.18499), 4.18);
  assert.is(roundDPrime(215.5), 216);
  assert.equal((['power', 'speed', 'w_prime', 'd_prime'] as const).map((unit) => roundMarker(unit, 1234.5678)), [1235, 1234.57, 1.2, 1235]);
});

test.run();
