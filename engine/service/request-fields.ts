/** Request checks shared by the RPC handlers: the engine trusts its callers, but not their typos. */
import { status } from '@grpc/grpc-js';
import { EngineError } from '../errors.js';
import type { CurveMetric } from '../analysis/canonical-series.js';
import { DEFAULT_DURATIONS } from '../kernels/duration-grid.js';
import { MAX_DURATION_S, MAX_DURATIONS } from '../contract.js';
import { parseDate } from '../../domain/time.js';

/** A non-blank string field; INVALID_ARGUMENT `<subsystem>: <field> must not be empty` otherwise. */
export function requireField(value: string | undefined, field: string, subsystem: string): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new EngineError(status.INVALID_ARGUMENT, `${subsystem}: ${field} must not be empty`);
  }
  return value;
}

/** "power" or "speed"; an empty or missing value gives `fallback`. */
export function curveMetric(value: string | undefined, field: string, subsystem: string, fallback: CurveMetric): CurveMetric {
  return optionalCurveMetric(value, field, subsystem) ?? fallback;
}

/** "power", "speed", or null when empty or missing; anything else is INVALID_ARGUMENT. */
export function optionalCurveMetric(value: string | undefined, field: string, subsystem: string): CurveMetric | null {
  if (value === undefined || value === '') return null;
  if (value === 'power' || value === 'speed') return value;
  throw new EngineError(status.INVALID_ARGUMENT, `${subsystem}: ${field} must be power or speed, not '${value}'`);
}

/** A calendar date `YYYY-MM-DD`; INVALID_ARGUMENT when empty, missing or not a real date. */
export function requireDate(value: string | undefined, field: string, subsystem: string): string {
  if (typeof value !== 'string' || parseDate(value) === null) {
    throw new EngineError(status.INVALID_ARGUMENT, `${subsystem}: ${field} '${value ?? ''}' is not a date (YYYY-MM-DD)`);
  }
  return value;
}

/** One of `allowed`; INVALID_ARGUMENT naming them otherwise. */
export function requireOneOf<T extends string>(value: string | undefined, allowed: readonly T[], field: string, subsystem: string): T {
  if (!(allowed as readonly string[]).includes(value ?? '')) {
    throw new EngineError(status.INVALID_ARGUMENT, `${subsystem}: ${field} must be ${allowed.join(', ')}, not '${value ?? ''}'`);
  }
  return value as T;
}


/**
 * The durations of a mean-max request, ascending without repeats: the 19 defaults when none are given,
 * null for the full grid (`all_durations`), else the list (each whole, 1 s .. MAX_DURATION_S).
 */
export function requestedDurations(durations: number[] | undefined, all: boolean | undefined, subsystem: string): Int32Array | null {
  const list = durations ?? [];
  if (all === true) {
    if (list.length > 0) throw new EngineError(status.INVALID_ARGUMENT, `${subsystem}: give durations or all_durations, not both`);
    return null;
  }
  if (list.length === 0) return Int32Array.from(DEFAULT_DURATIONS);
  if (list.length > MAX_DURATIONS) throw new EngineError(status.INVALID_ARGUMENT, `${subsystem}: at most ${MAX_DURATIONS} durations, not ${list.length}`);
  for (const d of list) {
    if (!Number.isInteger(d) || d < 1 || d > MAX_DURATION_S) {
      throw new EngineError(status.INVALID_ARGUMENT, `${subsystem}: duration ${d} must be a whole number of seconds from 1 to ${MAX_DURATION_S}`);
    }
  }
  return Int32Array.from(new Set(list)).sort();
}
