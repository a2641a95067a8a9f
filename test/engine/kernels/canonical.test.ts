/**
 * The canonical 1 s series (engine/kernels/canonical.ts, ANALYTICS.md §1): hand-computed cases, speed from
 * distance, parity with the reference twin on random and real series (exact: both add each bin's terms in
 * sample order with the same expression), and the totals of a real ride against its device's summary.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from '../../support/uvu.js';
import * as assert from 'uvu/assert';
import { decodeFit } from '../../../engine/ingest/fit.js';
import * as fast from '../../../engine/kernels/canonical.js';
import { CANONICAL_DEFAULTS, type CanonicalGrid, type CanonicalOptions } from '../../../engine/kernels/canonical.js';
import * as reference from '../../../engine/kernels/reference/canonical.js';
import { FIXTURES } from '../../support/paths.js';
import { random } from '../../support/kernels.js';

/** 2024-05-01T08:00:00Z: hand cases give times relative to it. */
const T0 = Date.UTC(2024, 4, 1, 8, 0, 0);

function times(offsetsMs: number[]): Float64Array {
  return Float64Array.from(offsetsMs, (ms) => T0 + ms);
}

function power(offsetsMs: number[], watts: number[], options: CanonicalOptions = CANONICAL_DEFAULTS) {
  const timestamps = times(offsetsMs);
  const grid = fast.canonicalGrid(timestamps, options);
  const out = new Float64Array(grid.length);
  fast.canonicalPower(timestamps, Float64Array.from(watts), grid, options, out);
  return { grid, bins: [...out], coverage: [...grid.coverage] };
}

function speed(offsetsMs: number[], channel: number[] | null, distance: number[] | null): number[] {
  return speedWith(CANONICAL_DEFAULTS, offsetsMs, channel, distance);
}

/** Fast and reference speed bins, which must agree exactly; the fast ones. */
function speedWith(options: CanonicalOptions, offsetsMs: number[], channel: number[] | null, distance: number[] | null): number[] {
  const timestamps = times(offsetsMs);
  const grid = fast.canonicalGrid(timestamps, options);
  const out = new Float64Array(grid.length);
  const twin = new Float64Array(grid.length);
  const column = (values: number[] | null) => (values === null ? null : Float64Array.from(values));
  fast.canonicalSpeed(timestamps, column(channel), column(distance), grid, options, out);
  reference.canonicalSpeed(timestamps, column(channel), column(distance), grid, options, twin);
  assert.equal([...out], [...twin], 'fast and reference speed');
  return [...out];
}

function sum(values: ArrayLike<number>): number {
  let total = 0;
  for (let k = 0; k < values.length; k++) total += values[k]!;
  return total;
}

test('maps a 1 Hz series on whole seconds to itself, bin for bin, exactly', () => {
  const watts = [100, 0.1, 123.456, 1 / 3, 2999.999];
  const { grid, bins, coverage } = power([0, 1000, 2000, 3000, 4000], watts);
  assert.equal(bins, watts);
  assert.equal(coverage, [1000, 1000, 1000, 1000, 1000]);
  assert.equal([...grid.sectionStarts], [0, 5]);
  assert.equal([...grid.sectionAnchors], [T0]);
  assert.is(grid.length, 5);
});

test('splits samples at half seconds between the two bins they straddle', () => {
  // 100 W over [0.5, 1.5), 200 W over [1.5, 2.5), 300 W (the last) over [2.5, 3.5): anchored at T0.
  const { grid, bins, coverage } = power([500, 1500, 2500], [100, 200, 300]);
  assert.equal([...grid.sectionAnchors], [T0]);
  assert.equal(bins, [50, 150, 250, 150]);
  assert.equal(coverage, [500, 1000, 1000, 500]);
  assert.is(sum(bins), 600); // total work, J: 100 + 200 + 300 W each held 1 s
});

