/**
 * The lactate-threshold kernels (engine/kernels/lactate-loglog.ts, lactate-dmax.ts) against their reference
 * twins: the same log-log breakpoint (or, on a numerical near-tie, one whose fit is as good by the twin's own
 * residuals) and the same modified Dmax intensity and lactate to 1e-6, on random tests; and both, fast and
 * twin, within 0.5 W of lactater's demo data (ANALYTICS.md §7: LT1 83.4 W, LT2 140.1 W at 3.6 mmol/L).
 */
import { test } from '../../support/uvu.js';
import * as assert from 'uvu/assert';
import { loglogBreakpoint } from '../../../engine/kernels/lactate-loglog.js';
import { modifiedDmax } from '../../../engine/kernels/lactate-dmax.js';
import * as loglogTwin from '../../../engine/kernels/reference/lactate-loglog.js';
import * as dmaxTwin from '../../../engine/kernels/reference/lactate-dmax.js';
import { random as seeded } from '../../support/kernels.js';

/** lactater's demo_data (cycling), with the resting point placed one step below the first step: 50 − 25 W. */
const DEMO_W = Float64Array.of(25, 50, 75, 100, 125, 150, 175, 191);
const DEMO_LACTATE = Float64Array.of(0.93, 0.98, 1.23, 1.88, 2.8, 4.21, 6.66, 8.64);

interface RandomTest { intensities: Float64Array; lactates: Float64Array; step: number }

/**
 * A resting point and 4–10 steps: ascending intensities with uneven increments, lactate rising roughly
 * exponentially with noise (sometimes dipping). Grids of at most ~600 points, so the twin stays quick.
 */
function randomTest(random: () => number): RandomTest {
  const speed = random() < 0.5;
  const steps = 4 + Math.floor(random() * 7);
  const increment = speed ? 0.2 + random() * 0.4 : 15 + random() * 35;
  const intensities = new Float64Array(steps + 1);
  intensities[0] = (speed ? 1 : 40) + random() * increment * 2;
  for (let i = 1; i <= steps; i++) intensities[i] = intensities[i - 1]! + increment * (0.6 + random() * 0.8);
  const span = intensities[steps]! - intensities[0]!;
  const rate = 1 + random() * 4;
  const lactates = Float64Array.from(intensities, (x) => Math.max(0.3, 0.8 + 0.3 * Math.exp((rate * (x - intensities[0]!)) / span) + (random() - 0.4) * 0.6));
  const step = speed ? 0.01 : Math.max(0.1, Math.round(span / 60) / 10);
  return { intensities, lactates, step };
}

test('the demo ride gives LT1 83.4 W by log-log, fast and twin alike', () => {
  for (const breakpoint of [loglogBreakpoint(DEMO_W, DEMO_LACTATE, 0.1), loglogTwin.loglogBreakpoint(DEMO_W, DEMO_LACTATE, 0.1)]) {
    assert.ok(Math.abs(breakpoint - 83.4) <= 0.5, `LT1 ${breakpoint} W`);
  }
});

test('the demo ride gives LT2 140.1 W at 3.6 mmol/L by modified Dmax, fast and twin alike', () => {
  for (const dmax of [modifiedDmax, dmaxTwin.modifiedDmax]) {
    const out = new Float64Array(2);
    dmax(DEMO_W.subarray(1), DEMO_LACTATE.subarray(1), out);
    assert.ok(Math.abs(out[0]! - 140.1) <= 0.5, `LT2 ${out[0]} W`);
    assert.ok(Math.abs(out[1]! - 3.6) <= 0.05, `lactate ${out[1]} mmol/L`);
  }
});

test('the log-log kernel finds the twin\'s breakpoint on random tests', () => {
  const random = seeded(12);
  for (let round = 0; round < 60; round++) {
    const { intensities, lactates, step } = randomTest(random);
    const fast = loglogBreakpoint(intensities, lactates, step);
    const slow = loglogTwin.loglogBreakpoint(intensities, lactates, step);
    if (Object.is(fast, slow)) continue;
    // A near-tie the two sums resolve differently: the fast choice must fit as well, by the twin's residuals.
    const { u, v } = loglogTwin.loglogGrid(intensities, lactates, step);
    const index = (x: number) => Math.round((x - intensities[0]!) / step);
    const fastRss = loglogTwin.hingeRss(u, v, index(fast))!;
    const slowRss = loglogTwin.hingeRss(u, v, index(slow))!;
    assert.ok(Math.abs(fastRss - slowRss) <= 1e-9 * Math.max(1e-12, slowRss), `round ${round}: ${fast} (RSS ${fastRss}) where the twin has ${slow} (RSS ${slowRss})`);
  }
});

