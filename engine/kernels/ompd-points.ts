/**
 * The data side of the intensity-duration model (ANALYTICS.md §6): the points the OmPD fit (ompd.ts) sees,
 * the "too little data" rule, and the fitted curve as the endpoint returns it.
 *
 * - fittingPoints: the 90-day longitudinal mean-max curve merged with the max efforts, made monotone (the
 *   non-increasing envelope, "monotone envelope for fitting only": whoever held y for d seconds held at
 *   least y for every shorter duration) and resampled on a log-spaced grid, so each decade of duration
 *   weighs alike in the loss. API output is never built from this envelope.
 * - enoughData: the rule, on the merged points, before any envelope.
 * - ompdCurve: the model at requested durations, rounded (whole W; m/s to 2 decimals).
 *
 * Pure; no I/O. Kept honest by test/engine/kernels/ompd-points.test.ts (hand-made curves).
 */
import { roundPower, roundSpeed } from './model-rounding.js';
import { ompdAt } from './ompd.js';

/** Points per decade of duration of the fitting grid: 1 s … 3 h is ~100 points. */
export const POINTS_PER_DECADE = 24;

/**
 * Lower edges (s) of the duration bands of the "too little data" rule, our choice, one per energetic
 * domain the model spans: [1, 10) s sprint (Pmax), [10, 60) s anaerobic, [1, 5) min severe (W′),
 * [5, 20) min heavy to severe (CP), 20 min and beyond (the decline A).
 */
export const DURATION_BANDS: readonly number[] = [1, 10, 60, 300, 1200];

/** "no activity ≥ 15 min", s. */
export const LONG_EFFORT_SECONDS = 900;

/** Bands needed: "no efforts in at least three duration bands" → empty. */
export const BANDS_NEEDED = 3;

/** Duration band (index into DURATION_BANDS) of `t` s, −1 below the first. */
export function durationBand(t: number): number {
  let band = -1;
  for (let b = 0; b < DURATION_BANDS.length; b++) if (t >= DURATION_BANDS[b]!) band = b;
  return band;
}

/**
 * The §6 rule, true when a fit may run: efforts (points with a value > 0; the curve's and the max
 * efforts, merged) in at least BANDS_NEEDED duration bands, and an activity with 15 minutes of recorded
 * time — `hasLongActivity`, which the caller knows from the activities in the window (or a max effort that
 * long). Never from the curve: a 15-minute window over a pause holds zeros, not 15 recorded minutes.
 */
export function enoughData(durations: Float64Array, values: Float64Array, hasLongActivity: boolean): boolean {
  let bands = 0; // bit b: band b has an effort
  for (let i = 0; i < durations.length; i++) {
    if (!(values[i]! > 0)) continue;
    const t = durations[i]!;
    const band = durationBand(t);
    if (band >= 0) bands |= 1 << band;
  }
  let count = 0;
  for (; bands !== 0; bands &= bands - 1) count++;
  return hasLongActivity && count >= BANDS_NEEDED;
}

/** Points (durations s ascending, distinct; values) as the fit and the rule take them. */
export interface IntensityPoints {
  durations: Float64Array;
  values: Float64Array;
}

/**
 * The curve (durations s ascending, values W or m/s; NaN or ≤ 0 = none) and the max efforts (any order)
 * as one list of points with values > 0, ascending by duration, the higher value where two share a
 * duration.
 */
export function mergePoints(curveDurations: ArrayLike<number>, curveValues: ArrayLike<number>, effortDurations: ArrayLike<number>, effortValues: ArrayLike<number>): IntensityPoints {
  const best = new Map<number, number>();
  const add = (t: number, y: number) => {
    if (!(t >= 1) || !(y > 0)) return;
    const held = best.get(t);
    if (held === undefined || y > held) best.set(t, y);
  };
  for (let i = 0; i < curveDurations.length; i++) add(curveDurations[i]!, curveValues[i]!);
  for (let i = 0; i < effortDurations.length; i++) add(effortDurations[i]!, effortValues[i]!);
  const durations = Float64Array.from(best.keys()).sort();
  return { durations, values: Float64Array.from(durations, (t) => best.get(t)!) };
}

/** The non-increasing envelope of points (ascending durations): each value raised to the best at any longer duration. */
export function monotoneEnvelope(points: IntensityPoints): IntensityPoints {
  const values = Float64Array.from(points.values);
  for (let i = values.length - 2; i >= 0; i--) if (values[i + 1]! > values[i]!) values[i] = values[i + 1]!;
  return { durations: Float64Array.from(points.durations), values };
}

/**
 * Whole seconds, log-spaced at `perDecade` per decade from the first to the last of `durations`
 * (ascending), both included, rounded and de-duplicated (so every second at the short end).
 */
