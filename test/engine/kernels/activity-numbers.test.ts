/**
 * The load-number kernels (engine/kernels/activity-numbers.ts) against plain sums over every window and bin:
 * the 30 s fourth-power sums per section (no window spans a split, a short section adds none) on random
 * values, and the heart-rate histogram from held integrals.
 */
import { test } from '../../support/uvu.js';
import * as assert from 'uvu/assert';
import { HEART_RATE_BINS, heartRateHistogram, rollingFourthPower } from '../../../engine/kernels/activity-numbers.js';
import { random } from '../../support/kernels.js';

function plainFourthPower(values: number[], sectionStarts: number[], window: number): [number, number] {
  let sum = 0;
  let count = 0;
  for (let s = 0; s + 1 < sectionStarts.length; s++) {
    for (let end = sectionStarts[s]! + window; end <= sectionStarts[s + 1]!; end++) {
      const slice = values.slice(end - window, end);
      sum += (slice.reduce((a, b) => a + b, 0) / window) ** 4;
      count++;
    }
  }
  return [sum, count];
}

test('the 30 s fourth-power sums equal a plain sum over every window inside each section', () => {
  for (let seed = 1; seed <= 20; seed++) {
    const next = random(seed);
    const length = 20 + Math.floor(next() * 2000);
    const values = Array.from({ length }, () => (next() < 0.1 ? 0 : Math.round(400 * next() * 100) / 100));
    const cuts = [0, ...[...new Set(Array.from({ length: Math.floor(next() * 4) }, () => Math.floor(next() * length)))].sort((a, b) => a - b).filter((cut) => cut > 0), length];
    const out = new Float64Array(2);
    rollingFourthPower(Float64Array.from(values), Int32Array.from(cuts), 30, out);
    const [sum, count] = plainFourthPower(values, cuts, 30);
    assert.is(out[1], count, `seed ${seed}: windows`);
    assert.ok(Math.abs(out[0]! - sum) <= 1e-9 * Math.max(1, sum), `seed ${seed}: ${out[0]} vs ${sum}`);
  }
  const out = new Float64Array(2);
  rollingFourthPower(new Float64Array(29).fill(100), Int32Array.of(0, 29), 30, out);
  assert.equal([...out], [0, 0], 'a section shorter than the window adds none');
});

test('the heart-rate histogram adds each held bin\'s ms at its mean\'s whole bpm, and leaves out unheld bins and means beyond the bins', () => {
  const sums = Float64Array.of(150, 75, 0, 300.5, 999);
  const weights = Float64Array.of(1, 0.5, 0, 1, 1);
  const histogram = new Float64Array(HEART_RATE_BINS);
  heartRateHistogram(sums, weights, histogram);
  assert.is(histogram[150], 1500);
  assert.is(histogram.reduce((a, b) => a + b, 0), 1500, 'the 300.5 bpm and 999 bpm bins are no heart rate');
});
test.run();
