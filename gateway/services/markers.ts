/**
 * The marker list (gaps.md "Markers"; interface §4: "what was written, not what wins"): the rows written
 * through the API (collection `markers`: declared and external) and the rows measured by tests
 * (services/measured-markers.ts), filtered alike and ordered newest first — by `date`, then `created_at`,
 * then `id` — so the order never depends on the backend. Not paged: the interface gives markers no
 * `limit`/`offset`, and a user writes few of them. Choosing what wins is the metabolic map's job.
 * `writeMarker` is the one way a declared or external value is written (the API's POST and the athlete's
 * settings page).
 */
import type { Filter, MarkerRecord, Store } from '../../storage/store.js';
import { newId } from '../../storage/ids.js';
import { markerProblem, type MarkerMetric, type MarkerName } from '../../domain/markers.js';
import type { EngineClient } from '../engine-client.js';
import { ValidationError } from '../errors.js';
import { measuredMarkers, type MarkerFilter } from './measured-markers.js';

export type { MarkerFilter } from './measured-markers.js';

export async function findMarkers(deps: { store: Store; engine: Pick<EngineClient, 'lactateThresholds'> }, userId: string, filter: MarkerFilter): Promise<MarkerRecord[]> {
  const { store } = deps;
  const query: Filter<MarkerRecord> = { user_id: userId };
  if (filter.sports?.length) query.sport = { $in: filter.sports };
  if (filter.markers?.length) query.marker = { $in: filter.markers };
  if (filter.start || filter.end) query.date = { ...(filter.start && { $gte: filter.start }), ...(filter.end && { $lte: filter.end }) };
  const [written, measured] = await Promise.all([store.markers.find(query), measuredMarkers(store, userId, filter, deps.engine)]);
  return [...written, ...measured].sort(newestFirst);
}

/** Date descending, then created_at descending, then id ascending. */
export function newestFirst(a: { date: string; created_at: number; id: string }, b: { date: string; created_at: number; id: string }): number {
  if (a.date !== b.date) return a.date < b.date ? 1 : -1;
  if (a.created_at !== b.created_at) return b.created_at - a.created_at;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** A declared or external marker value as a person or an app writes it. */
export interface MarkerWrite {
  sport: string;
  marker: MarkerName;
  metric: MarkerMetric;
  /** In the metric's unit (W, m/s, bpm, mL/min); w_prime kJ, d_prime m. */
  value: number;
  date: string;
  provenance: 'declared' | 'external';
  pinned: boolean;
}

/** Stores one written marker row for `userId` (source null: API and page writes) and answers it. */
export async function writeMarker(store: Store, userId: string, write: MarkerWrite, applicationId: string | null): Promise<MarkerRecord> {
  const problem = write.value > 0 ? markerProblem(write.marker, write.metric, write.value) : { field: 'value' as const, message: 'value must be greater than 0' };
  if (problem) throw ValidationError.single(['body', problem.field], problem.message);
  const record: MarkerRecord = {
    id: newId(), user_id: userId, sport: write.sport, marker: write.marker, metric: write.metric,
    value: write.value, date: write.date, provenance: write.provenance, pinned: write.pinned,
    // gaps.md row: source is the integration a value came from, null for API writes.
    source: null, application_id: applicationId, activity_id: null, test_id: null, created_at: Date.now(),
  };
  await store.markers.insert(record);
  return record;
}