export function logGrid(first: number, last: number, perDecade: number = POINTS_PER_DECADE): Float64Array {
  const out: number[] = [];
  if (!(first >= 1) || !(last >= first)) return new Float64Array(0);
  const steps = Math.ceil(Math.log10(last / first) * perDecade);
  for (let k = 0; k <= steps; k++) {
    const t = k === steps ? last : Math.round(first * 10 ** (k / perDecade));
    if (out.length === 0 || t > out[out.length - 1]!) out.push(Math.min(t, last));
  }
  return Float64Array.from(out);
}

/** A point the chord between two chosen neighbours (in ln t, ln y) misses by more than this (relative) is chosen too. */
export const CHORD_TOLERANCE = 0.001;

/**
 * The fit's points, real points of the merged points' envelope only (nothing is interpolated across a band
 * without data, where a chord across a convex curve would sit above it):
 *
 * 1. the log grid between the envelope's first and last duration: at each grid duration the envelope point
 *    nearest to it in log-duration, when one lies within half a grid step (so every isolated effort is
 *    kept), each point at most once;
 * 2. then, between consecutive chosen points, the envelope point furthest from their chord in (ln t, ln y)
 *    whenever it is more than CHORD_TOLERANCE off, recursively (Douglas–Peucker): the envelope is then
 *    within 0.1 % of the chosen points' log-log interpolant, so a cliff — where the longest good ride ends
 *    and only slower ones reach further — or a bend stays in the fit, and the curve cannot pass over it
 *    unseen ("never exceeds a best effort by more than 1 % at any duration").
 */
export function fittingPoints(merged: IntensityPoints, perDecade: number = POINTS_PER_DECADE): IntensityPoints {
  const envelope = monotoneEnvelope(merged);
  const n = envelope.durations.length;
  if (n === 0) return { durations: new Float64Array(0), values: new Float64Array(0) };
  const logT = Float64Array.from(envelope.durations, Math.log);
  const logY = Float64Array.from(envelope.values, Math.log);
  const grid = logGrid(envelope.durations[0]!, envelope.durations[n - 1]!, perDecade);
  const halfStep = Math.LN10 / perDecade / 2;
  const chosen: number[] = [];
  let low = 0;
  for (let j = 0; j < grid.length; j++) {
    const g = Math.log(grid[j]!);
    while (low + 1 < n && envelope.durations[low + 1]! <= grid[j]!) low++;
    // The nearest point is `low` (at or below g) or the one after it.
    const nearest = low + 1 < n && logT[low + 1]! - g < g - logT[low]! ? low + 1 : low;
    if (chosen.length > 0 && nearest <= chosen[chosen.length - 1]!) continue;
    if (Math.abs(logT[nearest]! - g) <= halfStep) chosen.push(nearest);
  }
  const tolerance = Math.log1p(CHORD_TOLERANCE);
  const withCliffs: number[] = [];
  const refine = (a: number, b: number): void => {
    let worst = -1;
    let depth = tolerance;
    for (let i = a + 1; i < b; i++) {
      const chord = logY[a]! + ((logT[i]! - logT[a]!) / (logT[b]! - logT[a]!)) * (logY[b]! - logY[a]!);
      if (Math.abs(chord - logY[i]!) > depth) {
        depth = Math.abs(chord - logY[i]!);
        worst = i;
      }
    }
    if (worst < 0) return;
    refine(a, worst);
    withCliffs.push(worst);
    refine(worst, b);
  };
  for (let k = 0; k < chosen.length; k++) {
    if (k > 0) refine(chosen[k - 1]!, chosen[k]!);
    withCliffs.push(chosen[k]!);
  }
  return { durations: Float64Array.from(withCliffs, (i) => envelope.durations[i]!), values: Float64Array.from(withCliffs, (i) => envelope.values[i]!) };
}

/** The intensity-duration curve of interface §2: {duration s, intensity}, "whole W for power, m/s to 2 decimals for speed". */
export interface CurvePoint {
  duration: number;
  intensity: number;
}

/** The fitted model at `durations` (s), rounded for its metric; durations where it is not positive are left out. */
export function ompdCurve(params: Float64Array, durations: ArrayLike<number>, metric: 'power' | 'speed'): CurvePoint[] {
  const curve: CurvePoint[] = [];
  for (let i = 0; i < durations.length; i++) {
    const duration = durations[i]!;
    const value = ompdAt(params, duration);
    if (!(value > 0)) continue;
    curve.push({ duration, intensity: metric === 'power' ? roundPower(value) : roundSpeed(value) });
  }
  return curve;
}