test('holds smart-recorded samples 3 s apart until the next one', () => {
  const { bins, coverage } = power([0, 3000, 6000], [100, 200, 300]);
  assert.equal(bins, [100, 100, 100, 200, 200, 200, 300]);
  assert.equal(coverage, [1000, 1000, 1000, 1000, 1000, 1000, 1000]);
});

test('holds a sample before a 10 s gap for the 5 s cap, then fills 0 with no coverage', () => {
  const { bins, coverage } = power([0, 10_000], [100, 200]);
  assert.equal(bins, [100, 100, 100, 100, 100, 0, 0, 0, 0, 0, 200]);
  assert.equal(coverage, [1000, 1000, 1000, 1000, 1000, 0, 0, 0, 0, 0, 1000]);
});

test('splits a gap over 60 minutes into two sections, each anchored at its own first second', () => {
  // Section 1: 100 W over [0.5, 1.5), 200 W held for the 5 s cap over [1.5, 6.5).
  // Section 2, 3 601 s later: 300 W over [0.5, 1.5), 400 W (the last) over [1.5, 2.5) of its own grid.
  const { grid, bins, coverage } = power([500, 1500, 3_602_500, 3_603_500], [100, 200, 300, 400]);
  assert.equal([...grid.sectionStarts], [0, 7, 10]);
  assert.equal([...grid.sectionAnchors], [T0, T0 + 3_602_000]);
  assert.equal(bins, [50, 150, 200, 200, 200, 200, 100, 150, 350, 200]);
  assert.equal(coverage, [500, 1000, 1000, 1000, 1000, 1000, 500, 500, 1000, 500]);
});

test('keeps a gap of exactly 60 minutes inside one section', () => {
  const { grid, coverage } = power([0, 3_600_000], [100, 200]);
  assert.equal([...grid.sectionStarts], [0, 3601]);
  assert.is(sum(coverage), 6000);
  assert.is(coverage[3600], 1000);
});

test('clamps negative power and treats power above 3000 W as a spike of 0', () => {
  const { bins } = power([0, 1000, 2000, 3000], [-50, 3500, 3000, 250]);
  assert.equal(bins, [0, 0, 3000, 250]);
});

test('counts missing power as 0 W while its time stays covered', () => {
  const { bins, coverage } = power([0, 1000, 2000], [100, NaN, 300]);
  assert.equal(bins, [100, 0, 300]);
  assert.equal(coverage, [1000, 1000, 1000]);
});

test('holds the last sample for 1 s, or for the cap when that is shorter', () => {
  const { bins, coverage } = power([0, 2500], [100, 200]);
  assert.equal(bins, [100, 100, 150, 100]);
  assert.equal(coverage, [1000, 1000, 1000, 500]);
  const capped = power([0, 1000], [100, 200], { ...CANONICAL_DEFAULTS, holdCapMs: 500 });
  assert.equal(capped.bins, [50, 100]);
  assert.equal(capped.coverage, [500, 500]);
});

test('gives an empty grid and writes nothing for an empty series', () => {
  const empty = new Float64Array(0);
  const grid = fast.canonicalGrid(empty);
  assert.is(grid.length, 0);
  assert.equal([...grid.sectionStarts], [0]);
  assert.equal([...grid.sectionAnchors], []);
  assert.equal([...grid.coverage], []);
  const out = new Float64Array(0);
  fast.canonicalPower(empty, empty, grid, CANONICAL_DEFAULTS, out);
  fast.canonicalSpeed(empty, empty, empty, grid, CANONICAL_DEFAULTS, out);
  fast.heldIntegrals(empty, empty, grid, CANONICAL_DEFAULTS, false, out, new Float64Array(0));
  assert.equal(reference.canonicalGrid(empty), grid);
});

