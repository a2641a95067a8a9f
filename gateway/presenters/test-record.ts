/**
 * Test records → the interface's Test summary and details (gaps.md "Shapes → Test"): every key present,
 * `end_local` included, and `results` with every marker and scalar key (null when absent). Explicit field
 * lists: a record is never spread into a response.
 */
import type { Json, JsonObject, TestRecord } from '../../storage/store.js';
import { formatLocal, formatUtc } from '../../domain/time.js';
import type { Principal } from '../auth/access-tokens.js';
import { MARKER_FIELDS, MARKER_RESULTS, SCALAR_RESULTS } from '../schemas/records.js';
import { ownMetadata } from './activity.js';

export type MarkerValues = Record<(typeof MARKER_FIELDS)[number], number | null>;
export type TestResultsValues = Record<(typeof MARKER_RESULTS)[number], MarkerValues | null> & Record<(typeof SCALAR_RESULTS)[number], number | null>;

export function presentTestSummary(record: TestRecord, principal: Principal, results: TestResultsValues = completeResults(record.results)) {
  return {
    id: record.id,
    sport: record.sport,
    start: formatUtc(record.start),
    start_local: formatLocal(record.start, record.start_offset),
    end: formatUtc(record.end),
    end_local: formatLocal(record.end, record.end_offset),
    title: record.title,
    results,
    tags: [...record.tags],
    created_by: record.created_by,
    app_metadata: ownMetadata(record.app_metadata, principal),
  };
}

/**
 * `results` with every key of gaps.md: a marker with at least one value as `{power, speed, heart_rate,
 * lactate, vo2}` (absent values null), otherwise null; each scalar or null. Also what a write stores.
 */
export function completeResults(stored: JsonObject | null | undefined): TestResultsValues {
  const out: Record<string, MarkerValues | number | null> = {};
  for (const name of MARKER_RESULTS) out[name] = completeMarker(stored?.[name]);
  for (const name of SCALAR_RESULTS) out[name] = numberOrNull(stored?.[name]);
  return out as TestResultsValues;
}

function completeMarker(value: Json | undefined): MarkerValues | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const marker = {} as MarkerValues;
  for (const field of MARKER_FIELDS) marker[field] = numberOrNull(value[field]);
  return MARKER_FIELDS.some((field) => marker[field] !== null) ? marker : null;
}

function numberOrNull(value: Json | undefined): number | null {
  return typeof value === 'number' ? value : null;
}
