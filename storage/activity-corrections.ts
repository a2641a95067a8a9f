/**
 * Correcting and deleting one activity (issue 28 item 5), beside the store because the API, the athlete's
 * pages and any later batch tool share it. Each write names its user and the activity's whole shard key,
 * writes its outbox event (`activity_updated`, `activity_deleted`) in the same batch, and is conditional on
 * the version read, retried a few times when a concurrent write got there first.
 *
 * A sport change drops what was derived from the sport: the analysis cache (speed caps and the default AWD
 * metric depend on it: engine/analysis/canonical-series.ts) is unnamed in the same write and its blob deleted
 * after it, so the next read computes it again for the new sport (engine/service/analysis-cache.ts); the
 * stored list entry goes with any change that does not name it (schema.ts `derived`); the projected columns
 * are written with the document; `updated_at` moves, which changes the models' input watermark
 * (engine/service/model-inputs.ts). Selections by sport read the stored sport, so they follow at once.
 *
 * A deletion removes the record, its series and analysis blobs, and the source (its record, original bytes
 * and ingest job) when no other activity of the user comes from it; otherwise the source stays and stops
 * listing the activity. Blobs go after the batch, once nothing names them: a crash in between leaves blobs the
 * user owns, which the user's deletion still reaches. Kept honest by test/storage/contract.ts (both backends)
 * and test/gateway/activity-corrections.test.ts.
 */
import { BatchConditionError, type ActivityRecord, type BatchOp, type Change, type Store } from './store.js';
import { newEvent } from './events.js';

/** Tries of a conditional write that lost a race before giving up (BatchConditionError). */
const ATTEMPTS = 4;

/** What a correction sets; an absent field stays as it is, a null `notes` clears them. */
export interface ActivityCorrection {
  sport?: string;
  tags?: string[];
  notes?: string | null;
}

/** The key prefix of every analysis cache blob of an activity (engine/service/analysis-cache.ts analysisKey). */
export function analysisKeyPrefix(activityId: string): string {
  return `analysis:${activityId}:`;
}

/**
 * Applies `correction` to the user's activity `activityId`; answers the record as stored afterwards, or null
 * when there is no such activity. Nothing is written (and no event) when nothing changes.
 */
export async function correctActivity(store: Store, userId: string, activityId: string, correction: ActivityCorrection, now = Date.now()): Promise<ActivityRecord | null> {
  for (let attempt = 1; ; attempt++) {
    const existing = await store.activities.findOne({ id: activityId, user_id: userId });
    if (!existing) return null;
    const set: Partial<ActivityRecord> = {};
    const unset: (keyof ActivityRecord)[] = [];
    const sportChanges = correction.sport !== undefined && correction.sport !== existing.sport;
    if (sportChanges) {
      set.sport = correction.sport;
      set.sport_corrected_at = now;
      unset.push('analysis_key', 'analysis_version');
    }
    if (correction.tags !== undefined && !sameList(correction.tags, existing.tags)) set.tags = correction.tags;
    if (correction.notes !== undefined && (correction.notes ?? null) !== (existing.notes ?? null)) {
      if (correction.notes === null) unset.push('notes');
      else set.notes = correction.notes;
    }
    if (Object.keys(set).length === 0 && unset.length === 0) return existing;
    set.updated_at = Math.max(now, existing.updated_at + 1);
    const change: Change<ActivityRecord> = { set, ...(unset.length > 0 && { unset }) };
    try {
      await store.batch([
        {
          collection: 'activities',
          // The version read, and the cache it names: a write in between (a cache computed for the old sport) retries.
          update: { id: existing.id, user_id: userId, start: existing.start, updated_at: existing.updated_at, analysis_key: existing.analysis_key ?? null },
          change,
          expect: 1,
        },
        { collection: 'events', insert: newEvent(userId, 'activity_updated', existing.id, now) },
      ]);
    } catch (error) {
      if (error instanceof BatchConditionError && attempt < ATTEMPTS) continue;
      throw error;
    }
    if (sportChanges) await store.blobs.deletePrefix(analysisKeyPrefix(existing.id));
    return store.activities.findOne({ id: existing.id, user_id: userId });
  }
}

/** What a deletion removed besides the activity record. */
export interface ActivityDeletion {
  /** The source went too (no other activity came from it). */
  sourceDeleted: boolean;
  /** Blobs removed: the series, the analysis caches and, with the source, its original bytes. */
  blobs: number;
}

/**
 * Deletes the user's activity `activityId` with its series and analyses, and its source when no other activity
 * of the user comes from it; null when there is no such activity (a concurrent deletion included).
 */
export async function deleteActivity(store: Store, userId: string, activityId: string, now = Date.now()): Promise<ActivityDeletion | null> {
  for (let attempt = 1; ; attempt++) {
    const record = await store.activities.findOne({ id: activityId, user_id: userId });
    if (!record) return null;
    const source = await store.sources.findOne({ id: record.source_id, user_id: userId });
    const siblings = await store.activities.findFields({ user_id: userId, source_id: record.source_id, id: { $ne: record.id } }, ['id'], { limit: 1 });
    const ops: BatchOp[] = [
      { collection: 'activities', update: { id: record.id, user_id: userId, start: record.start }, change: { set: { updated_at: record.updated_at } }, expect: 1 },
      { collection: 'activities', delete: { id: record.id, user_id: userId, start: record.start } },
      { collection: 'events', insert: newEvent(userId, 'activity_deleted', record.id, now) },
    ];
    const sourceDeleted = source !== null && siblings.length === 0;
    if (source) {
      // Conditional on the source as read: two siblings deleted at once must not both leave it to the other.
      ops.push({ collection: 'sources', update: { id: source.id, user_id: userId, updated_at: source.updated_at }, change: { set: { updated_at: Math.max(now, source.updated_at + 1) } }, expect: 1 });
      if (sourceDeleted) {
        ops.push({ collection: 'sources', delete: { id: source.id, user_id: userId } });
        ops.push({ collection: 'jobs', delete: { key: `ingest:${source.id}`, user_id: userId } });
      } else {
        ops.push({ collection: 'sources', update: { id: source.id, user_id: userId }, change: { set: { activity_ids: source.activity_ids.filter((id) => id !== record.id) } } });
      }
    }
    try {
      await store.batch(ops);
    } catch (error) {
      if (error instanceof BatchConditionError && attempt < ATTEMPTS) continue;
      throw error;
    }
    let blobs = 0;
    if (await store.blobs.delete(record.series_key)) blobs += 1;
    blobs += await store.blobs.deletePrefix(analysisKeyPrefix(record.id));
    if (sourceDeleted && (await store.blobs.delete(source.bytes_key))) blobs += 1;
    return { sourceDeleted, blobs };
  }
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, index) => value === b[index]);
}