test('integrates other metrics with weights that leave missing samples out, or count them as 0', () => {
  const timestamps = times([500, 1500, 2500]);
  const values = Float64Array.from([10, NaN, 30]);
  const grid = fast.canonicalGrid(timestamps);
  const sums = new Float64Array(grid.length).fill(99); // overwritten, not added to
  const weights = new Float64Array(grid.length).fill(99);
  fast.heldIntegrals(timestamps, values, grid, CANONICAL_DEFAULTS, false, sums, weights);
  assert.equal([...sums], [5, 5, 15, 15]);
  assert.equal([...weights], [0.5, 0.5, 0.5, 0.5]);
  fast.heldIntegrals(timestamps, values, grid, CANONICAL_DEFAULTS, true, sums, weights);
  assert.equal([...sums], [5, 5, 15, 15]);
  assert.equal([...weights], [0.5, 1, 1, 0.5]);
});

test('rejects unordered timestamps, a grid that does not match, and a hold cap beyond the section gap', () => {
  assert.throws(() => fast.canonicalGrid(times([0, 2000, 2000])), /strictly increasing; sample 2/);
  const timestamps = times([0, 1000, 20_000]);
  const grid = fast.canonicalGrid(timestamps, { ...CANONICAL_DEFAULTS, sectionGapMs: 10_000 });
  const out = new Float64Array(grid.length);
  assert.throws(() => fast.canonicalPower(timestamps, new Float64Array(3), grid, CANONICAL_DEFAULTS, out), /grid does not match/);
  assert.throws(() => fast.canonicalPower(timestamps, new Float64Array(2), grid, CANONICAL_DEFAULTS, out), /2 values for 3 timestamps/);
  assert.throws(() => fast.canonicalGrid(timestamps, { ...CANONICAL_DEFAULTS, sectionGapMs: 1000 }), /sectionGapMs \(1000\) must be at least holdCapMs/);
});

test('treats a channel speed above the cap as 0, and a distance jump above it as a spike that takes its neighbours\' median', () => {
  // Default cap: 60 m/s (other sports).
  assert.equal(speed([0, 1000, 2000, 3000], [5, 1e12, 150, 100], null), [5, 0, 0, 0]);
  // 0 → 1,000 km in the first second (a section's first bin has no window: 0), then 10 m/s; the last sample has no pair.
  assert.equal(speed([0, 1000, 2000, 3000], null, [0, 1e6, 1e6 + 10, 1e6 + 20]), [0, 10, 10, 0]);
  // Mid-run: 13.41 m/s in one second of a 3 m/s run is above the foot cap (11 m/s) and takes the median 3.
  const foot = { ...CANONICAL_DEFAULTS, maxSpeedMps: 11 };
  const metres = [0, 3, 6, 9, 22.41, 25.41, 28.41, 31.41];
  assert.equal(speedWith(foot, metres.map((_, i) => i * 1000), null, metres), [3, 3, 3, 3, 3, 3, 3, 0]);
});

test('replaces a distance-derived bin that jumps out of its neighbours\' range and back faster than 3 m/s² by their median', () => {
  const second = (n: number) => Array.from({ length: n }, (_, i) => i * 1000);
  // 3 m/s with a GPS jump of +10 m over two seconds (8 m/s, 8 m/s): both take the window's median, 3 m/s.
  assert.equal(speed(second(10), null, [0, 3, 6, 9, 17, 25, 28, 31, 34, 37]), [3, 3, 3, 3, 3, 3, 3, 3, 3, 0]);
  // A drop-out (0) and its catch-up (6) at 3 m/s stay: 3 m/s from the median is not faster than an athlete.
  assert.equal(speed(second(8), null, [0, 3, 6, 6, 12, 15, 18, 21]), [3, 3, 0, 6, 3, 3, 3, 0]);
  // At 10 m/s the same drop-out and catch-up are out-and-back spikes: both take 10, as does a real stop's edge? No:
  // a stop (10 → 0 and staying there) keeps its edge, the window's median follows the data on each side.
  assert.equal(speed(second(8), null, [0, 10, 20, 20, 40, 50, 60, 70]), [10, 10, 10, 10, 10, 10, 10, 0]);
  assert.equal(speed(second(8), null, [0, 10, 20, 30, 30, 30, 30, 30]), [10, 10, 10, 0, 0, 0, 0, 0]);
  // A partly known bin (beside a pause, held for part of its second) is only held to the cap.
  assert.equal(speed([0, 1000, 2000, 2500, 12_000, 13_000, 14_000], null, [0, 3, 6, 7.5, 20, 23, 26]), [3, 3, 1.5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 3, 0]);
});

