/**
 * The gateway's and the engine's one assembly of a lactate test's points and one rounding of the derived
 * thresholds (ANALYTICS.md §7, "Lactate thresholds from a test's linked traces"): intensity = power for
 * cycling, speed for running (the sport's root); a trace with lactate and no or zero intensity is the
 * resting point, sent with intensity 0 (the derivation — engine/analysis/lactate-thresholds.ts, directly in
 * the engine, through the LactateThresholds RPC in the gateway — places it and decides whether there are
 * enough steps). Any other sport derives nothing. Rounding: power whole W, speed m/s to 2 decimals, heart
 * rate whole bpm, lactate mmol/L to 2 decimals, vo2 whole mL/min.
 *
 * Not here: deriving (the engine's), storage. Kept honest by the step test in
 * test/gateway/tests-records.test.ts and test/engine/model-inputs.test.ts.
 */
import { rootSport } from './sport.js';

/** Most points one derivation may take (the LactateThresholds RPC's limit; engine/contract.ts re-exports it). */
export const MAX_LACTATE_POINTS = 200;

export type LactateKind = 'power' | 'speed';

/** One point as the derivation takes it; intensity null or 0 = the resting point. */
export interface LactateStep {
  intensity: number | null;
  /** mmol/L, > 0. */
  lactate: number;
  heart_rate: number | null;
  /** mL/min. */
  vo2: number | null;
}

/** What a derivation answers per threshold, unrounded. */
export interface DerivedThreshold {
  intensity: number;
  lactate: number;
  heart_rate: number | null;
  vo2: number | null;
}

export interface DerivedThresholds {
  lt1: DerivedThreshold | null;
  lt2: DerivedThreshold | null;
}

/** A test result's threshold as stored: `{power, speed, heart_rate, lactate, vo2}`. */
export interface ThresholdValues {
  power: number | null;
  speed: number | null;
  heart_rate: number | null;
  lactate: number | null;
  vo2: number | null;
}

/** The fields of a trace the points are read from (a TraceRecord fits). */
export interface LactateTrace {
  lactate: number | null;
  power: number | null;
  speed: number | null;
  heart_rate: number | null;
  vo2: number | null;
}

export interface LactateRequest {
  sport_kind: LactateKind;
  points: LactateStep[];
}

const SPORT_KINDS: Record<string, LactateKind> = { cycling: 'power', running: 'speed' };

/** The intensity kind of a sport's lactate tests, or null when its tests derive nothing. */
export function lactateKind(sport: string): LactateKind | null {
  return SPORT_KINDS[rootSport(sport) ?? ''] ?? null;
}

/** The points of a test's linked traces, ordered by intensity; null when the sport has no intensity kind. */
export function lactatePoints(sport: string, traces: readonly LactateTrace[]): LactateRequest | null {
  const kind = lactateKind(sport);
  if (kind === null) return null;
  const points = traces
    .filter((trace) => trace.lactate !== null && trace.lactate > 0)
    .map((trace): LactateStep => ({ intensity: trace[kind] ?? 0, lactate: trace.lactate!, heart_rate: trace.heart_rate, vo2: trace.vo2 }))
    .sort((a, b) => (a.intensity ?? 0) - (b.intensity ?? 0));
  return { sport_kind: kind, points };
}

/** A derived threshold as a test result holds it, rounded; null stays null. */
export function roundedThreshold(point: DerivedThreshold | null, kind: LactateKind): ThresholdValues | null {
  if (point === null) return null;
  return {
    power: kind === 'power' ? Math.round(point.intensity) : null,
    speed: kind === 'speed' ? round(point.intensity, 2) : null,
    heart_rate: point.heart_rate === null ? null : Math.round(point.heart_rate),
    lactate: round(point.lactate, 2),
    vo2: point.vo2 === null ? null : Math.round(point.vo2),
  };
}

/**
 * `results` with `lt1`/`lt2` derived from `linked` (the test's linked traces) where `given(results, name)`
 * says the results hold none. Answers `results` unchanged when both are given, the sport has no intensity
 * kind, no trace carries lactate (> 0), or there are more points than MAX_LACTATE_POINTS.
 */
export async function withDerivedLactate<R extends object>(
  sport: string,
  results: R,
  given: (results: R, name: 'lt1' | 'lt2') => boolean,
  linked: readonly LactateTrace[],
  derive: (request: LactateRequest) => DerivedThresholds | Promise<DerivedThresholds>,
): Promise<R> {
  const hasLt1 = given(results, 'lt1');
  const hasLt2 = given(results, 'lt2');
  if (hasLt1 && hasLt2) return results;
  const request = lactatePoints(sport, linked);
  if (request === null || request.points.length === 0 || request.points.length > MAX_LACTATE_POINTS) return results;
  const derived = await derive(request);
  return {
    ...results,
    ...(!hasLt1 && { lt1: roundedThreshold(derived.lt1, request.sport_kind) }),
    ...(!hasLt2 && { lt2: roundedThreshold(derived.lt2, request.sport_kind) }),
  };
}

function round(value: number, decimals: number): number {
  const scale = 10 ** decimals;
  return Math.round(value * scale) / scale;
}
