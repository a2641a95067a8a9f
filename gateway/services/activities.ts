/** Activity lookups shared by the activity, series and analysis routes. */
import type { ActivityRecord, Store } from '../../storage/store.js';
import { NotFoundError } from '../errors.js';

/** The caller's activity; another user's is a 404, never a 403 that leaks its existence. */
export async function ownActivity(deps: { store: Store }, activityId: string, userId: string): Promise<ActivityRecord> {
  const record = await deps.store.activities.get(activityId);
  if (!record || record.user_id !== userId) throw new NotFoundError('Activity not found');
  return record;
}
