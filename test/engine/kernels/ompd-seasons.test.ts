/**
 * The intensity-duration fit (engine/analysis/intensity-model.ts: fitting points, then
 * kernels/ompd.ts fitMaximalEfforts) on seasons generated from known OmPD truths
 * (test/support/ompd-seasons.ts: seeded, maximal efforts at a spread of durations with easy riding or
 * running between them), held to ANALYTICS.md §6: CP/CS within 1 %, W′/D′ within 5 %, Pmax within 5 %, the
 * curve within 2 % of the truth from 10 s to 60 min; and the curve keeps declining beyond 30 minutes when
 * the window holds no long effort. bench/ompd-seasons.bench.ts prints the same seasons' error table.
 */
import { test } from '../../support/uvu.js';
import * as assert from 'uvu/assert';
import { fitIntensityModel } from '../../../engine/analysis/intensity-model.js';
import { A, A_PRIOR_RATIO, CP, PMAX, W_PRIME, ompdAt } from '../../../engine/kernels/ompd.js';
import { benchSeasons, generateSeason, worstCurveError, type Season } from '../../support/ompd-seasons.js';

/** ANALYTICS.md §6. */
const TOLERANCE = { cp: 0.01, wPrime: 0.05, pmax: 0.05, curve: 0.02 };

function fit(season: Season): Float64Array {
  const result = fitIntensityModel({
    metric: season.metric, curveDurations: season.curveDurations, curveValues: season.curveValues,
    effortDurations: new Float64Array(0), effortValues: new Float64Array(0), hasLongActivity: true,
  });
  assert.ok(result.params !== null, 'a season has enough data');
  return Float64Array.from(result.params!);
}

const pct = (value: number) => `${(100 * value).toFixed(2)} %`;

function holdsTolerances(season: Season, name: string, curveTo: number): void {
  const p = fit(season);
  const where = `${name} (truth ${[...season.truth].map((v) => v.toPrecision(4))}, fitted ${[...p].map((v) => v.toPrecision(4))})`;
  const error = (k: number) => p[k]! / season.truth[k]! - 1;
  assert.ok(Math.abs(error(CP)) <= TOLERANCE.cp, `CP/CS ${pct(error(CP))}, ${where}`);
  assert.ok(Math.abs(error(W_PRIME)) <= TOLERANCE.wPrime, `W′/D′ ${pct(error(W_PRIME))}, ${where}`);
  assert.ok(Math.abs(error(PMAX)) <= TOLERANCE.pmax, `Pmax ${pct(error(PMAX))}, ${where}`);
  const curve = worstCurveError(p, season.truth, 10, curveTo);
  assert.ok(Math.abs(curve.error) <= TOLERANCE.curve, `curve ${pct(curve.error)} at ${curve.at} s, ${where}`);
}

test('on 12 power and 4 speed seasons from known truths, with and without sample noise, CP/CS within 1 %, W′/D′ and Pmax within 5 %, the curve within 2 % from 10 s to 60 min', () => {
  const seasons = benchSeasons();
  assert.is(seasons.filter((s) => s.metric === 'power').length, 12);
  assert.is(seasons.filter((s) => s.metric === 'speed').length, 4);
  assert.ok(seasons.some((s) => s.noisy) && seasons.some((s) => !s.noisy));
  for (const [k, season] of seasons.entries()) holdsTolerances(season, `${season.metric} season ${k}${season.noisy ? ' (noisy)' : ''}`, 3600);
});

test('holds the same tolerances on 24 more seasons whose only efforts beyond 20 minutes are easy rides and runs (the curve to 30 min)', () => {
  for (let seed = 201; seed <= 224; seed++) {
    const metric = seed % 4 === 0 ? 'speed' : 'power';
    holdsTolerances(generateSeason(seed, { metric, noisy: seed % 2 === 1, longEfforts: false }), `${metric} seed ${seed}`, 1800);
  }
});

test('the curve keeps declining beyond 30 minutes when the window holds no long effort: A is the documented prior', () => {
  for (const metric of ['power', 'speed'] as const) {
    const season = generateSeason(301, { metric, noisy: true, longEfforts: false });
    const p = fit(season);
    assert.ok(Math.abs(p[A]! - A_PRIOR_RATIO * p[CP]!) < 1e-9 * p[CP]!, `${metric}: A ${p[A]} is ${A_PRIOR_RATIO} × CP ${p[CP]}`);
    let previous = ompdAt(p, 1800);
    for (let t = 1800 + 300; t <= 6 * 3600; t += 300) {
      const value = ompdAt(p, t);
      assert.ok(value < previous, `${metric}: the curve at ${t} s (${value}) is below the one 5 minutes earlier (${previous})`);
      previous = value;
    }
    assert.ok(ompdAt(p, 6 * 3600) < 0.85 * p[CP]!, `${metric}: 6 h ${ompdAt(p, 6 * 3600)} well under CP ${p[CP]}`);
  }
});

test('a maximal hour identifies the athlete\'s own decline', () => {
  for (let seed = 1; seed <= 4; seed++) {
    const season = generateSeason(seed, { metric: 'power', noisy: false });
    const p = fit(season);
    assert.ok(Math.abs(p[A]! / season.truth[A]! - 1) < 0.15, `seed ${seed}: A ${p[A]} for ${season.truth[A]}`);
  }
});

test.run();
