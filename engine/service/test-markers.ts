/**
 * Measured marker values from tests' results, as the engine's models need them: `(marker, metric, value,
 * date, provenance measured, pinned false, created_at)` per result value, dated at the local date of the
 * test's start (ANALYTICS.md §7: test results "count as measured markers dated at the test's start").
 *
 * TODO(issue13-models): a LOCAL ADAPTER, kept to this one file on purpose. The mapping it mirrors lives in
 * gateway/services/measured-markers.ts (`markersOfTest`), which the engine may not import; branch
 * issue13-models moves that pure mapping into domain/. When that lands, replace the body of
 * `measuredCandidates` with the shared domain function and delete the copy of the result table below.
 * Same rules as the gateway's: each non-null, finite, > 0 value that domain/markers.ts `markerProblem`
 * accepts; the test's root sport. Deliberately not here: LT1/LT2 derived from a test's linked lactate traces
 * (the zones read no lt1/lt2; the metabolic map will, through the shared function).
 * Kept honest by test/gateway/zones.test.ts (a test's second_threshold makes the zones).
 */
import { markerProblem, type MarkerMetric, type MarkerName } from '../../domain/markers.js';
import { rootSport } from '../../domain/sport.js';
import { localDate } from '../../domain/time.js';
import type { TestRecord } from '../../storage/store.js';
import type { MarkerCandidate } from '../models/marker-precedence.js';

/** A measured value of one marker in one metric. */
export interface MeasuredCandidate extends MarkerCandidate {
  marker: MarkerName;
  metric: MarkerMetric;
}

/** The fields of a test the mapping reads. */
export const TEST_FIELDS = ['sport', 'start', 'start_offset', 'results', 'created_at'] as const;
export type TestFields = Pick<TestRecord, (typeof TEST_FIELDS)[number]>;

const THRESHOLD_RESULTS = ['first_threshold', 'second_threshold', 'fatmax', 'lt1', 'lt2', 'vt1', 'vt2', 'mlss'] as const;
const THRESHOLD_METRICS = ['power', 'speed', 'heart_rate', 'vo2'] as const;
const SCALAR_RESULTS: readonly (readonly [MarkerName, MarkerMetric])[] = [
  ['heart_rate_max', 'heart_rate'], ['critical_power', 'power'], ['critical_speed', 'speed'],
  ['w_prime', 'power'], ['d_prime', 'speed'], ['vo2max', 'vo2'],
];

/** The measured values of `test` when it belongs to root sport `sport`; none otherwise. */
export function measuredCandidates(test: TestFields, sport: string): MeasuredCandidate[] {
  if (rootSport(test.sport) !== sport) return [];
  const date = localDate(test.start, test.start_offset ?? 0);
  const results = (test.results ?? {}) as Record<string, unknown>;
  const triples: [MarkerName, MarkerMetric, unknown][] = [];
  for (const marker of THRESHOLD_RESULTS) {
    const point = results[marker];
    if (point === null || typeof point !== 'object' || Array.isArray(point)) continue;
    for (const metric of THRESHOLD_METRICS) triples.push([marker, metric, (point as Record<string, unknown>)[metric]]);
  }
  for (const [marker, metric] of SCALAR_RESULTS) triples.push([marker, metric, results[marker]]);
  const out: MeasuredCandidate[] = [];
  for (const [marker, metric, value] of triples) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || markerProblem(marker, metric, value)) continue;
    out.push({ marker, metric, value, date, provenance: 'measured', pinned: false, created_at: test.created_at ?? test.start });
  }
  return out;
}
