import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { indexAtOrAfter, sampleWeights } from '../../engine/kernels/summary.js';
import { summarize } from '../../engine/ingest/summary.js';
import type { RecordedSeries } from '../../engine/ingest/series.js';

function series(timestamps: number[], columns: Record<string, number[]>): RecordedSeries {
  return {
    timestamps: Float64Array.from(timestamps),
    metrics: Object.entries(columns).map(([name, values]) => ({ name: name as never, values: Float64Array.from(values) })),
  };
}

test('weights each sample by the time to the next, capped at 5 s, and the last by 1 s', () => {
  assert.equal([...sampleWeights(Float64Array.from([0, 1000, 4000, 60_000, 61_000]))], [1, 3, 5, 1, 1]);
});

test('time-weights means over smart-recorded samples and ignores missing values', () => {
  // 100 W held 1 s, 200 W held 3 s, NaN, then 400 W for the last second.
  const s = series([0, 1000, 4000, 9000], { power: [100, 200, NaN, 400] });
  const blocks = summarize(s, sampleWeights(s.timestamps), 0, 4);
  assert.equal(blocks.power, { mean: (100 * 1 + 200 * 3 + 400 * 1) / 5, max: 400 });
});

test('reports start, end, min and max of heart rate and the rise of cumulative distance', () => {
  const s = series([0, 1000, 2000, 3000], { heart_rate: [NaN, 120, 150, 140], distance: [5, 10, NaN, 30] });
  const blocks = summarize(s, sampleWeights(s.timestamps), 0, 4);
  assert.equal(blocks.heart_rate, { mean: (120 + 150 + 140) / 3, min: 120, max: 150, start: 120, end: 140 });
  assert.equal(blocks.distance, { sum: 25 });
});

test('counts altitude gain and loss only beyond the 1 m hysteresis', () => {
  const altitude = [100, 100.4, 99.8, 100.3, 102, 101.5, 99, 99.5];
  const s = series(altitude.map((_, i) => i * 1000), { altitude });
  const block = summarize(s, sampleWeights(s.timestamps), 0, altitude.length).altitude!;
  assert.is(block.gain, 2);
  assert.is(block.loss, 3);
  assert.is(block.min, 99);
  assert.is(block.max, 102);
});

test('summarises a lap as the samples inside its bounds and leaves out metrics without values there', () => {
  const s = series([0, 1000, 2000, 3000, 4000], { power: [10, 20, 30, 40, 50], cadence: [NaN, NaN, NaN, 80, 90] });
  const weights = sampleWeights(s.timestamps);
  const from = indexAtOrAfter(s.timestamps, 1000);
  const to = indexAtOrAfter(s.timestamps, 2000 + 1);
  assert.equal([from, to], [1, 3]);
  assert.equal(summarize(s, weights, from, to), { power: { mean: 25, max: 30 } });
});

test.run();