test('the log-log kernel finds the exact breakpoint of a flat-then-proportional curve and none without a positive rest', () => {
  // ln(lactate) is flat to 150 W, then has slope 1: linear interpolation stays on the hinge, whose residual is 0 at 150 W.
  const intensities = Float64Array.of(50, 100, 150, 200, 250, 300);
  const lactates = Float64Array.of(1, 1, 1, 4 / 3, 5 / 3, 2);
  assert.ok(Math.abs(loglogBreakpoint(intensities, lactates, 0.1) - 150) < 1e-9);
  assert.ok(Number.isNaN(loglogBreakpoint(Float64Array.of(0, 50, 100), Float64Array.of(1, 1, 2), 0.1)), 'a resting intensity of 0 has no logarithm');
  assert.ok(Number.isNaN(loglogBreakpoint(Float64Array.of(10, 10.1), Float64Array.of(1, 2), 0.1)), 'two grid points are no two segments');
});

test('the modified Dmax kernel equals the twin to 1e-6 on random tests', () => {
  const random = seeded(13);
  let found = 0;
  for (let round = 0; round < 300; round++) {
    const { intensities, lactates } = randomTest(random);
    const steps = intensities.subarray(1);
    const values = lactates.subarray(1);
    const fast = new Float64Array(2);
    const slow = new Float64Array(2);
    modifiedDmax(steps, values, fast);
    dmaxTwin.modifiedDmax(steps, values, slow);
    const span = steps.at(-1)! - steps[0]!;
    assert.is(Number.isNaN(fast[0]!), Number.isNaN(slow[0]!), `round ${round}: ${fast[0]} where the twin has ${slow[0]}`);
    if (Number.isNaN(fast[0]!)) continue;
    found += 1;
    assert.ok(Math.abs(fast[0]! - slow[0]!) <= 1e-6 * span, `round ${round}: intensity ${fast[0]} where the twin has ${slow[0]}`);
    assert.ok(Math.abs(fast[1]! - slow[1]!) <= 1e-6 * (1 + Math.abs(slow[1]!)), `round ${round}: lactate ${fast[1]} where the twin has ${slow[1]}`);
  }
  assert.ok(found > 150, `${found} of 300 random tests have an LT2`);
});

test('the modified Dmax kernel solves a test lying on a cubic exactly, and gives none without a 0.4 mmol/L rise', () => {
  // lactate = 0.8 + 0.5·(x/100)³: the chord from 100 W (rise 1.19 to 150 W) to 300 W has slope 0.065 mmol/L/W,
  // the cubic's slope 1.5e-6·x² equals it at x = 100·√(13/3) W.
  const intensities = Float64Array.of(100, 150, 200, 250, 300);
  const lactates = Float64Array.from(intensities, (x) => 0.8 + 0.5 * (x / 100) ** 3);
  const expected = 100 * Math.sqrt(13 / 3);
  for (const dmax of [modifiedDmax, dmaxTwin.modifiedDmax]) {
    const out = new Float64Array(2);
    dmax(intensities, lactates, out);
    assert.ok(Math.abs(out[0]! - expected) < 1e-6, `LT2 ${out[0]} W, expected ${expected}`);
    assert.ok(Math.abs(out[1]! - (0.8 + 0.5 * (expected / 100) ** 3)) < 1e-6);
    const flat = new Float64Array(2);
    dmax(intensities, Float64Array.of(1, 1.3, 1.6, 1.9, 2.2), flat);
    assert.ok(Number.isNaN(flat[0]!), 'rises of 0.3 mmol/L start no chord');
    const risen = new Float64Array(2);
    dmax(intensities, Float64Array.of(0.83, 1.23, 1.5, 2.5, 4), risen);
    assert.ok(!Number.isNaN(risen[0]!), 'a measured rise of exactly 0.40 mmol/L counts despite binary rounding');
  }
});

test.run();
