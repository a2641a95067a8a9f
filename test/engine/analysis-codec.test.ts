/**
 * The stored analysis cache (engine/analysis/analysis-codec.ts) is lossless: every curve value, start and
 * histogram bin of the real fixture rides and of random rides (fractional power, irregular samples, speed
 * channels) decodes to the bits that were encoded, so longitudinal curves folded from stored caches equal
 * those folded from the computed ones — which is what the first layout (THA1, the arrays stored verbatim)
 * served. A blob of the first layout is told apart by its version and never decoded as the current one.
 */
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { ANALYSIS_VERSION, analyzeActivity, analyzeRecorded } from '../../engine/analysis/activity-analysis.js';
import {
  analysisVersionOf, decodeAnalysis, decodeAnalysisPart, describeAnalysis, encodeAnalysis, type ActivityAnalysis,
} from '../../engine/analysis/analysis-codec.js';
import { canonicalSeries, CURVE_METRICS } from '../../engine/analysis/canonical-series.js';
import { emptyBest, foldCurve, type BestCurve, type MetricCurve } from '../../engine/analysis/curves.js';
import type { RecordedSeries } from '../../engine/ingest/series.js';
import { DEFAULT_DURATIONS, fullGrid } from '../../engine/kernels/duration-grid.js';
import { GOLDEN_RIDES, decodeRide } from '../support/analytics-golden.js';
import { syntheticSeries } from '../support/activities.js';
import { random } from '../support/kernels.js';

/** A ride of `rows` samples: whole or fractional watts, 1 Hz or irregular, distance or a speed channel. */
function randomRide(seed: number, rows: number): RecordedSeries {
  const next = random(seed);
  const fractional = next() < 0.5;
  const irregular = next() < 0.5;
  const withDistance = next() < 0.5;
  let t = 1_700_000_000_000 + Math.floor(next() * 1000);
  let metres = 0;
  const timestamps = new Float64Array(rows);
  const power = new Float64Array(rows);
  const distance = new Float64Array(rows);
  const speed = new Float64Array(rows);
  for (let i = 0; i < rows; i++) {
    timestamps[i] = t;
    t += irregular ? 250 + Math.floor(next() * 3000) + (next() < 0.002 ? 4_000_000 : 0) : 1000;
    const watts = next() < 0.1 ? 0 : 150 + 300 * next() * next();
    power[i] = fractional ? watts : Math.round(watts);
    speed[i] = Math.round((3 + 0.03 * watts) * 1000) / 1000;
    metres += speed[i]!;
    distance[i] = Math.round(metres * 100) / 100;
  }
  const series = syntheticSeries(0, { rows, metrics: { power: (i) => power[i]!, ...(withDistance ? { distance: (i) => distance[i]! } : { speed: (i) => speed[i]! }) } });
  return { ...series, timestamps };
}

async function rides(): Promise<{ name: string; analysis: ActivityAnalysis }[]> {
  const out: { name: string; analysis: ActivityAnalysis }[] = [];
  for (const file of GOLDEN_RIDES) out.push({ name: file, analysis: analyzeActivity(canonicalSeries(await decodeRide(file))) });
  for (let seed = 1; seed <= 12; seed++) out.push({ name: `random ride ${seed}`, analysis: analyzeActivity(canonicalSeries(randomRide(seed, 600 + seed * 500))) });
  return out;
}

function sameBits(actual: ArrayLike<number>, expected: ArrayLike<number>, what: string): void {
  assert.is(actual.length, expected.length, `${what}: length`);
  for (let j = 0; j < expected.length; j++) {
    if (!Object.is(actual[j], expected[j])) assert.unreachable(`${what}[${j}]: ${actual[j]} where ${expected[j]} was encoded`);
  }
}

function fold(curves: (MetricCurve | undefined)[], durations: Int32Array): BestCurve {
  const best = emptyBest(durations);
  curves.forEach((curve, holder) => {
    if (curve) foldCurve(best, curve, holder);
  });
  return best;
}

test('every curve value, start and histogram bin of real and random rides decodes to the bits encoded', async () => {
  for (const { name, analysis } of await rides()) {
    const bytes = encodeAnalysis(analysis);
    const decoded = decodeAnalysis(bytes);
    assert.is(decoded.version, ANALYSIS_VERSION);
    for (const metric of CURVE_METRICS) {
      const curve = analysis.curves[metric];
      assert.is(decoded.curves[metric] === undefined, curve === undefined, `${name} ${metric} curve presence`);
      if (curve) {
        for (const field of ['durations', 'values', 'starts'] as const) sameBits(decoded.curves[metric]![field], curve[field], `${name} ${metric} ${field}`);
        sameBits(decodeAnalysisPart(bytes, 'curve', metric)!.values, curve.values, `${name} ${metric} values alone`);
      }
      const awd = analysis.awd[metric];
      if (awd) sameBits(decoded.awd[metric]!, awd, `${name} ${metric} AWD`);
      else assert.is(decodeAnalysisPart(bytes, 'awd', metric), null);
    }
    assert.is(describeAnalysis(bytes).reduce((sum, part) => sum + part.bytes, 0), bytes.byteLength, `${name}: the parts account for every byte`);
  }
});

