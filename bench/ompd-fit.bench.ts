/**
 * Question: how fast and how accurate is the OmPD fit (engine/kernels/ompd.ts)? Targets (issue 13): on
 * synthetic curves from known parameters, with noise and missing bands, CP within 1 %, W′ within 3 %,
 * Pmax within 5 %. On the real rides of test/fixtures/fit (fitMaximalEfforts), the worst excess of the
 * curve over a best effort: reported, no longer a target (issue 25: a single ride is no season of maximal
 * efforts; bench/ompd-seasons.bench.ts measures the fit against known truths).
 *
 * - Time: the fast fit (median of 21 runs per curve) against the grid-search twin (one run per curve) on
 *   the same 5 synthetic cyclists' fitting points, in the same run; their losses side by side.
 * - Recovery: 200 synthetic cyclists (test/support/ompd-synthetic.ts: noise 1 %/√t floored at 0.2 %, one
 *   or two of the three middle bands missing in 6 of 7), median and max relative error per parameter; then
 *   200 runners (speed, experimental: CS, D′, max speed; not a target).
 * - Real rides: the worst excess of the curve over a best effort, ride by ride and over their envelope
 *   (the fixture rides of the corpus, their curves decoded in this process: the fit reads curves, not
 *   uploads); and the fit's time on the envelope's points against the twin's, as on the synthetic ones.
 * Rows: the fast fit's time against the grid-search twin's (a floor the fit must beat, not a ceiling).
 */
import { A, CP, PMAX, POWER_BOUNDS, SPEED_BOUNDS, W_PRIME, fitMaximalEfforts, fitOmpd, ompdAt, ompdLoss, type OmpdBounds } from '../engine/kernels/ompd.js';
import * as reference from '../engine/kernels/reference/ompd.js';
import { enoughData, fittingPoints, mergePoints, monotoneEnvelope, type IntensityPoints } from '../engine/kernels/ompd-points.js';
import { random } from '../test/support/kernels.js';
import { MISSING_BANDS, syntheticCyclist, syntheticRunner, type SyntheticAthlete } from '../test/support/ompd-synthetic.js';
import { fixtureRidePowerCurves } from '../test/support/fixture-curves.js';
import { share, type BenchResult, type BenchRow } from './results.js';

export const question = 'OmPD fit: fast fit vs grid-search twin (time, loss), parameter recovery on 200 synthetic athletes, worst excess over the fixture rides\' best efforts';

function pointsOf(athlete: SyntheticAthlete): IntensityPoints {
  return fittingPoints(mergePoints(athlete.durations, athlete.values, [], []));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
}

function timed(runs: number, work: () => void): number {
  const times: number[] = [];
  for (let k = 0; k < runs; k++) {
    const started = performance.now();
    work();
    times.push(performance.now() - started);
  }
  return median(times);
}

const pct = (value: number) => `${(100 * value).toFixed(2)} %`;

/** "CP median x, max y; …" over `count` athletes. */
function recovery(label: string, count: number, make: () => SyntheticAthlete, bounds: OmpdBounds, names: [string, string, string]): string {
  const errors: number[][] = [[], [], []];
  const out = new Float64Array(4);
  for (let k = 0; k < count; k++) {
    const athlete = make();
    const points = pointsOf(athlete);
    fitOmpd(points.durations, points.values, bounds, out);
    [CP, W_PRIME, PMAX].forEach((index, j) => errors[j]!.push(Math.abs(out[index]! / athlete.params[index]! - 1)));
  }
  return `${label} (${count}): ${names.map((name, j) => `${name} median ${pct(median(errors[j]!))}, max ${pct(Math.max(...errors[j]!))}`).join('; ')}`;
}

function twinRow(dataset: BenchRow['dataset'], question: string, fast: number, twin: number): BenchRow {
  return { question, dataset, figure: fast, unit: 'ms', anchor: twin, anchorLabel: 'grid-search twin (a floor)', ratio: share(fast, twin, 'lower') };
}

