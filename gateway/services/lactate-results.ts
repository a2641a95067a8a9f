/**
 * Derived LT1/LT2 of a test (ANALYTICS.md §7, "Lactate thresholds from a test's linked traces"): when the
 * test's own results give no `lt1` (or `lt2`), the engine derives it from the linked traces carrying lactate
 * — intensity = power for cycling, speed for running (the sport's root); a trace with lactate and no or zero
 * intensity is the resting point, sent with intensity 0 (the engine places it and decides whether there are
 * enough steps). Any other sport derives nothing. This file only assembles the points and rounds the answer:
 * power whole W, speed m/s to 2 decimals, heart rate whole bpm, lactate mmol/L to 2 decimals, vo2 whole
 * mL/min. Kept honest by the step test in test/gateway/tests-records.test.ts.
 */
import type { TestRecord, TraceRecord } from '../../storage/store.js';
import { rootSport } from '../../domain/sport.js';
import type { MarkerValues, TestResultsValues } from '../presenters/test-record.js';

export interface LactatePoint {
  /** W or m/s; 0 for the resting point. */
  intensity: number;
  /** mmol/L. */
  lactate: number;
  /** bpm, null when the trace has none. */
  heart_rate: number | null;
  /** mL/min, null when the trace has none. */
  vo2: number | null;
}

export interface LactateThresholdsRequest {
  sport_kind: 'power' | 'speed';
  points: LactatePoint[];
}

export interface LactateThresholdsResponse {
  lt1: LactatePoint | null;
  lt2: LactatePoint | null;
}

/** The engine call this needs (gateway/engine-client.ts, once the lactate RPC is there). */
export interface LactateEngine {
  lactateThresholds(request: LactateThresholdsRequest): Promise<LactateThresholdsResponse>;
}

const SPORT_KINDS: Record<string, 'power' | 'speed'> = { cycling: 'power', running: 'speed' };

/** The points of a test's linked traces, ordered by intensity; null when the sport has no intensity kind. */
export function lactatePoints(sport: string, traces: readonly TraceRecord[]): LactateThresholdsRequest | null {
  const kind = SPORT_KINDS[rootSport(sport) ?? ''];
  if (!kind) return null;
  const points = traces
    .filter((trace) => trace.lactate !== null)
    .map((trace): LactatePoint => ({ intensity: trace[kind] ?? 0, lactate: trace.lactate!, heart_rate: trace.heart_rate, vo2: trace.vo2 }))
    .sort((a, b) => a.intensity - b.intensity);
  return { sport_kind: kind, points };
}

/**
 * `results` with `lt1`/`lt2` derived from `linked` (the test's linked traces) where the results give none.
 * Answers `results` unchanged when both are given, the sport has no intensity kind, no trace carries
 * lactate, or the engine cannot derive them yet.
 */
export async function deriveLactateResults(
  deps: { engine: object },
  test: TestRecord,
  results: TestResultsValues,
  linked: readonly TraceRecord[],
): Promise<TestResultsValues> {
  if (results.lt1 !== null && results.lt2 !== null) return results;
  const request = lactatePoints(test.sport, linked);
  if (request === null || request.points.length === 0) return results;
  // TODO(issue12-lactate): the engine's lactate-threshold RPC (EngineClient.lactateThresholds) is written on
  // branch issue12-lactate and not merged here yet; until it is, nothing is derived (never a made-up value).
  const engine = deps.engine as Partial<LactateEngine>;
  if (typeof engine.lactateThresholds !== 'function') return results;
  const derived = await engine.lactateThresholds(request);
  return {
    ...results,
    lt1: results.lt1 ?? roundMarker(derived.lt1, request.sport_kind),
    lt2: results.lt2 ?? roundMarker(derived.lt2, request.sport_kind),
  };
}

function roundMarker(point: LactatePoint | null, kind: 'power' | 'speed'): MarkerValues | null {
  if (point === null) return null;
  return {
    power: kind === 'power' ? Math.round(point.intensity) : null,
    speed: kind === 'speed' ? round(point.intensity, 2) : null,
    heart_rate: point.heart_rate === null ? null : Math.round(point.heart_rate),
    lactate: round(point.lactate, 2),
    vo2: point.vo2 === null ? null : Math.round(point.vo2),
  };
}

function round(value: number, decimals: number): number {
  const scale = 10 ** decimals;
  return Math.round(value * scale) / scale;
}
