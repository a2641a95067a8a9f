/**
 * Measured markers: a test's results are the only source of `provenance: measured` marker rows
 * (gaps.md "Markers": "measured values come only from tests"; ANALYTICS.md §7: test results "count as
 * measured markers dated at the test's start"). They are read from the `tests` collection on every call,
 * never copied into `markers`, so a changed or deleted test changes its markers at once.
 *
 * Each non-null result value becomes one row: `{sport: the test's root sport, date: the local date of the
 * test's start, provenance: measured, pinned: false, source: null, application_id: the app that created
 * the test, activity_id: null}`, with an id derived from (test id, marker, metric), so the same result
 * keeps the same id. Values that no marker row may hold (domain/markers.ts `markerProblem`, or ≤ 0) are
 * left out, so every row obeys the rules a write obeys. Not markers: `vo2peak`, `vlamax`, `economy`,
 * `efficiency`, and each threshold's `lactate`.
 *
 * LT1/LT2 derived from a test's linked lactate traces (services/lactate-results.ts, the same derivation
 * the test's details show) count too, when an engine is given to derive them: a test whose results give
 * no lt1 or lt2 has its linked traces read (one query for all such tests) and sent to the engine. Kept
 * honest by test/gateway/measured-markers.test.ts and the step test in test/gateway/tests-records.test.ts.
 */
import { createHash } from 'node:crypto';
import type { Filter, MarkerRecord, Store, TestRecord } from '../../storage/store.js';
import { dateToEpochDay, localDate } from '../../domain/time.js';
import { rootSport } from '../../domain/sport.js';
import { markerProblem, type MarkerMetric, type MarkerName } from '../../domain/markers.js';
import type { EngineClient } from '../engine-client.js';
import { completeResults } from '../presenters/test-record.js';
import { deriveLactateResults, lactatePoints } from './lactate-results.js';

/** Which rows a list wants; an absent field does not filter. Dates are inclusive `YYYY-MM-DD`. */
export interface MarkerFilter {
  sports?: readonly string[];
  markers?: readonly string[];
  start?: string;
  end?: string;
}

// ---- The assumed shape of a stored test: the one place to reconcile with the tests resource. ----------
//
// Read from `tests` (storage/records.ts TestRecord): `id`, `user_id`, `sport` (canonical OST, may be a
// sub-sport: cycling.road counts for cycling), `start` (UTC epoch ms), `start_offset` (minutes east of UTC;
// 0 when absent), `created_by` (an application id, or 'user' / null for the person), `created_at` (epoch
// ms; `start` when absent) and `results`:
//   first_threshold | second_threshold | fatmax | lt1 | lt2 | vt1 | vt2 | mlss:
//       {power, speed, heart_rate, lactate, vo2} | null
//   vo2max, vo2peak, vlamax, heart_rate_max, critical_power, critical_speed, w_prime (kJ), d_prime (m),
//   economy, efficiency: number | null
type StoredTest = Pick<TestRecord, 'id' | 'sport' | 'start' | 'results'> & {
  start_offset?: number | null;
  created_by?: string | null;
  created_at?: number | null;
};
const PERSON = 'user';

const THRESHOLD_RESULTS = ['first_threshold', 'second_threshold', 'fatmax', 'lt1', 'lt2', 'vt1', 'vt2', 'mlss'] as const;
const THRESHOLD_METRICS = ['power', 'speed', 'heart_rate', 'vo2'] as const;
/** Scalar results that are markers: result key → marker and metric (w_prime kJ, d_prime m, vo2max mL/min). */
const SCALAR_RESULTS: readonly (readonly [MarkerName, MarkerMetric])[] = [
  ['heart_rate_max', 'heart_rate'], ['critical_power', 'power'], ['critical_speed', 'speed'],
  ['w_prime', 'power'], ['d_prime', 'speed'], ['vo2max', 'vo2'],
];