export async function run(): Promise<BenchResult> {
  const lines: string[] = [];
  const rows: BenchRow[] = [];

  // Time, fast vs twin.
  const next = random(7);
  const fastMs: number[] = [];
  const twinMs: number[] = [];
  const losses: string[] = [];
  let pointCount = 0;
  const out = new Float64Array(4);
  const twin = new Float64Array(4);
  for (let k = 0; k < 5; k++) {
    const points = pointsOf(syntheticCyclist(next));
    pointCount += points.durations.length;
    for (let w = 0; w < 3; w++) fitOmpd(points.durations, points.values, POWER_BOUNDS, out);
    fastMs.push(timed(21, () => fitOmpd(points.durations, points.values, POWER_BOUNDS, out)));
    let twinLoss = 0;
    twinMs.push(timed(1, () => { twinLoss = reference.fitOmpd(points.durations, points.values, POWER_BOUNDS, twin); }));
    losses.push(`${ompdLoss(out, points.durations, points.values).toExponential(3)}/${twinLoss.toExponential(3)}`);
  }
  const f = median(fastMs);
  const r = median(twinMs);
  rows.push(twinRow('synthetic', 'OmPD fit of a synthetic cyclist, median', f, r));
  lines.push(`time per fit (${(pointCount / 5).toFixed(0)} points on average): fast ${f.toFixed(2)} ms, twin ${r.toFixed(0)} ms, ×${(r / f).toFixed(0)}; loss fast/twin ${losses.join(', ')}`);

  // Recovery.
  const cyclists = random(2025);
  lines.push(recovery(`cyclists, noise, bands missing in ${MISSING_BANDS.length - 1} of ${MISSING_BANDS.length}`, 200, () => syntheticCyclist(cyclists), POWER_BOUNDS, ['CP', 'W′', 'Pmax']));
  const runners = random(2027);
  lines.push(recovery('runners, speed (experimental)', 200, () => syntheticRunner(runners), SPEED_BOUNDS, ['CS', 'D′', 'max speed']));

  // Real rides.
  const rides = await fixtureRidePowerCurves();
  const sets = [...rides.map((ride) => ({ name: ride.key, rides: [ride] })), { name: 'envelope', rides }];
  const excesses: string[] = [];
  let worst = -Infinity;
  let envelopePoints: IntensityPoints | null = null;
  for (const { name, rides: chosen } of sets) {
    const merged = mergePoints(chosen.flatMap((ride) => [...ride.durations]), chosen.flatMap((ride) => [...ride.values]), [], []);
    if (!enoughData(merged.durations, merged.values, merged.durations[merged.durations.length - 1]! >= 900)) continue;
    const points = fittingPoints(merged);
    if (name === 'envelope') envelopePoints = points;
    fitMaximalEfforts(points.durations, points.values, POWER_BOUNDS, out);
    const envelope = monotoneEnvelope(merged);
    let excess = -Infinity;
    for (let i = 0; i < envelope.durations.length; i++) excess = Math.max(excess, ompdAt(out, envelope.durations[i]!) / envelope.values[i]! - 1);
    worst = Math.max(worst, excess);
    excesses.push(`${name.replace(/^.*\//, '')} ${pct(excess)} (CP ${out[CP]!.toFixed(0)} W, W′ ${(out[W_PRIME]! / 1000).toFixed(1)} kJ, Pmax ${out[PMAX]!.toFixed(0)} W, A ${out[A]!.toFixed(0)} W)`);
  }
  lines.push(`fixture rides (${excesses.length - 1} with enough data, and their envelope): worst excess over a best effort ${pct(worst)}; ${excesses.join(', ')}`);
  if (envelopePoints !== null) {
    const points: IntensityPoints = envelopePoints;
    for (let w = 0; w < 3; w++) fitOmpd(points.durations, points.values, POWER_BOUNDS, out);
    const fast = timed(21, () => fitOmpd(points.durations, points.values, POWER_BOUNDS, out));
    const slow = timed(1, () => reference.fitOmpd(points.durations, points.values, POWER_BOUNDS, twin));
    lines.push(`time per fit on the fixture rides' envelope (${points.durations.length} points): fast ${fast.toFixed(2)} ms, twin ${slow.toFixed(0)} ms, ×${(slow / fast).toFixed(0)}`);
    rows.push(twinRow('corpus', 'OmPD fit of the corpus rides\' envelope', fast, slow));
  }
  return { text: lines.join('\n  '), rows };
}
