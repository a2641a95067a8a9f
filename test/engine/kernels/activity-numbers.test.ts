/**
 * The load-number kernels (engine/kernels/activity-numbers.ts) against plain sums over every window and bin:
 * the 30 s fourth-power sums per section (no window spans a split, a short section adds none) on random
 * values, and the heart-rate time per exact mean from held integrals (fractional means included).
 */
import { test } from '../../support/uvu.js';
import * as assert from 'uvu/assert';
import { heartRateTime, rollingFourthPower } from '../../../engine/kernels/activity-numbers.js';
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

test('the heart-rate time adds each held bin\'s ms at its exact mean, and leaves out unheld bins and means beyond 255 bpm', () => {
  const sums = Float64Array.of(150, 75, 0, 300.5, 999, 120.5, 60.25, 120.5);
  const weights = Float64Array.of(1, 0.5, 0, 1, 1, 1, 0.5, 1);
  const { bpm, ms } = heartRateTime(sums, weights);
  assert.equal([...bpm], [120.5, 150]);
  assert.equal([...ms], [2500, 1500], 'the 300.5 bpm and 999 bpm bins are no heart rate; 120.5 twice is one value');
});

test('the heart-rate time equals a plain sum per distinct mean on random fractional heart rates', () => {
  for (let seed = 1; seed <= 20; seed++) {
    const next = random(seed);
    const n = 1 + Math.floor(next() * 3000);
    const weights = Float64Array.from({ length: n }, () => (next() < 0.05 ? 0 : next() < 0.8 ? 1 : Math.round(next() * 4) / 4));
    // Means of 1–4 integer samples a second: whole, half, third and quarter bpm.
    const sums = Float64Array.from(weights, (weight) => {
      const samples = 1 + Math.floor(next() * 4);
      let total = 0;
      for (let i = 0; i < samples; i++) total += 90 + Math.floor(next() * 100);
      return (total / samples) * weight;
    });
    const plain = new Map<number, number>();
    sums.forEach((sum, k) => {
      if (!(weights[k]! > 0)) return;
      const value = sum / weights[k]!;
      plain.set(value, (plain.get(value) ?? 0) + Math.round(weights[k]! * 1000));
    });
    const { bpm, ms } = heartRateTime(sums, weights);
    const expected = [...plain.keys()].sort((a, b) => a - b);
    assert.equal([...bpm], expected, `seed ${seed}: values`);
    assert.equal([...ms], expected.map((value) => plain.get(value)), `seed ${seed}: ms`);
  }
});
test.run();
