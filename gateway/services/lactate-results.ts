/**
 * Derived LT1/LT2 of a test (ANALYTICS.md §7, "Lactate thresholds from a test's linked traces"): when the
 * test's own results give no `lt1` (or `lt2`), the engine derives it from the linked traces carrying lactate
 * — intensity = power for cycling, speed for running (the sport's root); a trace with lactate and no or zero
 * intensity is the resting point, sent with intensity 0 (the engine, gateway/engine-client.ts
 * `lactateThresholds`, places it and decides whether there are enough steps). Any other sport derives
 * nothing. This file only assembles the points and rounds the answer: power whole W, speed m/s to 2 decimals, heart rate whole bpm, lactate mmol/L to 2 decimals, vo2 whole
 * mL/min. Kept honest by the step test in test/gateway/tests-records.test.ts.
 */
import type { TestRecord, TraceRecord } from '../../storage/store.js';
import { rootSport } from '../../domain/sport.js';
import { MAX_LACTATE_POINTS, type LactatePoint, type LactateThreshold, type LactateThresholdsRequest } from '../../engine/contract.js';
import type { EngineClient } from '../engine-client.js';
import type { MarkerValues, TestResultsValues } from '../presenters/test-record.js';

const SPORT_KINDS: Record<string, 'power' | 'speed'> = { cycling: 'power', running: 'speed' };

/** The points of a test's linked traces, ordered by intensity; null when the sport has no intensity kind. */
export function lactatePoints(sport: string, traces: readonly TraceRecord[]): LactateThresholdsRequest | null {
  const kind = SPORT_KINDS[rootSport(sport) ?? ''];
  if (!kind) return null;
  const points = traces
    .filter((trace) => trace.lactate !== null && trace.lactate > 0)
    .map((trace): LactatePoint => ({ intensity: trace[kind] ?? 0, lactate: trace.lactate!, heart_rate: trace.heart_rate, vo2: trace.vo2 }))
    .sort((a, b) => (a.intensity ?? 0) - (b.intensity ?? 0));
  return { sport_kind: kind, points };
}

/**
 * `results` with `lt1`/`lt2` derived from `linked` (the test's linked traces) where the results give none.
 * Answers `results` unchanged when both are given, the sport has no intensity kind, no trace carries
 * lactate (> 0), or more points than the engine takes (MAX_LACTATE_POINTS).
 */
export async function deriveLactateResults(
  deps: { engine: Pick<EngineClient, 'lactateThresholds'> },
  test: TestRecord,
  results: TestResultsValues,
  linked: readonly TraceRecord[],
): Promise<TestResultsValues> {
  if (results.lt1 !== null && results.lt2 !== null) return results;
  const request = lactatePoints(test.sport, linked);
  if (request === null || request.points.length === 0 || request.points.length > MAX_LACTATE_POINTS) return results;
  const derived = await deps.engine.lactateThresholds(request);
  return {
    ...results,
    lt1: results.lt1 ?? roundMarker(derived.lt1, request.sport_kind),
    lt2: results.lt2 ?? roundMarker(derived.lt2, request.sport_kind),
  };
}

function roundMarker(point: LactateThreshold | null, kind: 'power' | 'speed'): MarkerValues | null {
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
