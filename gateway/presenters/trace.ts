/**
 * Trace records → the interface's Trace (interface §2 "Trace"), with what is resolved at read time
 * (services/trace-links.ts): the `lap` and `activity` the trace falls in, its `test` and `test_match`.
 * Explicit field list: a record is never spread into a response.
 */
import type { ActivityRecord, LapRecord, TestRecord, TraceRecord } from '../../storage/store.js';
import { formatLocal, formatUtc } from '../../domain/time.js';
import type { Principal } from '../auth/access-tokens.js';
import { ownMetadata, presentActivitySummary, presentLap } from './activity.js';
import { presentTestSummary } from './test-record.js';
import { repeated } from './json-writer.js';

export interface TraceLinks {
  /** The activity the trace falls in; null when none, or when the trace is shown inside that activity. */
  activity: ActivityRecord | null;
  lap: LapRecord | null;
  test: TestRecord | null;
  match: 'explicit' | 'window' | null;
}

/**
 * `shared` holds what traces of one page have in common (an activity, its laps, a test: the records
 * traceLinks hands out are the same objects for every trace they hold), so each is presented once a page and
 * the same object is written for every trace, its JSON text written once (json-writer.ts `repeated`); the
 * text is the same as presenting it anew each time.
 */
export function presentTrace(record: TraceRecord, links: TraceLinks, principal: Principal, shared: Map<object, object> = new Map()) {
  return {
    id: record.id,
    timestamp: formatUtc(record.timestamp),
    timestamp_local: formatLocal(record.timestamp, record.offset),
    test_id: record.test_id,
    lactate: record.lactate,
    rpe: record.rpe,
    notes: record.notes,
    power: record.power,
    speed: record.speed,
    heart_rate: record.heart_rate,
    vo2: record.vo2,
    tags: [...record.tags],
    sport: record.sport,
    lap: links.lap ? once(shared, links.lap, presentLap) : null,
    // The activity's own traces are left null here: it would list this trace inside itself.
    activity: links.activity ? once(shared, links.activity, (activity) => presentActivitySummary(activity, principal, null)) : null,
    test: links.test ? once(shared, links.test, (test) => presentTestSummary(test, principal)) : null,
    test_match: links.match,
    app_metadata: ownMetadata(record.app_metadata, principal),
  };
}

function once<K extends object>(shared: Map<object, object>, key: K, present: (key: K) => object): object {
  let presented = shared.get(key);
  if (presented === undefined) shared.set(key, presented = repeated(present(key)));
  return presented;
}
