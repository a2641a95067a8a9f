/**
 * Lactate thresholds from a test's points (ANALYTICS.md §7, "Lactate thresholds from a test's linked
 * traces"): assembles the resting point and the steps, runs the log-log kernel (LT1) and the modified Dmax
 * kernel (LT2), and reads heart rate and VO2 at each threshold. Unrounded: callers round.
 *
 * - "a trace with lactate and no or zero intensity is the resting point, placed one step below the first
 *   step (first − (second − first))". Several resting points are averaged into one.
 * - Steps are sorted by intensity; points at the same intensity are averaged (lactate over all of them,
 *   heart rate and VO2 over those that have one): a repeated sample at a step is a second measurement of
 *   it, not an error worth failing the whole test over.
 * - "Needs the resting point and at least 4 steps, else nothing is derived": both null.
 * - LT1 needs a resting intensity above 0 (the method takes its logarithm); when the steps put it at or
 *   below 0 (e.g. 50 then 100 W), LT1 is null rather than the fit being changed by dropping the point or
 *   shifting the grid, which would no longer be the method named. LT2 does not use the resting point.
 * - "Heart rate at a threshold: linear interpolation between the points" (the resting point included),
 *   over the points that carry one; null outside their range or when fewer than one brackets it. VO2 the
 *   same. "lactate: the cubic's value (LT2), the interpolated curve's (LT1)".
 *
 * test/engine/lactate-thresholds.test.ts holds it to the worked examples.
 */
import { loglogBreakpoint } from '../kernels/lactate-loglog.js';
import { modifiedDmax } from '../kernels/lactate-dmax.js';
import type { LactatePoint, LactateSportKind, LactateThreshold, LactateThresholdsResponse } from '../contract.js';

/** "points interpolated linearly every 0.1 W (0.01 m/s)". */
export const LOGLOG_STEP: Record<LactateSportKind, number> = { power: 0.1, speed: 0.01 };

/** Minimum steps (besides the resting point) for any threshold. */
export const MIN_LACTATE_STEPS = 4;

interface Curve {
  /** Resting point first, then the steps; ascending. */
  intensity: Float64Array;
  lactate: Float64Array;
  /** NaN where a point has none. */
  heartRate: Float64Array;
  vo2: Float64Array;
}

export function lactateThresholds(kind: LactateSportKind, points: readonly LactatePoint[]): LactateThresholdsResponse {
  const curve = assemble(points);
  if (curve === null) return { lt1: null, lt2: null };
  return { lt1: lt1Of(curve, LOGLOG_STEP[kind]), lt2: lt2Of(curve) };
}

/** The resting point and the steps, averaged per intensity; null without a resting point or 4 steps. */
function assemble(points: readonly LactatePoint[]): Curve | null {
  const groups = new Map<number, LactatePoint[]>();
  const resting: LactatePoint[] = [];
  for (const point of points) {
    if (point.intensity === null || point.intensity === 0) resting.push(point);
    else groups.set(point.intensity, [...(groups.get(point.intensity) ?? []), point]);
  }
  const steps = [...groups.keys()].sort((a, b) => a - b);
  if (resting.length === 0 || steps.length < MIN_LACTATE_STEPS) return null;
  const rows = [resting, ...steps.map((step) => groups.get(step)!)];
  const intensity = Float64Array.from([2 * steps[0]! - steps[1]!, ...steps]);
  return {
    intensity,
    lactate: Float64Array.from(rows, (group) => mean(group.map((point) => point.lactate))),
    heartRate: Float64Array.from(rows, (group) => mean(present(group.map((point) => point.heart_rate)))),
    vo2: Float64Array.from(rows, (group) => mean(present(group.map((point) => point.vo2)))),
  };
}

function lt1Of(curve: Curve, step: number): LactateThreshold | null {
  const at = loglogBreakpoint(curve.intensity, curve.lactate, step);
  if (Number.isNaN(at)) return null;
  return { intensity: at, lactate: interpolateAt(curve.intensity, curve.lactate, at)!, ...companions(curve, at) };
}

function lt2Of(curve: Curve): LactateThreshold | null {
  const out = new Float64Array(2);
  modifiedDmax(curve.intensity.subarray(1), curve.lactate.subarray(1), out);
  if (Number.isNaN(out[0]!)) return null;
  return { intensity: out[0]!, lactate: out[1]!, ...companions(curve, out[0]!) };
}

function companions(curve: Curve, at: number): { heart_rate: number | null; vo2: number | null } {
  return { heart_rate: interpolateAt(curve.intensity, curve.heartRate, at), vo2: interpolateAt(curve.intensity, curve.vo2, at) };
}

/** `values` at `at`, linear between the nearest points around it that have a value (not NaN); null outside them. */
export function interpolateAt(intensities: Float64Array, values: Float64Array, at: number): number | null {
  let below = -1;
  let above = -1;
  for (let i = 0; i < intensities.length; i++) {
    if (Number.isNaN(values[i]!)) continue;
    if (intensities[i]! <= at) below = i;
    if (intensities[i]! >= at) {
      above = i;
      break;
    }
  }
  if (below < 0 || above < 0) return null;
  if (below === above) return values[below]!;
  const x0 = intensities[below]!;
  return values[below]! + ((at - x0) * (values[above]! - values[below]!)) / (intensities[above]! - x0);
}

function present(values: (number | null)[]): number[] {
  return values.filter((value): value is number => value !== null);
}

function mean(values: number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((sum, value) => sum + value, 0) / values.length;
}
