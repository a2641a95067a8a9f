/**
 * What a trace is linked to, resolved at read time for a whole page of traces at once (never per trace):
 *
 * - `activity`: the activity whose [start, end] holds the trace's timestamp (the latest-starting one when
 *   several do), and `lap`, the lap of that activity holding it. Activities starting up to
 *   ACTIVITY_LOOKBACK_MS before the page's earliest trace are considered: one range query on the
 *   (user_id, start) index.
 * - `test` and `test_match` (gaps.md "Trace"): `explicit` when linked by `test_id`; `window` when its
 *   timestamp lies in exactly one test's [start, end] and it is linked to no test; otherwise null (several
 *   tests holding the timestamp are ambiguous). A test lasts at most MAX_TEST_SPAN_MS (a write rule), so one
 *   query finds every candidate.
 *
 * Reading is resolution only: nothing is stored, so a trace, activity or test written later shows at once.
 * Kept honest by test/gateway/traces.test.ts.
 */
import type { LapRecord, Store, TraceRecord } from '../../storage/store.js';
import type { TraceLinks } from '../presenters/trace.js';

/** The longest test: a test's `end` is at most this long after its `start` (schemas/records.ts). */
export const MAX_TEST_SPAN_MS = 7 * 86_400_000;
/** The longest activity a trace is matched to. */
export const ACTIVITY_LOOKBACK_MS = 7 * 86_400_000;

export type TestLink = Pick<TraceLinks, 'test' | 'match'>;

/** The test link of each trace: one query for the tests the page's traces name or fall in. */
export async function testLinks(store: Store, userId: string, traces: readonly TraceRecord[]): Promise<(trace: TraceRecord) => TestLink> {
  if (traces.length === 0) return () => ({ test: null, match: null });
  const { min, max } = span(traces);
  const linked = [...new Set(traces.flatMap((trace) => (trace.test_id ? [trace.test_id] : [])))];
  const tests = await store.tests.find({
    user_id: userId,
    $or: [{ start: { $gte: min - MAX_TEST_SPAN_MS, $lte: max } }, ...(linked.length ? [{ id: { $in: linked } }] : [])],
  });
  const byId = new Map(tests.map((test) => [test.id, test]));
  return (trace) => {
    if (trace.test_id) {
      const test = byId.get(trace.test_id) ?? null;
      return { test, match: test ? 'explicit' : null };
    }
    const holding = tests.filter((test) => test.start <= trace.timestamp && trace.timestamp <= test.end);
    return holding.length === 1 ? { test: holding[0]!, match: 'window' } : { test: null, match: null };
  };
}

/** Every link of each trace: one query for activities, one for tests. */
export async function traceLinks(store: Store, userId: string, traces: readonly TraceRecord[]): Promise<(trace: TraceRecord) => TraceLinks> {
  if (traces.length === 0) return () => ({ activity: null, lap: null, test: null, match: null });
  const { min, max } = span(traces);
  const [activities, tests] = await Promise.all([
    store.activities.find({ user_id: userId, start: { $gte: min - ACTIVITY_LOOKBACK_MS, $lte: max } }, { sort: { start: -1 } }),
    testLinks(store, userId, traces),
  ]);
  return (trace) => {
    const activity = activities.find((candidate) => candidate.start <= trace.timestamp && trace.timestamp <= candidate.end) ?? null;
    return { activity, lap: activity ? lapAt(activity.laps, trace.timestamp) : null, ...tests(trace) };
  };
}

/** The lap holding `timestamp` (the later one on a shared boundary), or null. */
export function lapAt(laps: readonly LapRecord[] | null | undefined, timestamp: number): LapRecord | null {
  if (!laps) return null;
  for (let i = laps.length - 1; i >= 0; i--) {
    const lap = laps[i]!;
    if (lap.start <= timestamp && timestamp <= lap.end) return lap;
  }
  return null;
}

function span(traces: readonly TraceRecord[]): { min: number; max: number } {
  let min = Infinity;
  let max = -Infinity;
  for (const trace of traces) {
    min = Math.min(min, trace.timestamp);
    max = Math.max(max, trace.timestamp);
  }
  return { min, max };
}