/** The (marker, metric, value) triples a test's results hold, before any rule is applied. */
function resultsOf(test: StoredTest): [MarkerName, MarkerMetric, unknown][] {
  const results = (test.results ?? {}) as Record<string, unknown>;
  const out: [MarkerName, MarkerMetric, unknown][] = [];
  for (const marker of THRESHOLD_RESULTS) {
    const point = results[marker];
    if (point === null || typeof point !== 'object' || Array.isArray(point)) continue;
    for (const metric of THRESHOLD_METRICS) out.push([marker, metric, (point as Record<string, unknown>)[metric]]);
  }
  for (const [marker, metric] of SCALAR_RESULTS) out.push([marker, metric, results[marker]]);
  return out;
}
// ----------------------------------------------------------------------------------------------------------

/** The stable id of the row a test's result becomes: 16 hex characters, like every other id. */
export function measuredMarkerId(testId: string, marker: MarkerName, metric: MarkerMetric): string {
  return createHash('sha256').update(`measured\0${testId}\0${marker}\0${metric}`).digest('hex').slice(0, 16);
}

/** The rows of one test, unfiltered. */
export function markersOfTest(test: StoredTest, userId: string): MarkerRecord[] {
  const sport = rootSport(test.sport);
  if (sport === null) return [];
  const date = localDate(test.start, test.start_offset ?? 0);
  const applicationId = test.created_by && test.created_by !== PERSON ? test.created_by : null;
  const rows: MarkerRecord[] = [];
  for (const [marker, metric, value] of resultsOf(test)) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || markerProblem(marker, metric, value)) continue;
    rows.push({
      id: measuredMarkerId(test.id, marker, metric), user_id: userId, sport, marker, metric, value, date,
      provenance: 'measured', pinned: false, source: null, application_id: applicationId, activity_id: null,
      test_id: test.id, created_at: test.created_at ?? test.start,
    });
  }
  return rows;
}

const DAY_MS = 86_400_000;

/** The user's measured marker rows that pass `filter`, in no particular order; with `engine`, derived LT1/LT2 included. */
export async function measuredMarkers(
  store: Store, userId: string, filter: MarkerFilter = {}, engine?: Pick<EngineClient, 'lactateThresholds'>,
): Promise<MarkerRecord[]> {
  const query: Filter<TestRecord> = { user_id: userId };
  // A coarse bound on the UTC start (a local date lies within a day of its UTC date); exact below.
  if (filter.start || filter.end) {
    query.start = {
      ...(filter.start && { $gte: (dateToEpochDay(filter.start) - 1) * DAY_MS }),
      ...(filter.end && { $lt: (dateToEpochDay(filter.end) + 2) * DAY_MS }),
    };
  }
  const tests = await store.tests.find(query);
  const withDerived = engine ? await withDerivedThresholds(store, engine, userId, tests) : tests;
  return withDerived.flatMap((test) => markersOfTest(test, userId)).filter((row) => matches(row, filter));
}

/** The tests with `results.lt1`/`lt2` derived from their linked lactate traces where the results give none. */
async function withDerivedThresholds(
  store: Store, engine: Pick<EngineClient, 'lactateThresholds'>, userId: string, tests: TestRecord[],
): Promise<TestRecord[]> {
  const open = tests.filter((test) => {
    const results = completeResults(test.results);
    return (results.lt1 === null || results.lt2 === null) && lactatePoints(test.sport, []) !== null;
  });
  if (open.length === 0) return tests;
  const traces = await store.traces.find({ user_id: userId, test_id: { $in: open.map((test) => test.id) } });
  const derived = new Map<string, TestRecord>();
  await Promise.all(open.map(async (test) => {
    const linked = traces.filter((trace) => trace.test_id === test.id);
    if (linked.length === 0) return;
    const results = await deriveLactateResults({ engine }, test, completeResults(test.results), linked);
    derived.set(test.id, { ...test, results: results as unknown as TestRecord['results'] });
  }));
  return tests.map((test) => derived.get(test.id) ?? test);
}

function matches(row: MarkerRecord, filter: MarkerFilter): boolean {
  return (!filter.sports?.length || filter.sports.includes(row.sport))
    && (!filter.markers?.length || filter.markers.includes(row.marker))
    && (!filter.start || row.date >= filter.start)
    && (!filter.end || row.date <= filter.end);
}