test('longitudinal curves folded from stored caches equal those from the computed caches, bit for bit, on and between grid points', async () => {
  const all = await rides();
  const decoded = all.map(({ analysis }) => decodeAnalysis(encodeAnalysis(analysis)));
  const between = Int32Array.from([1, 3, 7, 45, 61, 187, 299, 301, 777, 1234, 2001, 3599, 3601, 5000, 7777, 10_001]);
  for (const metric of CURVE_METRICS) {
    for (const durations of [Int32Array.from(DEFAULT_DURATIONS), fullGrid(30_000), between]) {
      const expected = fold(all.map(({ analysis }) => analysis.curves[metric]), durations);
      const actual = fold(decoded.map((analysis) => analysis.curves[metric]), durations);
      sameBits(actual.values, expected.values, `${metric} values`);
      sameBits(actual.starts, expected.starts, `${metric} starts`);
      sameBits(actual.holders, expected.holders, `${metric} holders`);
    }
  }
});

test('values, starts and bins that are not whole numbers are stored as their float64 bits', () => {
  const analysis: ActivityAnalysis = {
    version: ANALYSIS_VERSION,
    curves: { speed: { durations: Int32Array.of(1, 2, 9), values: Float64Array.of(0.1, -0, Number.MAX_VALUE), starts: Float64Array.of(0.5, 1e300, -3) } },
    awd: { power: Float64Array.of(0.25, 1000, 7), speed: Float64Array.of(3000, 0, 1000) },
  };
  const decoded = decodeAnalysis(encodeAnalysis(analysis));
  sameBits(decoded.curves.speed!.values, analysis.curves.speed!.values, 'values');
  sameBits(decoded.curves.speed!.starts, analysis.curves.speed!.starts, 'starts');
  sameBits(decoded.awd.power!, analysis.awd.power!, 'power bins');
  sameBits(decoded.awd.speed!, analysis.awd.speed!, 'speed bins');
  assert.is(decoded.curves.power, undefined);
});

test('the load numbers of real and random rides decode to the bits encoded, alone or with the rest', async () => {
  const recorded = [...await Promise.all(GOLDEN_RIDES.map((file) => decodeRide(file))), ...Array.from({ length: 6 }, (_, k) => randomRide(k + 1, 900 + 400 * k))];
  for (const [index, ride] of recorded.entries()) {
    const analysis = analyzeRecorded(ride, 'cycling.road');
    const numbers = analysis.numbers!;
    const bytes = encodeAnalysis(analysis);
    for (const decoded of [decodeAnalysis(bytes).numbers!, decodeAnalysisPart(bytes, 'numbers', 'power')!]) {
      sameBits([decoded.recordedS, decoded.movingS, decoded.workJ ?? NaN], [numbers.recordedS, numbers.movingS, numbers.workJ ?? NaN], `ride ${index} scalars`);
      for (const metric of CURVE_METRICS) {
        assert.is(decoded.fourth[metric] === undefined, numbers.fourth[metric] === undefined, `ride ${index} ${metric} presence`);
        if (numbers.fourth[metric]) sameBits([decoded.fourth[metric]!.sum, decoded.fourth[metric]!.count], [numbers.fourth[metric]!.sum, numbers.fourth[metric]!.count], `ride ${index} ${metric}`);
      }
      if (numbers.heartRate === null) assert.is(decoded.heartRate, null);
      else {
        sameBits(decoded.heartRate!.bpm, numbers.heartRate.bpm, `ride ${index} heart rates`);
        sameBits(decoded.heartRate!.ms, numbers.heartRate.ms, `ride ${index} heart-rate time`);
      }
    }
  }
  const none = decodeAnalysisPart(encodeAnalysis({ version: ANALYSIS_VERSION, curves: {}, awd: {} }), 'numbers', 'power');
  assert.is(none, null, 'a cache without numbers has none');
  const bare = { recordedS: 3, movingS: 2.5, workJ: null, fourth: {}, heartRate: null };
  assert.equal(decodeAnalysis(encodeAnalysis({ version: ANALYSIS_VERSION, curves: {}, awd: {}, numbers: bare })).numbers, bare);
});

test('exact heart rates decode to their bits: whole, half and quarter bpm as integers, thirds as float64 bits', () => {
  const cases = [
    Float64Array.of(60, 61, 150, 255),
    Float64Array.of(120, 120.5, 121, 180.5),
    Float64Array.of(99.25, 99.5, 99.75, 200),
    Float64Array.of(100, 100 + 1 / 3, 100 + 2 / 3, 0.1),
  ];
  for (const bpm of cases) {
    const heartRate = { bpm, ms: Float64Array.from(bpm, (_, i) => (i + 1) * 1000 + (i === 2 ? 500 : 0)) };
    const numbers = { recordedS: 10, movingS: 10, workJ: null, fourth: {}, heartRate };
    const decoded = decodeAnalysisPart(encodeAnalysis({ version: ANALYSIS_VERSION, curves: {}, awd: {}, numbers }), 'numbers', 'power')!;
    sameBits(decoded.heartRate!.bpm, bpm, `bpm ${[...bpm].join(', ')}`);
    sameBits(decoded.heartRate!.ms, heartRate.ms, `ms of ${[...bpm].join(', ')}`);
  }
});

test('a blob of the first layout reads as version 1 and is never decoded as the current one', () => {
  const header = new TextEncoder().encode(JSON.stringify({ version: 1, entries: [] }));
  const legacy = new Uint8Array(16 + header.length);
  legacy.set(new TextEncoder().encode('THA1'), 0);
  new DataView(legacy.buffer).setUint32(4, header.length, true);
  legacy.set(header, 8);
  assert.is(analysisVersionOf(legacy), 1);
  assert.is.not(analysisVersionOf(legacy), ANALYSIS_VERSION);
  assert.throws(() => decodeAnalysis(legacy), /not a THA2 cache/);
  assert.is(analysisVersionOf(new Uint8Array(16)), null);
  assert.is(analysisVersionOf(encodeAnalysis({ version: ANALYSIS_VERSION, curves: {}, awd: {} })), ANALYSIS_VERSION);
});

test.run();
