/**
 * The data side of the intensity-duration model (ANALYTICS.md §6): the points the OmPD fit (ompd.ts) sees,
 * the "too little data" rule, and the fitted curve as the endpoint returns it.
 *
 * - fittingPoints: the 90-day longitudinal mean-max curve merged with the max efforts, reduced to its
 *   maximal efforts (the upper concave hull of work against duration). API output is never built from it.
 * - monotoneEnvelope: the non-increasing envelope (whoever held y for d seconds held at least y for every
 *   shorter duration), for the bests the metabolic map reads.
 * - enoughData: the rule, on the merged points, before any envelope.
 * - ompdCurve: the model at requested durations, rounded (whole W; m/s to 2 decimals).
 *
 * Pure; no I/O. Kept honest by test/engine/kernels/ompd-points.test.ts (hand-made curves).
 */
import { roundPower, roundSpeed } from './model-rounding.js';
import { ompdAt } from './ompd.js';

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
 * How far under the hull (relative) a point still counts as a maximal effort: the noise of a best held
 * t seconds, HULL_TOLERANCE_1S/√t (a power meter's per-second noise averages down), at least
 * HULL_TOLERANCE_FLOOR. A 1 s best is a single noisy second; the hull's vertex there may be a lucky one.
 */
export const HULL_TOLERANCE_1S = 0.03;
export const HULL_TOLERANCE_FLOOR = 0.005;

/**
 * The fit's points: the maximal efforts among the merged points, not the dips between them (ANALYTICS.md
 * §6). Work (or distance) y·t against duration t of an athlete's best efforts lies on or under their true
 * work curve, which is concave (W′·(1 − e^{−t/τ}) + CP·t, minus A·t·ln(t/T) beyond T); a point from a
 * maximal effort lies on it, a submaximal one — a 3-minute window inside a 5-minute effort, or an effort
 * padded with easy riding — under it. So the points kept are the vertices of the upper concave hull of
 * (t, y·t) with the origin (no work in no time) as its first vertex: a point under the chord of two others
 * cannot be a maximal effort of a concave curve. A dip may still be a vertex where two efforts lie far
 * apart; the fit (ompd.ts fitMaximalEfforts) trims what then lies clearly under the fitted curve.
 * Monotone chain, linear in the points (ascending durations).
 */
export function fittingPoints(merged: IntensityPoints): IntensityPoints {
  const n = merged.durations.length;
  const hull = new Int32Array(n);
  let size = 0;
  for (let i = 0; i < n; i++) {
    const t = merged.durations[i]!;
    const work = merged.values[i]! * t;
    // Pop the last vertex while it lies on or under the chord from the one before it (or the origin) to this point.
    while (size > 0) {
      const b = hull[size - 1]!;
      const tb = merged.durations[b]!;
      const wb = merged.values[b]! * tb;
      const ta = size > 1 ? merged.durations[hull[size - 2]!]! : 0;
      const wa = size > 1 ? merged.values[hull[size - 2]!]! * ta : 0;
      if ((wb - wa) * (t - ta) > (work - wa) * (tb - ta)) break;
      size--;
    }
    hull[size++] = i;
  }
  // Every point within the noise of a best effort under the hull stays: one lucky window must not push its neighbours out.
  const durations: number[] = [];
  const values: number[] = [];
  let segment = 0;
  for (let i = 0; i < n; i++) {
    const t = merged.durations[i]!;
    while (segment < size - 1 && merged.durations[hull[segment]!]! < t) segment++;
    const b = hull[segment]!;
    const tb = merged.durations[b]!;
    const ta = segment > 0 ? merged.durations[hull[segment - 1]!]! : 0;
    const wa = segment > 0 ? merged.values[hull[segment - 1]!]! * ta : 0;
    const onHull = tb === ta ? wa : wa + ((merged.values[b]! * tb - wa) * (t - ta)) / (tb - ta);
    if (merged.values[i]! * t >= onHull * (1 - Math.max(HULL_TOLERANCE_FLOOR, HULL_TOLERANCE_1S / Math.sqrt(t)))) {
      durations.push(t);
      values.push(merged.values[i]!);
    }
  }
  return { durations: Float64Array.from(durations), values: Float64Array.from(values) };
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
