/** The two lookups every one-activity handler starts with: the caller's record, then its stored series. */
import { status } from '@grpc/grpc-js';
import type { ActivityRecord, Store } from '../../storage/store.js';
import { EngineError } from '../errors.js';
import { standalone } from '../pool/standalone.js';

/** The fields of an activity a one-activity call reads: ownActivity answers them without the document. */
export const ACTIVITY_FIELDS = ['id', 'user_id', 'sport', 'start', 'offset', 'local_date', 'duration_s', 'series_key', 'analysis_key', 'analysis_version'] as const;

export type OwnActivity = Pick<ActivityRecord, (typeof ACTIVITY_FIELDS)[number]>;

/**
 * The activity's ACTIVITY_FIELDS if it is the user's, read from their columns without parsing the document
 * (laps and all); NOT_FOUND for another user's or an unknown one (never revealing which).
 */
export async function ownActivity(store: Store, userId: string, activityId: string): Promise<OwnActivity> {
  const [record] = await store.activities.findFields({ id: activityId, user_id: userId }, ACTIVITY_FIELDS, { limit: 1 });
  if (record === undefined || record.user_id !== userId) throw new EngineError(status.NOT_FOUND, `engine: activity ${activityId} not found`);
  return record;
}

/** The activity's stored series (Arrow IPC) as a buffer of its own, to transfer to a worker; FAILED_PRECONDITION series_missing without one. */
export async function storedSeries(store: Store, record: Pick<ActivityRecord, 'id' | 'series_key'>, subsystem: string): Promise<ArrayBuffer> {
  const stored = await store.blobs.get(record.series_key);
  if (stored === null) {
    throw new EngineError(status.FAILED_PRECONDITION, `${subsystem}: activity ${record.id} has no stored series`, 'series_missing');
  }
  return standalone(stored);
}
