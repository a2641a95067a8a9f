/**
 * IngestSource: decode a stored upload source and store what it holds — one activity per session,
 * each with its record (summary, laps), its series blob and its analysis cache — then mark the source processed, or failed
 * with the decoder's code. The ingest job runs it; batch jobs may call it over gRPC.
 *
 * Idempotent and crash-safe: an activity's id is derived from (source id, session index), series
 * blobs are written before the records that point to them, and records, source status and outbox
 * events (`activity_created|updated`, then `activity_analyzed`: the cache exists when the record does,
 * `activity_deleted`, `source_processed`) land in one atomic batch. Running it again after a crash at any point replaces the same
 * activities and never creates a second copy; activities a re-decode no longer yields are removed.
 * test/engine/ingest-source.test.ts and test/gateway/ingest-crash.test.ts keep it honest.
 */
import { createHash } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import type { ActivityRecord, BatchOp, SourceRecord, Store } from '../../storage/store.js';
import { newEvent } from '../../storage/events.js';
import { localDate } from '../../domain/time.js';
import { EngineError, type CallContext } from '../errors.js';
import type { EnginePool } from '../pool/pool.js';
import type { DecodedActivityResult } from '../pool/tasks.js';
import type { IngestSourceRequest } from '../contract.js';
import { decodeStoredSource } from './decode-source.js';
import { requireField } from './request-fields.js';
import { analysisKey } from './analysis-cache.js';
import { ANALYSIS_VERSION } from '../analysis/activity-analysis.js';

export interface IngestResult {
  status: 'processed' | 'failed';
  activity_ids: string[];
  error: { code: string; message: string } | null;
  warnings: string[];
}

export interface IngestDeps {
  store: Store;
  pool: EnginePool;
  /** Called after events were written (the webhook dispatcher's wake). */
  wakeEvents?: () => void;
}

export function ingestSource(deps: IngestDeps) {
  return async function ingestSourceCall(request: IngestSourceRequest, { signal }: CallContext): Promise<IngestResult> {
    return ingestStoredSource(deps, requireField(request.user_id, 'user_id', 'ingest source'), requireField(request.source_id, 'source_id', 'ingest source'), signal);
  };
}

/** The activity id for a session of a source: stable across re-processing. */
export function activityIdFor(sourceId: string, index: number): string {
  return createHash('sha256').update(`${sourceId}:${index}`).digest('hex').slice(0, 16);
}

export function seriesKey(activityId: string): string {
  return `series:${activityId}`;
}

export async function ingestStoredSource(deps: IngestDeps, userId: string, sourceId: string, signal: AbortSignal, now = Date.now()): Promise<IngestResult> {
  let outcome;
  try {
    outcome = await decodeStoredSource(deps, userId, sourceId, signal);
  } catch (error) {
    // Missing bytes or an unknown file type fail the source like an undecodable file.
    if (error instanceof EngineError && error.status === status.FAILED_PRECONDITION && error.errorCode) {
      const failed = await recordFailure(deps.store, userId, sourceId, error.errorCode, error.message, now);
      deps.wakeEvents?.();
      return failed;
    }
    throw error;
  }
  let result: IngestResult;
  if (!outcome.ok) result = await recordFailure(deps.store, userId, sourceId, outcome.code, outcome.message, now);
  else if (outcome.activities.length === 0) result = await recordFailure(deps.store, userId, sourceId, 'no_activity', 'ingest: the file holds no activity', now);
  else result = await storeActivities(deps.store, userId, sourceId, outcome.activities, outcome.warnings, now);
  deps.wakeEvents?.();
  return result;
}

