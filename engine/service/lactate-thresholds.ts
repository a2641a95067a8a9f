/**
 * The LactateThresholds RPC (engine.proto "Tests"): validate the points, derive LT1 and LT2
 * (engine/analysis/lactate-thresholds.ts), answer with explicit nulls. It runs here on the main thread,
 * as the longitudinal fold does, not in the pool: at most 200 points and a grid of at most 100,000
 * intensities (10,000 W every 0.1 W), two linear passes — well under a millisecond's work for a real
 * test, less than a pool round trip would cost.
 *
 * Absent proto3 `optional` fields arrive as undefined, so undefined and null mean the same here.
 * test/engine/lactate-thresholds.test.ts calls it over gRPC, directly and through the gateway's client.
 */
import { status } from '@grpc/grpc-js';
import { lactateThresholds as deriveThresholds } from '../analysis/lactate-thresholds.js';
import { EngineError } from '../errors.js';
import {
  MAX_LACTATE_INTENSITY, MAX_LACTATE_POINTS, type LactatePoint, type LactateSportKind, type LactateThresholdsResponse,
} from '../contract.js';
import { optionalCurveMetric } from './request-fields.js';

const SUBSYSTEM = 'lactate thresholds';

/** The request as proto-loader hands it over: optional fields may be missing. */
interface WireRequest {
  sport_kind?: string;
  points?: { intensity?: number | null; lactate?: number; heart_rate?: number | null; vo2?: number | null }[];
}

export function lactateThresholds() {
  return async function lactateThresholdsCall(request: WireRequest): Promise<LactateThresholdsResponse> {
    const kind = optionalCurveMetric(request.sport_kind, 'sport_kind', SUBSYSTEM);
    if (kind === null) throw invalid('sport_kind must be power or speed');
    const points = request.points ?? [];
    if (points.length > MAX_LACTATE_POINTS) throw invalid(`at most ${MAX_LACTATE_POINTS} points, not ${points.length}`);
    return deriveThresholds(kind, points.map((point, index) => checkedPoint(point, index, kind)));
  };
}

function checkedPoint(point: NonNullable<WireRequest['points']>[number], index: number, kind: LactateSportKind): LactatePoint {
  const lactate = point.lactate;
  if (typeof lactate !== 'number' || !Number.isFinite(lactate) || lactate <= 0) {
    throw invalid(`point ${index}: lactate ${lactate} must be a number > 0`);
  }
  const intensity = point.intensity ?? null;
  const highest = MAX_LACTATE_INTENSITY[kind];
  if (intensity !== null && !(Number.isFinite(intensity) && intensity >= 0 && intensity <= highest)) {
    throw invalid(`point ${index}: intensity ${intensity} must be a number from 0 to ${highest} (${kind === 'power' ? 'W' : 'm/s'})`);
  }
  return { intensity, lactate, heart_rate: measured(point.heart_rate, 'heart_rate', index), vo2: measured(point.vo2, 'vo2', index) };
}

function measured(value: number | null | undefined, field: string, index: number): number | null {
  if (value === undefined || value === null) return null;
  if (!Number.isFinite(value) || value < 0) throw invalid(`point ${index}: ${field} ${value} must be a number ≥ 0`);
  return value;
}

function invalid(message: string): EngineError {
  return new EngineError(status.INVALID_ARGUMENT, `${SUBSYSTEM}: ${message}`);
}
