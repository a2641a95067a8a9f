/**
 * The real rides' analytics against their goldens (test/support/analytics-golden.ts): the reference twins
 * still produce the pinned files, and the fast path the engine serves (engine/analysis/) equals them
 * exactly — values bit for bit, starts to the second.
 */
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { AWD_RESOLUTION, histogramOf } from '../../engine/analysis/activity-analysis.js';
import { awdRows } from '../../engine/analysis/accumulated-work.js';
import { canonicalSeries, longestSection, metricValues, type CurveMetric } from '../../engine/analysis/canonical-series.js';
import { afterCurves, meanMaxCurve, prefixOf, type MetricCurve } from '../../engine/analysis/curves.js';
import { DEFAULT_DURATIONS, fullGrid } from '../../engine/kernels/duration-grid.js';
import {
  GOLDEN_AFTER, GOLDEN_RIDES, decodeRide, readGolden, referenceGolden, writeGolden, type CurveRow, type RideGolden,
} from '../support/analytics-golden.js';

const update = process.env.UPDATE_GOLDEN === '1';

function curveRows(curve: MetricCurve): CurveRow[] {
  return Array.from(curve.durations, (duration, j) => ({ duration, value: curve.values[j]!, start: new Date(curve.starts[j]!).toISOString() }));
}

for (const file of GOLDEN_RIDES) {
  test(`${file}: the reference twins give the pinned golden`, async () => {
    const computed = referenceGolden(file, await decodeRide(file));
    if (update) writeGolden(computed);
    const golden = readGolden(file);
    assert.ok(golden, `no golden for ${file}; run UPDATE_GOLDEN=1 npm test -- analytics-golden`);
    assert.equal(computed, golden);
  });

  test(`${file}: the engine's fast path equals the golden exactly`, async () => {
    const golden = readGolden(file) as RideGolden;
    const series = canonicalSeries(await decodeRide(file));
    assert.is(series.grid.length, golden.bins);
    for (const metric of ['power', 'speed'] as CurveMetric[]) {
      const values = metricValues(series, metric);
      const expected = golden[metric];
      assert.is(values === null, expected === null, `${metric} presence`);
      if (values === null || expected === null) continue;
      const prefix = prefixOf(values);
      assert.equal(curveRows(meanMaxCurve(series, prefix, Int32Array.from(DEFAULT_DURATIONS))), expected.default_grid, `${metric} default grid`);
      assert.equal(curveRows(meanMaxCurve(series, prefix, fullGrid(longestSection(series.grid)))), expected.full_grid, `${metric} full grid`);
      const rows = awdRows(histogramOf(values, series.grid.coverage, AWD_RESOLUTION[metric]), AWD_RESOLUTION[metric]);
      assert.equal(Array.from(rows.intensity, (intensity, i) => ({ intensity, duration: rows.duration[i]! })), expected.awd, `${metric} AWD`);
      const states = GOLDEN_AFTER[metric];
      const after = afterCurves(series, prefix, Int32Array.from(DEFAULT_DURATIONS), states.map((state) => (metric === 'power' ? state * 1000 : state)));
      const byState: Record<string, CurveRow[]> = {};
      after.forEach((curve, index) => {
        if (curve !== null) byState[String(states[index])] = curveRows(curve);
      });
      assert.equal(byState, expected.after, `${metric} after states`);
    }
  });
}

test('4078723797.fit: the curve and AWD agree with the device (max 1022 W, 8,357 s at 1 Hz without gaps)', () => {
  const golden = readGolden('4078723797.fit') as RideGolden;
  const power = golden.power!;
  assert.is(power.default_grid[0]!.duration, 1);
  assert.is(power.default_grid[0]!.value, 1022);
  // AWD at 0 W is all recorded time: 8,357 one-second samples without gaps.
  assert.is(power.awd[power.awd.length - 1]!.intensity, 0);
  assert.is(power.awd[power.awd.length - 1]!.duration, 8357);
  assert.is(power.awd[0]!.intensity, 1022);
  // The full grid ends at its last 60 s step within the ride; no duration beyond the ride is listed.
  assert.is(power.full_grid[power.full_grid.length - 1]!.duration, 8340);
  // 8,340 s cover all but 17 s of the ride, so their best mean is close to the device's average of 219 W.
  assert.ok(Math.abs(power.full_grid[power.full_grid.length - 1]!.value - 219) < 2);
  // after=0 is the plain curve; later states can only be lower.
  assert.equal(power.after['0'], power.default_grid);
  for (const row of power.after['1000']!) {
    const plain = power.default_grid.find((candidate) => candidate.duration === row.duration)!;
    assert.ok(row.value <= plain.value, `after 1000 kJ at ${row.duration} s`);
  }
});

test.run();