async function storeActivities(store: Store, userId: string, sourceId: string, decoded: DecodedActivityResult[], warnings: string[], now: number): Promise<IngestResult> {
  const previous = new Map((await store.activities.find({ user_id: userId, source_id: sourceId })).map((record) => [record.id, record]));
  const ops: BatchOp[] = [];
  const ids: string[] = [];
  const replacedCaches: string[] = [];
  for (const [index, activity] of decoded.entries()) {
    const id = activityIdFor(sourceId, index);
    ids.push(id);
    // The blobs first: a record never points to a series or cache that is not there.
    await store.blobs.put(seriesKey(id), new Uint8Array(activity.series), { userId });
    const analysis = analysisKey(id);
    await store.blobs.put(analysis, new Uint8Array(activity.analysis), { userId });
    const existing = previous.get(id);
    previous.delete(id);
    if (existing?.analysis_key) replacedCaches.push(existing.analysis_key);
    const record = activityRecord(id, userId, sourceId, index, activity, existing, now, analysis);
    if (record.sport !== activity.sport) {
      // Analysed for the file's sport, not the corrected one (speed caps differ): recomputed when first read.
      replacedCaches.push(analysis);
      delete record.analysis_key;
      delete record.analysis_version;
    }
    // The put names the whole shard key (user_id, start); a re-decoded start moves the record, so the old one goes first.
    if (existing && existing.start !== record.start) ops.push({ collection: 'activities', delete: { id, user_id: userId, start: existing.start } });
    ops.push({ collection: 'activities', put: record });
    ops.push({ collection: 'events', insert: newEvent(userId, existing ? 'activity_updated' : 'activity_created', id, now) });
    // The analysis cache was written above, so the activity is analysed as it becomes visible.
    ops.push({ collection: 'events', insert: newEvent(userId, 'activity_analyzed', id, now) });
  }
  for (const stale of previous.values()) {
    ops.push({ collection: 'activities', delete: { id: stale.id, user_id: userId } });
    ops.push({ collection: 'events', insert: newEvent(userId, 'activity_deleted', stale.id, now) });
  }
  ops.push({
    collection: 'sources',
    update: { id: sourceId, user_id: userId },
    change: { set: { status: 'processed', activity_ids: ids, error: null, warnings, updated_at: now } satisfies Partial<SourceRecord> },
  });
  ops.push({ collection: 'events', insert: newEvent(userId, 'source_processed', sourceId, now) });
  await store.batch(ops);
  for (const stale of previous.values()) {
    await store.blobs.delete(stale.series_key);
    if (stale.analysis_key) replacedCaches.push(stale.analysis_key);
  }
  for (const key of replacedCaches) await store.blobs.delete(key);
  return { status: 'processed', activity_ids: ids, error: null, warnings };
}

function activityRecord(
  id: string, userId: string, sourceId: string, index: number, activity: DecodedActivityResult, existing: ActivityRecord | undefined, now: number,
  analysisKey: string,
): ActivityRecord {
  return {
    id,
    user_id: userId,
    source_id: sourceId,
    source_index: index,
    // A sport the athlete corrected survives re-processing, as their tags and notes do.
    sport: existing?.sport_corrected_at !== undefined ? existing.sport : activity.sport,
    ...(existing?.sport_corrected_at !== undefined && { sport_corrected_at: existing.sport_corrected_at }),
    start: activity.start,
    end: activity.end,
    offset: activity.offset,
    local_date: localDate(activity.start, activity.offset),
    duration_s: (activity.end - activity.start) / 1000,
    metrics: ['duration', ...activity.metrics],
    // What the user or apps added survives re-processing.
    tags: existing?.tags ?? [],
    devices: activity.devices,
    distance: activity.distance,
    summary: activity.summary,
    laps: activity.laps.length > 0 ? activity.laps : null,
    app_metadata: existing?.app_metadata ?? {},
    ...(existing?.notes && { notes: existing.notes }),
    series_key: seriesKey(id),
    samples: activity.samples,
    analysis_key: analysisKey,
    analysis_version: ANALYSIS_VERSION,
    created_at: existing?.created_at ?? now,
    updated_at: now,
  };
}

export async function recordFailure(store: Store, userId: string, sourceId: string, code: string, message: string, now: number): Promise<IngestResult> {
  await store.batch([
    {
      collection: 'sources',
      update: { id: sourceId, user_id: userId },
      change: { set: { status: 'failed', error: { code, message }, activity_ids: [], updated_at: now } satisfies Partial<SourceRecord> },
    },
    { collection: 'events', insert: newEvent(userId, 'source_failed', sourceId, now) },
  ]);
  return { status: 'failed', activity_ids: [], error: { code, message }, warnings: [] };
}
