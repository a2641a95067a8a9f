/**
 * Measured markers, the pure part shared by the gateway (marker list, GET /profile/markers) and the engine
 * (the metabolic map's inputs): a test's results are the only source of `provenance: measured` marker rows
 * (gaps.md "Markers": "measured values come only from tests"; ANALYTICS.md §7: test results "count as
 * measured markers dated at the test's start"). Readers take them from the `tests` collection on every
 * call, never copied into `markers`, so a changed or deleted test changes its markers at once.
 *
 * Each non-null result value becomes one row: `{sport: the test's root sport, date: the local date of the
 * test's start, provenance: measured, pinned: false, source: null, application_id: the app that created
 * the test, activity_id: null}`, with an id derived from (test id, marker, metric), so the same result
 * keeps the same id. Values that no marker row may hold (markers.ts `markerProblem`, or ≤ 0) are left out,
 * so every row obeys the rules a write obeys. Not markers: `vo2peak`, `vlamax`, `economy`, `efficiency`,
 * and each threshold's `lactate`.
 *
 * LT1/LT2 derived from a test's linked lactate traces count too (`withDerivedThresholds`): a test whose
 * results give no lt1 or lt2 has its linked traces read (one read for all such tests, by the caller's
 * `readLinked`) and derived by the caller's `derive` (the engine's kernel, or the RPC from the gateway).
 * Not here: storage, the derivation itself. Kept honest by test/gateway/measured-markers.test.ts, the step
 * test in test/gateway/tests-records.test.ts and test/engine/model-inputs.test.ts.
 */
import { createHash } from 'node:crypto';
import { rootSport } from './sport.js';
import { localDate } from './time.js';
import { markerProblem, type MarkerMetric, type MarkerName } from './markers.js';
import { lactateKind, withDerivedLactate, type DerivedThresholds, type LactateRequest, type LactateTrace } from './lactate-points.js';

/**
 * The fields of a stored test this reads (a TestRecord fits): `sport` (canonical OST, may be a sub-sport:
 * cycling.road counts for cycling), `start` (UTC epoch ms), `start_offset` (minutes east of UTC; 0 when
 * absent), `created_by` (an application id, or 'user' / null for the person), `created_at` (epoch ms;
 * `start` when absent) and `results`:
 *   first_threshold | second_threshold | fatmax | lt1 | lt2 | vt1 | vt2 | mlss:
 *       {power, speed, heart_rate, lactate, vo2} | null
 *   vo2max, vo2peak, vlamax, heart_rate_max, critical_power, critical_speed, w_prime (kJ), d_prime (m),
 *   economy, efficiency: number | null
 */
export interface MeasuredTest {
  id: string;
  sport: string;
  start: number;
  start_offset?: number | null;
  created_by?: string | null;
  created_at?: number | null;
  results: object | null;
}

/** A measured marker row, field for field a stored marker row (storage/records.ts MarkerRecord). */
export interface MeasuredMarker {
  id: string;
  user_id: string;
  sport: string;
  marker: MarkerName;
  metric: MarkerMetric;
  value: number;
  date: string;
  provenance: 'measured';
  pinned: false;
  source: null;
  application_id: string | null;
  activity_id: null;
  test_id: string;
  created_at: number;
}

const PERSON = 'user';

const THRESHOLD_RESULTS = ['first_threshold', 'second_threshold', 'fatmax', 'lt1', 'lt2', 'vt1', 'vt2', 'mlss'] as const;
const THRESHOLD_METRICS = ['power', 'speed', 'heart_rate', 'vo2'] as const;
/** Every field of a threshold result; one with a number in any of them counts as given. */
const THRESHOLD_FIELDS = [...THRESHOLD_METRICS, 'lactate'] as const;
/** Scalar results that are markers: result key → marker and metric (w_prime kJ, d_prime m, vo2max mL/min). */
const SCALAR_RESULTS: readonly (readonly [MarkerName, MarkerMetric])[] = [
  ['heart_rate_max', 'heart_rate'], ['critical_power', 'power'], ['critical_speed', 'speed'],
  ['w_prime', 'power'], ['d_prime', 'speed'], ['vo2max', 'vo2'],
];

/** The (marker, metric, value) triples a test's results hold, before any rule is applied. */
function resultsOf(test: MeasuredTest): [MarkerName, MarkerMetric, unknown][] {
  const results = (test.results ?? {}) as Record<string, unknown>;
  const out: [MarkerName, MarkerMetric, unknown][] = [];
  for (const marker of THRESHOLD_RESULTS) {
    const point = results[marker];
    if (!isObject(point)) continue;
    for (const metric of THRESHOLD_METRICS) out.push([marker, metric, point[metric]]);
  }
  for (const [marker, metric] of SCALAR_RESULTS) out.push([marker, metric, results[marker]]);
  return out;
}

/** The stable id of the row a test's result becomes: 16 hex characters, like every other id. */
export function measuredMarkerId(testId: string, marker: MarkerName, metric: MarkerMetric): string {
  return createHash('sha256').update(`measured\0${testId}\0${marker}\0${metric}`).digest('hex').slice(0, 16);
}

/** The rows of one test, unfiltered. */
export function markersOfTest(test: MeasuredTest, userId: string): MeasuredMarker[] {
  const sport = rootSport(test.sport);
  if (sport === null) return [];
  const date = localDate(test.start, test.start_offset ?? 0);
  const applicationId = test.created_by && test.created_by !== PERSON ? test.created_by : null;
  const rows: MeasuredMarker[] = [];
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

/** True when the results give threshold `name`: an object with a number in at least one of its fields. */
export function thresholdGiven(results: object | null, name: string): boolean {
  const point = (results as Record<string, unknown> | null)?.[name];
  return isObject(point) && THRESHOLD_FIELDS.some((field) => typeof point[field] === 'number');
}

/**
 * The tests with `results.lt1`/`lt2` derived from their linked lactate traces where the results give none.
 * `readLinked` answers the traces linked to any of the given test ids (each with its `test_id`); it is
 * called once, and only when some test may derive.
 */
export async function withDerivedThresholds<T extends MeasuredTest>(
  tests: readonly T[],
  readLinked: (testIds: string[]) => Promise<readonly (LactateTrace & { test_id: string | null })[]>,
  derive: (request: LactateRequest) => DerivedThresholds | Promise<DerivedThresholds>,
): Promise<T[]> {
  const open = tests.filter((test) => lactateKind(test.sport) !== null && !(thresholdGiven(test.results, 'lt1') && thresholdGiven(test.results, 'lt2')));
  if (open.length === 0) return [...tests];
  const traces = await readLinked(open.map((test) => test.id));
  const derived = new Map<string, T>();
  await Promise.all(open.map(async (test) => {
    const linked = traces.filter((trace) => trace.test_id === test.id);
    if (linked.length === 0) return;
    const results = await withDerivedLactate(test.sport, test.results ?? {}, thresholdGiven, linked, derive);
    derived.set(test.id, { ...test, results });
  }));
  return tests.map((test) => derived.get(test.id) ?? test);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
