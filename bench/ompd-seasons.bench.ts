/**
 * Question: how close to the truth is the intensity-duration fit on seasons generated from known OmPD
 * parameters (test/support/ompd-seasons.ts: maximal efforts at a spread of durations, easy riding or
 * running between them, with and without sample noise), and how long does one fit take? Targets (issue
 * 25, ANALYTICS.md §6): CP/CS within 1 %, W′/D′ within 5 %, Pmax within 5 %, the curve within 2 % of the
 * truth from 10 s to 60 min.
 *
 * Time: engine/analysis/intensity-model.ts's fitIntensityModel (fitting points + fit) per call, the median
 * of 21 runs on each of the 16 seasons' curves, after 3 warm-up runs, against the fit kernel alone
 * (fitMaximalEfforts on the same fitting points, prepared outside the timing) in the same run: the rest is the
 * call's own work. Errors: one row per season (signed, %), then the worst of each column. Synthetic only:
 * the truths are known because the seasons are generated (bench/ompd-fit.bench.ts fits the corpus rides).
 */
import { fitIntensityModel } from '../engine/analysis/intensity-model.js';
import { A, CP, PMAX, POWER_BOUNDS, SPEED_BOUNDS, W_PRIME, fitMaximalEfforts } from '../engine/kernels/ompd.js';
import { fittingPoints, mergePoints } from '../engine/kernels/ompd-points.js';
import { share, type BenchResult } from './results.js';
import { benchSeasons, worstCurveError, type Season } from '../test/support/ompd-seasons.js';

export const question = 'OmPD fit on 12 power and 4 speed seasons from known truths: time per call, CP/W′/Pmax errors and the worst curve error 10 s–60 min';

function fitSeason(season: Season): Float64Array {
  const result = fitIntensityModel({
    metric: season.metric, curveDurations: season.curveDurations, curveValues: season.curveValues,
    effortDurations: new Float64Array(0), effortValues: new Float64Array(0), hasLongActivity: true,
  });
  return Float64Array.from(result.params ?? [Number.NaN, Number.NaN, Number.NaN, Number.NaN]);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
}

const pct = (value: number) => `${value >= 0 ? '+' : ''}${(100 * value).toFixed(2)} %`;

/** Median ms of 21 runs of `work`, after 3 warm-up runs. */
function timed(work: () => void): number {
  for (let w = 0; w < 3; w++) work();
  const runs: number[] = [];
  for (let k = 0; k < 21; k++) {
    const started = performance.now();
    work();
    runs.push(performance.now() - started);
  }
  return median(runs);
}

export async function run(): Promise<BenchResult> {
  const seasons = benchSeasons();
  const times: number[] = [];
  const kernelTimes: number[] = [];
  const out = new Float64Array(4);
  for (const season of seasons) {
    times.push(timed(() => fitSeason(season)));
    const points = fittingPoints(mergePoints(season.curveDurations, season.curveValues, new Float64Array(0), new Float64Array(0)));
    const bounds = season.metric === 'power' ? POWER_BOUNDS : SPEED_BOUNDS;
    kernelTimes.push(timed(() => fitMaximalEfforts(points.durations, points.values, bounds, out)));
  }
  const lines = [`time per fit: median ${median(times).toFixed(2)} ms, max ${Math.max(...times).toFixed(2)} ms (${seasons.length} seasons, ${seasons[0]!.curveDurations.length}–${Math.max(...seasons.map((s) => s.curveDurations.length))} curve points)`];
  lines.push('season            | CP/CS     | W′/D′     | Pmax      | A fit/true      | worst curve 10 s–60 min');
  const worst = [0, 0, 0, 0];
  seasons.forEach((season, k) => {
    const fitted = fitSeason(season);
    const errors = [CP, W_PRIME, PMAX].map((index) => fitted[index]! / season.truth[index]! - 1);
    const curve = worstCurveError(fitted, season.truth);
    [...errors, curve.error].forEach((e, j) => { if (Math.abs(e) > Math.abs(worst[j]!)) worst[j] = e; });
    const name = `${season.metric} ${k < 12 ? k + 1 : k - 11}${season.noisy ? ' noisy' : ''}`.padEnd(17);
    const a = `${fitted[A]!.toPrecision(3)}/${season.truth[A]!.toPrecision(3)}`.padEnd(15);
    lines.push(`${name} | ${errors.map((e) => pct(e).padEnd(9)).join(' | ')} | ${a} | ${pct(curve.error)} at ${curve.at} s`);
  });
  lines.push(`worst             | ${worst.slice(0, 3).map((e) => pct(e).padEnd(9)).join(' | ')} |                 | ${pct(worst[3]!)}`);
  const call = median(times);
  const kernel = median(kernelTimes);
  lines.push(`the fit kernel alone on the same points: median ${kernel.toFixed(2)} ms`);
  return {
    text: lines.join('\n  '),
    rows: [{
      question: `fitIntensityModel on ${seasons.length} seasons, median`, dataset: 'synthetic', figure: call, unit: 'ms',
      anchor: kernel, anchorLabel: 'fitMaximalEfforts alone', ratio: share(call, kernel, 'lower'),
    }],
  };
}