test('derives speed from distance so a window mean is its distance difference over its duration', () => {
  const distance = [0, 5, 12, 20, 29, 40];
  const bins = speed([0, 1000, 2000, 3000, 4000, 5000], null, distance);
  // Samples 0–4 take the distance rate to the next; the last sample has no next: unknown, 0.
  assert.equal(bins, [5, 7, 8, 9, 11, 0]);
  for (let a = 0; a < 5; a++) {
    for (let b = a + 1; b <= 5; b++) {
      const mean = sum(bins.slice(a, b)) / (b - a);
      assert.ok(Math.abs(mean - (distance[b]! - distance[a]!) / (b - a)) < 1e-12, `window [${a}, ${b})`);
    }
  }
});

test('uses the device speed channel when the series has one, whatever the distance says', () => {
  assert.equal(speed([0, 1000, 2000, 3000], [9, 9.5, NaN, 9], [0, 5, 12, 20]), [9, 9.5, 0, 9]);
  // A channel that never leaves 0 measured nothing: the distance speaks.
  assert.equal(speed([0, 1000, 2000, 3000, 4000], [0, 0, 0, 0, NaN], [0, 3, 6, 9, 12]), [3, 3, 3, 3, 0]);
});

test('rounds speeds to 1e-9 m/s so a value on a 0.01 m/s edge stays on it', () => {
  // 1.19 m over 1 s from distances whose difference is not 1.19 in binary: exactly 1.19 after rounding.
  const bins = speed([0, 1000, 2000], null, [0.1, 1.29, 2.48]);
  assert.equal(bins, [1.19, 1.19, 0]);
});

test('holds distance-derived speed across smart-recording gaps, preserving distance', () => {
  assert.equal(speed([0, 3000, 6000], null, [0, 30, 45]), [10, 10, 10, 5, 5, 5, 0]);
});

test('makes a distance that drops back monotone with a running max, then smooths the flat stretch it leaves', () => {
  // Running max 0, 10, 20, 20, 20, 25, 35: 10, 10, 0, 0, 5, 10 m/s; the two 0 s lie 5 m/s from their window's median.
  assert.equal(speed([0, 1000, 2000, 3000, 4000, 5000, 6000], null, [0, 10, 20, 5, 15, 25, 35]), [10, 10, 5, 5, 5, 10, 0]);
});

test('bridges missing distance values within the hold cap; beyond it the speed is unknown (0)', () => {
  const second = (n: number) => Array.from({ length: n }, (_, i) => i * 1000);
  // 0 → 30 m over 3 s: the two samples without distance share the 10 m/s; after 40 m no distance follows.
  assert.equal(speed(second(6), null, [0, NaN, NaN, 30, 40, NaN]), [10, 10, 10, 10, 0, 0]);
  // 0 → 70 m over 7 s is longer than the 5 s cap: unknown.
  assert.equal(speed(second(9), null, [0, NaN, NaN, NaN, NaN, NaN, NaN, 70, 80]), [0, 0, 0, 0, 0, 0, 0, 10, 0]);
});

test('fills a pause longer than the cap with 0', () => {
  assert.equal(speed([0, 1000, 11_000, 12_000], null, [0, 10, 20, 30]), [10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10, 0]);
});

test('takes speed from the speed channel without distance (missing and negative → 0)', () => {
  const offsets = [0, 1000, 2000, 3000];
  assert.equal(speed(offsets, [3, NaN, -1, 4.5], null), [3, 0, 0, 4.5]);
  assert.equal(speed(offsets, [3, NaN, -1, 4.5], [NaN, 7, NaN, NaN]), [3, 0, 0, 4.5]);
  assert.equal(speed(offsets, null, null), [0, 0, 0, 0]);
});

