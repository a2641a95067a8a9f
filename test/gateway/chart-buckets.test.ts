/**
 * The charts' per-pixel buckets (gateway/pages/charts/buckets.ts): a 5-hour ride drawn at chart width keeps
 * every peak and every trough, a pause leaves a gap, and no sample is lost or counted twice; a gap of a few
 * seconds (smart recording) is bridged, a pause is not.
 */
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { bridgeGaps, bucketize } from '../../gateway/pages/charts/buckets.js';

const FIVE_HOURS = 5 * 3600;

function ride(): { x: Float64Array; power: Float64Array } {
  const x = new Float64Array(FIVE_HOURS);
  const power = new Float64Array(FIVE_HOURS);
  for (let i = 0; i < FIVE_HOURS; i++) {
    x[i] = i;
    power[i] = 200 + 20 * Math.sin(i / 60);
  }
  return { x, power };
}

test('keeps a one-second 1,400 W sprint in a five-hour ride drawn 472 buckets wide', () => {
  const { x, power } = ride();
  power[12_345] = 1400;
  power[777] = 0;
  const buckets = bucketize(x, power, 0, FIVE_HOURS - 1, 472);
  assert.is(Math.max(...buckets.max), 1400);
  assert.is(Math.min(...buckets.min), 0);
  const sprint = Math.floor((12_345 / (FIVE_HOURS - 1)) * 472);
  assert.is(buckets.max[sprint], 1400);
  assert.ok(buckets.mean[sprint]! < 300, 'the mean smooths the sprint; the band keeps it');
});

test('leaves a gap where there is no value, and counts every sample once (the last one in the last bucket)', () => {
  const x = Float64Array.from([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  const values = Float64Array.from([1, 1, Number.NaN, Number.NaN, Number.NaN, Number.NaN, 3, 3, 5, 7]);
  const buckets = bucketize(x, values, 0, 9, 5);
  const shown = (values: Float64Array) => [...values].map((value) => (Number.isNaN(value) ? null : value));
  assert.equal(shown(buckets.mean), [1, null, null, 3, 6]);
  assert.equal(shown(buckets.min), [1, null, null, 3, 5]);
  assert.equal(shown(buckets.max), [1, null, null, 3, 7]);
});

test('draws straight across a few seconds without samples (smart recording), but not across a pause or past either end', () => {
  // A sample every 8 s for 4 minutes, then a 2-minute pause, then 1 minute more; buckets 4 s wide.
  const times: number[] = [];
  for (let t = 8; t <= 240; t += 8) times.push(t);
  for (let t = 360; t <= 420; t += 8) times.push(t);
  const x = Float64Array.from(times);
  const values = Float64Array.from(times, (t) => t);
  const buckets = bucketize(x, values, 0, 420, 105);
  const emptyBefore = buckets.mean.filter(Number.isNaN).length;
  const filled = bridgeGaps(buckets, 4, 15);
  assert.ok(filled > 0);
  const empty = [...buckets.mean.keys()].filter((b) => Number.isNaN(buckets.mean[b]!));
  assert.is(empty.length, emptyBefore - filled);
  assert.equal(empty.filter((b) => b > 1 && b < 60), [], 'every gap of the smart recording is bridged');
  assert.ok(empty.filter((b) => b >= 61 && b < 90).length >= 25, 'the pause stays a gap');
  assert.ok(Number.isNaN(buckets.mean[0]!) && Number.isNaN(buckets.mean[1]!), 'nothing is invented before the first sample (at 8 s, bucket 2)');
  assert.ok(Math.abs(buckets.mean[3]! - 12) < 1e-9, 'a bridged bucket lies on the line between its neighbours');
});

test.run();
