/**
 * Reference twin of ../ompd.ts for tests and benchmarks: the same OmPD loss, written out plainly, minimised
 * by exhaustive grid search instead of Levenberg–Marquardt. Slow on purpose and obviously correct:
 *
 * 1. a coarse grid of COARSE points per parameter over the whole bounds (CP and A linear, W′ and Pmax
 *    log-spaced; Pmax raised to CP as the fast fit projects it), every combination evaluated;
 * 2. the CANDIDATES best cells of it each refined coarse-to-fine: a grid of FINE points per parameter
 *    around the best so far, clipped to the bounds; when its best is the centre the half-width shrinks by
 *    SHRINK, else the grid moves to the new best at the same width; LEVELS grids in all;
 * 3. the best of all.
 *
 * It shares with the fast fit only the constants that define the model and the loss (T, the weight cap, the bounds).
 */
import { OMPD_T, WEIGHT_CAP_SECONDS, type OmpdBounds } from '../ompd.js';

const COARSE = 15;
const CANDIDATES = 3;
const FINE = 7;
const SHRINK = 0.5;
const LEVELS = 40;

interface Params { cp: number; wPrime: number; pmax: number; a: number }

/** P(t) = W′/t · (1 − e^{−t(Pmax−CP)/W′}) + CP, minus A·ln(t/T) beyond T. */
export function model({ cp, wPrime, pmax, a }: Params, t: number): number {
  let value = (wPrime / t) * (1 - Math.exp((-t * (pmax - cp)) / wPrime)) + cp;
  if (t > OMPD_T) value -= a * Math.log(t / OMPD_T);
  return value;
}

/** Σ over points of min(t, WEIGHT_CAP_SECONDS)·r², r = (P(t) − y)/y. */
export function loss(params: Params, durations: Float64Array, values: Float64Array): number {
  let total = 0;
  for (let i = 0; i < durations.length; i++) {
    const relative = (model(params, durations[i]!) - values[i]!) / values[i]!;
    total += Math.min(durations[i]!, WEIGHT_CAP_SECONDS) * relative ** 2;
  }
  return total;
}

/** The grid-search minimum of the loss within the bounds: parameters into `out` (CP, W′, Pmax, A), its loss returned. */
export function fitOmpd(durations: Float64Array, values: Float64Array, bounds: OmpdBounds, out: Float64Array): number {
  const low = [...bounds.lower];
  const high = [...bounds.upper];
  // Coordinates: CP and A as they are, W′ and Pmax by their logarithm.
  const logScale = [false, true, true, false];
  const toCoordinate = (k: number, v: number) => (logScale[k] ? Math.log(v) : v);
  const fromCoordinate = (k: number, c: number) => (logScale[k] ? Math.exp(c) : c);
  const lowC = low.map((v, k) => toCoordinate(k, v));
  const highC = high.map((v, k) => toCoordinate(k, v));
  const evaluate = (c: number[]): number => {
    const cp = fromCoordinate(0, c[0]!);
    const params = { cp, wPrime: fromCoordinate(1, c[1]!), pmax: Math.max(fromCoordinate(2, c[2]!), cp), a: fromCoordinate(3, c[3]!) };
    return loss(params, durations, values);
  };
  const axis = (k: number, centre: number, halfWidth: number, points: number): number[] => {
    const from = Math.max(lowC[k]!, centre - halfWidth);
    const to = Math.min(highC[k]!, centre + halfWidth);
    return Array.from({ length: points }, (_, i) => from + ((to - from) * i) / (points - 1));
  };
  const search = (axes: number[][]): { at: number[]; loss: number }[] => {
    const found: { at: number[]; loss: number }[] = [];
    for (const c0 of axes[0]!) for (const c1 of axes[1]!) for (const c2 of axes[2]!) for (const c3 of axes[3]!) {
      const at = [c0, c1, c2, c3];
      found.push({ at, loss: evaluate(at) });
    }
    return found.sort((x, y) => x.loss - y.loss);
  };

  const coarseHalf = highC.map((h, k) => (h - lowC[k]!) / 2);
  const coarse = search(coarseHalf.map((half, k) => axis(k, lowC[k]! + half, half, COARSE)));
  let best = coarse[0]!;
  for (const candidate of coarse.slice(0, CANDIDATES)) {
    let centre = candidate;
    let half = coarseHalf.map((h) => (2 * h) / (COARSE - 1));
    for (let level = 0; level < LEVELS; level++) {
      const found = search(half.map((width, k) => axis(k, centre.at[k]!, width, FINE)))[0]!;
      // Moved: search again around the new best at the same width; stayed: narrow the grid.
      if (found.loss < centre.loss) centre = found;
      else half = half.map((width) => width * SHRINK);
    }
    if (centre.loss < best.loss) best = centre;
  }
  const cp = fromCoordinate(0, best.at[0]!);
  out[0] = cp;
  out[1] = fromCoordinate(1, best.at[1]!);
  out[2] = Math.max(fromCoordinate(2, best.at[2]!), cp);
  out[3] = fromCoordinate(3, best.at[3]!);
  return best.loss;
}