// ---- parity with the reference twin ----


interface Series {
  options: CanonicalOptions;
  timestamps: Float64Array;
  power: Float64Array;
  speed: Float64Array | null;
  distance: Float64Array | null;
}

function randomSeries(next: () => number): Series {
  const options: CanonicalOptions = next() < 0.7
    ? CANONICAL_DEFAULTS
    : (() => {
      const holdCapMs = [500, 1000, 2000, 3000, 7000][Math.floor(next() * 5)]!;
      return { holdCapMs, sectionGapMs: [holdCapMs, 60_000, 3_600_000][Math.floor(next() * 3)]!, maxPowerW: 100 + next() * 3000, maxSpeedMps: 5 + next() * 100, maxAccelerationMps2: 0.5 + next() * 5 };
    })();
  const n = next() < 0.05 ? Math.floor(next() * 3) : Math.floor(next() * 400);
  const timestamps = new Float64Array(n);
  let t = 1_500_000_000_000 + Math.floor(next() * 1e11); // any millisecond
  for (let i = 0; i < n; i++) {
    timestamps[i] = t;
    const r = next();
    if (r < 0.5) t += 1000;
    else if (r < 0.6) t += next() < 0.5 ? 250 : 500;
    else if (r < 0.72) t += 1 + Math.floor(next() * 3000);
    else if (r < 0.8) t += options.holdCapMs + Math.floor(next() * 3) - 1;
    else if (r < 0.92) t += options.holdCapMs + 1 + Math.floor(next() * 120_000);
    else if (r < 0.955) t += options.sectionGapMs + 1 + Math.floor(next() * 10 * 3_600_000);
    else if (r < 0.96) t += options.sectionGapMs; // no split, but up to 3 600 bins: kept rare for the reference's sake
    else t += 1 + Math.floor(next() * 10_000);
  }
  const withRuns = (value: () => number, nanRun: number): Float64Array => {
    const values = new Float64Array(n);
    let missing = 0;
    for (let i = 0; i < n; i++) {
      if (missing === 0 && next() < nanRun) missing = 1 + Math.floor(next() * 20);
      values[i] = missing > 0 ? NaN : value();
      if (missing > 0) missing--;
    }
    return values;
  };
  const power = withRuns(() => {
    const r = next();
    if (r < 0.03) return -next() * 100;
    if (r < 0.06) return options.maxPowerW + next() * 2000;
    if (r < 0.07) return options.maxPowerW;
    return next() * 500;
  }, 0.04);
  let metres = next() * 100;
  const shape = next();
  const distance = shape < 0.2 ? null
    : shape < 0.25 ? withRuns(() => 5, 1) // all missing
      : withRuns(() => (next() < 0.01 ? (metres = next() * metres) : next() < 0.01 ? (metres += 1e6) : (metres += next() * 15)), 0.04);
  if (distance !== null && shape >= 0.25 && shape < 0.3 && n > 0) { // exactly one distance value
    distance.fill(NaN);
    distance[Math.floor(next() * n)] = 42;
  }
  const speed = next() < 0.3 ? null : withRuns(() => (next() < 0.05 ? -next() : next() < 0.02 ? 1e12 : next() * 15), 0.05);
  return { options, timestamps, power, speed, distance };
}

/** Exact equality, element by element (Object.is, so −0 and NaN would show), naming the first difference. */
function assertSame(actual: ArrayLike<number>, expected: ArrayLike<number>, what: string): void {
  assert.is(actual.length, expected.length, `${what}: length`);
  for (let k = 0; k < actual.length; k++) {
    if (!Object.is(actual[k], expected[k])) assert.unreachable(`${what}: bin ${k} is ${actual[k]}, the reference ${expected[k]}`);
  }
}

