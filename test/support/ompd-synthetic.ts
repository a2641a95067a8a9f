/**
 * Synthetic athletes for the OmPD fit's tests and benchmark: known parameters, and the 90-day mean-max
 * curve such an athlete would show, on the engine's cache grid (1 s steps to 3 min, then 5, 10, 30, 60 s)
 * up to their longest activity.
 *
 * Noise: each best is the model's value times (1 + ε), ε normal with σ = 2 %/√t, floored at 0.2 % (a power
 * meter's per-second noise averages down over a window; the floor stands for drift between rides), each
 * duration independently — harsher than real curves, whose neighbouring durations share a window. Missing
 * duration bands: see MISSING_BANDS; the sprint band stays (without a sprint Pmax is not identifiable) and
 * the curve reaches beyond 30 min (a longest activity of 40 min to 5 h), so every curve passes the
 * too-little-data rule.
 */
import { fullGrid } from '../../engine/kernels/duration-grid.js';
import { ompdAt } from '../../engine/kernels/ompd.js';

export interface SyntheticAthlete {
  /** CP W (or CS m/s), W′ J (D′ m), Pmax W (max speed m/s), A. */
  params: Float64Array;
  durations: Float64Array;
  values: Float64Array;
  /** Lower edges (s) of the bands left without points. */
  missingBands: number[];
}

/** σ of the relative noise of a 1 s best (a power meter's per-second noise) and the floor it averages down to. */
export const NOISE_1S = 0.01;
export const NOISE_FLOOR = 0.002;

/** σ of the relative noise of a best over `t` s: per-second noise averages as 1/√t, down to the floor (calibration drift between rides). */
export function noiseAt(t: number): number {
  return Math.max(NOISE_FLOOR, NOISE_1S / Math.sqrt(t));
}

/**
 * The band sets a synthetic curve may lack (from, to s), equally likely: none, one of the three middle bands
 * of the too-little-data rule, two of them (any pair). Three missing would leave two bands: too little data.
 */
export const MISSING_BANDS: readonly (readonly [number, number])[][] = [
  [], [[10, 60]], [[60, 300]], [[300, 1200]], [[10, 60], [300, 1200]], [[10, 60], [60, 300]], [[60, 300], [300, 1200]],
];

function normal(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

/** A cyclist: CP 150–450 W, W′ 8–35 kJ, Pmax 700–2000 W, A 5–60 W; `noisy` false gives exact model values. */
export function syntheticCyclist(random: () => number, noisy = true, gaps = MISSING_BANDS): SyntheticAthlete {
  const params = Float64Array.of(150 + 300 * random(), 8000 + 27_000 * random(), 700 + 1300 * random(), 5 + 55 * random());
  return syntheticCurve(random, params, noisy, gaps);
}

/** A runner (speed): CS 2.5–6 m/s, D′ 100–400 m, max speed 6–11 m/s, A 0.05–0.5 m/s. */
export function syntheticRunner(random: () => number, noisy = true, gaps = MISSING_BANDS): SyntheticAthlete {
  const params = Float64Array.of(2.5 + 3.5 * random(), 100 + 300 * random(), 6 + 5 * random(), 0.05 + 0.45 * random());
  return syntheticCurve(random, params, noisy, gaps);
}

function syntheticCurve(random: () => number, params: Float64Array, noisy: boolean, gaps: readonly (readonly [number, number])[][]): SyntheticAthlete {
  const longest = 2400 + Math.floor(random() * 15_600);
  const missing = noisy ? gaps[Math.floor(random() * gaps.length)]! : [];
  const grid = fullGrid(longest);
  const durations: number[] = [];
  const values: number[] = [];
  for (const t of grid) {
    if (missing.some(([from, to]) => t >= from && t < to)) continue;
    let value = ompdAt(params, t);
    if (noisy) {
      value *= 1 + noiseAt(t) * normal(random);
    }
    durations.push(t);
    values.push(value);
  }
  return { params, durations: Float64Array.from(durations), values: Float64Array.from(values), missingBands: missing.map(([from]) => from) };
}
