/**
 * Activities carry their `traces` (interface §2 "Activity"): the traces whose timestamp lies in the
 * activity's [start, end], oldest first, each presented with its lap, test and test_match and `activity`
 * null (it is the enclosing one). Resolved at read time for a whole page — for a list page, nothing more
 * than one indexed row when the user has no trace at all; else one query on the traces'
 * (user_id, timestamp) index, a range per activity (per 200 activities); only when a trace falls in the page, one query for the tests they can match
 * and one for the laps of the activities holding them — so a trace written after an activity's listing was
 * stored still shows (services/listing-page.ts splices the result in). Kept honest by
 * test/gateway/traces.test.ts.
 */
import { z } from 'zod';
import type { LapRecord, Store, TraceRecord } from '../../storage/store.js';
import type { Principal } from '../auth/access-tokens.js';
import { listingSpan } from '../presenters/activity.js';
import { jsonWriter } from '../presenters/json-writer.js';
import { presentTrace } from '../presenters/trace.js';
import { Trace } from '../schemas/records.js';
import { lapAt, testLinks } from './trace-links.js';

const RANGES_PER_QUERY = 200;
const TRACES = z.array(Trace);

export interface ActivitySpan {
  id: string;
  start: number;
  end: number;
}

/** The presented traces of each activity (an empty list when it has none), by activity id. */
export async function tracesByActivity(store: Store, userId: string, activities: readonly ActivitySpan[], principal: Principal): Promise<Map<string, object[]>> {
  const out = new Map<string, object[]>(activities.map((activity) => [activity.id, []]));
  if (activities.length === 0) return out;
  // Most pages hold no trace at all: one indexed probe over the page's whole span settles that before the
  // query of one range per activity (which costs a list request about a fifth of its time).
  const first = Math.min(...activities.map((activity) => activity.start));
  const last = Math.max(...activities.map((activity) => activity.end));
  if ((await store.traces.findFields({ user_id: userId, timestamp: { $gte: first, $lte: last } }, ['id'], { limit: 1 })).length === 0) return out;
  // One range per activity (each clause on the (user_id, timestamp) index), not the page's whole span; at
  // most RANGES_PER_QUERY per query (SQLite's expression depth is 1000), so a page of up to 200 is one query.
  const ranges = activities.map((activity) => ({ user_id: userId, timestamp: { $gte: activity.start, $lte: activity.end } }));
  const chunks: (typeof ranges)[] = [];
  for (let i = 0; i < ranges.length; i += RANGES_PER_QUERY) chunks.push(ranges.slice(i, i + RANGES_PER_QUERY));
  const found = await Promise.all(chunks.map((chunk) => store.traces.find({ user_id: userId, $or: chunk })));
  const traces = [...new Map(found.flat().map((trace) => [trace.id, trace])).values()].sort((a, b) => a.timestamp - b.timestamp || (a.id < b.id ? -1 : 1));
  if (traces.length === 0) return out;
  const holding = new Map<string, TraceRecord[]>();
  for (const activity of activities) {
    const inside = traces.filter((trace) => activity.start <= trace.timestamp && trace.timestamp <= activity.end);
    if (inside.length > 0) holding.set(activity.id, inside);
  }
  if (holding.size === 0) return out;
  const [tests, laps] = await Promise.all([
    testLinks(store, userId, [...holding.values()].flat()),
    store.activities.findFields({ user_id: userId, id: { $in: [...holding.keys()] } }, ['id', 'laps']),
  ]);
  const lapsOf = new Map<string, LapRecord[] | null>(laps.map((row) => [row.id, row.laps]));
  for (const [activityId, inside] of holding) {
    out.set(activityId, inside.map((trace) => presentTrace(trace, { activity: null, lap: lapAt(lapsOf.get(activityId), trace.timestamp), ...tests(trace) }, principal)));
  }
  return out;
}

/** Whether the user has any trace. */
async function hasTraces(store: Store, userId: string): Promise<boolean> {
  return (await store.traces.findFields({ user_id: userId }, ['id'], { limit: 1 })).length > 0;
}

/** services/listing-page.ts `resolve` for activities: each listing's `traces` as JSON text. */
export function activityTracesResolver(store: Store, principal: Principal & { userId: string }) {
  return async (entries: { id: string; listing: string }[]): Promise<Map<string, string[]>> => {
    // Most users keep no trace at all: one row looked up on the (user_id, …) index settles that before any
    // listing is parsed for its span (about a tenth of a list request went to the span probe).
    if (!(await hasTraces(store, principal.userId))) return new Map(entries.map((entry) => [entry.id, ['[]']]));
    const spans = entries.map((entry) => ({ id: entry.id, ...listingSpan(entry.listing) }));
    const traces = await tracesByActivity(store, principal.userId, spans, principal);
    const write = jsonWriter(TRACES);
    return new Map([...traces].map(([id, list]) => [id, [list.length === 0 ? '[]' : write(list)]]));
  };
}
