/**
 * The user's measured markers as the gateway lists them (GET /profile/markers): the tests read from the
 * store, each test's results mapped to rows by domain/measured-markers.ts (the one mapping, shared with the
 * engine's metabolic map), LT1/LT2 derived from linked lactate traces through the engine's
 * LactateThresholds RPC when an engine is given. Kept honest by test/gateway/measured-markers.test.ts and
 * the step test in test/gateway/tests-records.test.ts.
 */
import type { Filter, MarkerRecord, Store, TestRecord } from '../../storage/store.js';
import { dateToEpochDay } from '../../domain/time.js';
import { markersOfTest, withDerivedThresholds } from '../../domain/measured-markers.js';
import type { EngineClient } from '../engine-client.js';
import { deriveThroughEngine } from './lactate-results.js';

export { measuredMarkerId } from '../../domain/measured-markers.js';

/** Which rows a list wants; an absent field does not filter. Dates are inclusive `YYYY-MM-DD`. */
export interface MarkerFilter {
  sports?: readonly string[];
  markers?: readonly string[];
  start?: string;
  end?: string;
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
  const withDerived = engine
    ? await withDerivedThresholds(tests, (testIds) => store.traces.find({ user_id: userId, test_id: { $in: testIds } }), deriveThroughEngine(engine))
    : tests;
  return withDerived.flatMap((test) => markersOfTest(test, userId)).filter((row) => matches(row, filter));
}

function matches(row: MarkerRecord, filter: MarkerFilter): boolean {
  return (!filter.sports?.length || filter.sports.includes(row.sport))
    && (!filter.markers?.length || filter.markers.includes(row.marker))
    && (!filter.start || row.date >= filter.start)
    && (!filter.end || row.date <= filter.end);
}