function assertGridsSame(actual: CanonicalGrid, expected: CanonicalGrid, what: string): void {
  assert.is(actual.length, expected.length, `${what}: length`);
  assertSame(actual.sectionStarts, expected.sectionStarts, `${what} sectionStarts`);
  assertSame(actual.sectionAnchors, expected.sectionAnchors, `${what} sectionAnchors`);
  assertSame(actual.coverage, expected.coverage, `${what} coverage`);
}

/** Fast and reference on one series: grid, power, speed and held integrals must be bit-identical. */
function assertParity(series: Series, what: string): { grid: CanonicalGrid; power: Float64Array; speed: Float64Array } {
  const { options, timestamps } = series;
  const grid = fast.canonicalGrid(timestamps, options);
  assertGridsSame(grid, reference.canonicalGrid(timestamps, options), what);
  const bins = () => new Float64Array(grid.length);
  const [power, referencePower] = [bins(), bins()];
  fast.canonicalPower(timestamps, series.power, grid, options, power);
  reference.canonicalPower(timestamps, series.power, grid, options, referencePower);
  assertSame(power, referencePower, `${what} power`);
  const [speed, referenceSpeed] = [bins(), bins()];
  fast.canonicalSpeed(timestamps, series.speed, series.distance, grid, options, speed);
  reference.canonicalSpeed(timestamps, series.speed, series.distance, grid, options, referenceSpeed);
  assertSame(speed, referenceSpeed, `${what} speed`);
  for (const missingAsZero of [false, true]) {
    const [sums, weights, referenceSums, referenceWeights] = [bins(), bins(), bins(), bins()];
    fast.heldIntegrals(timestamps, series.power, grid, options, missingAsZero, sums, weights);
    reference.heldIntegrals(timestamps, series.power, grid, options, missingAsZero, referenceSums, referenceWeights);
    assertSame(sums, referenceSums, `${what} sums (missingAsZero ${missingAsZero})`);
    assertSame(weights, referenceWeights, `${what} weights (missingAsZero ${missingAsZero})`);
  }
  return { grid, power, speed };
}

test('equals the reference twin exactly on 500 random series with gaps, sections, missing runs and spikes', () => {
  const next = random(20240501);
  for (let run = 0; run < 500; run++) assertParity(randomSeries(next), `random series ${run}`);
});

test('covers each sample for its hold and preserves total work on random series', () => {
  const next = random(7);
  for (let run = 0; run < 200; run++) {
    const series = randomSeries(next);
    const { options, timestamps } = series;
    const { grid, power } = assertParity(series, `random series ${run}`);
    let heldMs = 0;
    let work = 0; // J
    for (let i = 0; i < timestamps.length; i++) {
      const holdMs = i === timestamps.length - 1 ? Math.min(1000, options.holdCapMs) : Math.min(timestamps[i + 1]! - timestamps[i]!, options.holdCapMs);
      const watts = series.power[i]!;
      heldMs += holdMs;
      if (watts >= 0 && watts <= options.maxPowerW) work += (watts * holdMs) / 1000;
    }
    assert.ok(grid.coverage.every((ms) => Number.isInteger(ms) && ms >= 0 && ms <= 1000), `run ${run}: coverage whole ms in 0..1000`);
    assert.is(sum(grid.coverage), heldMs, `run ${run}: coverage = held time`);
    assert.ok(Math.abs(sum(power) - work) <= 1e-9 * Math.max(1, work), `run ${run}: work ${sum(power)} J vs ${work} J`);
  }
});

// ---- real rides ----

const rides = new Map<string, Promise<Series>>();

/** A sweatpy fixture's first activity, decoded once per run (decoding takes longer than the kernels). */
function rideSeries(file: string): Promise<Series> {
  let ride = rides.get(file);
  if (ride === undefined) rides.set(file, (ride = decodeRide(file)));
  return ride;
}

async function decodeRide(file: string): Promise<Series> {
  const decoded = await decodeFit(new Uint8Array(readFileSync(path.join(FIXTURES, 'fit', 'sweatpy', file))));
  const { timestamps, metrics } = decoded.activities[0]!.series;
  const column = (name: string) => metrics.find((metric) => metric.name === name)?.values ?? null;
  return {
    options: CANONICAL_DEFAULTS,
    timestamps,
    power: column('power') ?? new Float64Array(timestamps.length).fill(NaN),
    speed: column('speed'),
    distance: column('distance'),
  };
}

test('equals the reference twin exactly on four real rides', async () => {
  for (const file of ['4078723797.fit', '2020-06-01-16-52-40.fit', '6449921903_ACTIVITY.fit', '4801048867.fit']) {
    assertParity(await rideSeries(file), file);
  }
});

test('preserves the device total work and max power of a 1 Hz ride (4078723797)', async () => {
  // Measured: 8 357 samples → 8 357 bins; Σ bins = 1 830 773 J against the device's total_work 1 830 776 J
  // (−0.0002 %); max bin 1022 W = the device's max_power.
  const { grid, power } = assertParity(await rideSeries('4078723797.fit'), '4078723797');
  assert.is(grid.length, 8357);
  assert.ok(Math.abs(sum(power) - 1_830_776) / 1_830_776 < 0.005, `total work ${sum(power)} J`);
  assert.is(Math.max(...power), 1022);
});

test('fills the 32 s pause of a short ride with uncovered zeros after the 5 s hold (2020-06-01-16-52-40)', async () => {
  const series = await rideSeries('2020-06-01-16-52-40.fit');
  const { grid, power } = assertParity(series, '2020-06-01-16-52-40');
  // 96 samples at 1 Hz with one 32 s gap after sample 53: 95 s of samples + 1 s for the last + 31 s of gap.
  assert.is(grid.length, 127);
  const pauseBin = (series.timestamps[53]! - grid.sectionAnchors[0]!) / 1000;
  assert.equal([...grid.coverage.subarray(pauseBin, pauseBin + 32)], [...Array(5).fill(1000), ...Array(27).fill(0)]);
  assert.ok(power.subarray(pauseBin + 5, pauseBin + 32).every((watts) => watts === 0));
});

test('adds the distance-derived speed bins of a gap-free ride up to its distance, spikes aside (4801048867)', async () => {
  // Without its speed channel the ride's speed comes from distance: every sample but the last takes the
  // rate to the next, so bins 0 … n−2 add up to the distance ridden, less what the spike filter removed.
  const series = { ...(await rideSeries('4801048867.fit')), speed: null };
  const { speed } = assertParity(series, '4801048867 without its speed channel');
  const distance = series.distance!;
  const n = distance.length;
  const ridden = distance[n - 1]! - distance[0]!;
  const summed = sum(speed.subarray(0, n - 1));
  assert.ok(summed <= ridden + 1e-6 && summed > 0.995 * ridden, `${summed} m vs ${ridden} m`);
});

test('takes a real ride\'s speed from its channel, not its distance (4801048867)', async () => {
  const series = await rideSeries('4801048867.fit');
  const { grid, speed } = assertParity(series, '4801048867');
  const channel = series.speed!;
  // 1 Hz on whole seconds: each bin is its sample's channel value (rounded to 1e-9 m/s).
  for (let i = 0; i < channel.length; i++) {
    const bin = (series.timestamps[i]! - grid.sectionAnchors[0]!) / 1000;
    if (Number.isInteger(bin) && grid.coverage[bin] === 1000 && (i + 1 === channel.length || series.timestamps[i + 1]! - series.timestamps[i]! === 1000)) {
      assert.ok(Math.abs(speed[bin]! - (channel[i]! > 0 ? channel[i]! : 0)) <= 1e-9, `sample ${i}: bin ${speed[bin]} vs channel ${channel[i]}`);
    }
  }
});

test.run();
