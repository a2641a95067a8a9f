/**
 * Corrections of an activity (issue 28 item 5) as the API and the athlete's page both make them: who may
 * change or delete which activity, the write itself (storage/activity-corrections.ts) and the answer.
 *
 * Who: the activity's owner, with `activities:write` (checked by the route; a delegated token or a team's
 * grant carries it only when granted, as for every write). An application's token changes and deletes only
 * the activities of files that application uploaded (the source's `application_id`), as an app token
 * deletes only its own scheduled workouts (services/workouts.ts): an app sees every activity through
 * `activities:read`, but another app's uploads, the athlete's own and a provider's imports are theirs to
 * correct. A personal token and an application the operator marked first-party (the command line's, an
 * imported official client: gaps.md "act for the person") act for the person on every activity.
 * Another user's activity and an unknown id are the same 404.
 */
import type { ActivityRecord, Store } from '../../storage/store.js';
import { BatchConditionError } from '../../storage/store.js';
import { correctActivity, deleteActivity, type ActivityDeletion } from '../../storage/activity-corrections.js';
import type { Principal } from '../auth/access-tokens.js';
import { ForbiddenError, HttpError, NotFoundError } from '../errors.js';
import type { ActivityCorrectionInput } from '../schemas/activity-corrections.js';
import { ownActivity } from './activities.js';

interface Deps {
  store: Store;
  /** The webhook dispatcher's wake, after an event was written. */
  wakeEvents?: () => void;
}

/** The activity `activityId` of the principal's user when the principal may change it; 404 or 403 otherwise. */
export async function writableActivity(deps: Deps, activityId: string, principal: Principal): Promise<ActivityRecord> {
  const record = await ownActivity(deps, activityId, principal.userId);
  if (principal.applicationId === null) return record;
  const source = await deps.store.sources.findOne({ id: record.source_id, user_id: record.user_id });
  if (source?.application_id === principal.applicationId) return record;
  const application = await deps.store.applications.get(principal.applicationId);
  if (application?.first_party === true) return record;
  throw new ForbiddenError('an application changes and deletes only the activities of files it uploaded');
}

/** Applies the correction; answers the activity as stored. */
export async function applyCorrection(deps: Deps, principal: Principal, activityId: string, input: ActivityCorrectionInput): Promise<ActivityRecord> {
  const record = await writableActivity(deps, activityId, principal);
  const corrected = await conflictAs409(() => correctActivity(deps.store, record.user_id, record.id, {
    ...(input.sport != null && { sport: input.sport }),
    ...(input.tags != null && { tags: input.tags }),
    // "" clears the notes.
    ...(input.notes != null && { notes: input.notes === '' ? null : input.notes }),
  }));
  if (!corrected) throw new NotFoundError('Activity not found');
  if (corrected.updated_at !== record.updated_at) deps.wakeEvents?.();
  return corrected;
}

/** Deletes the activity, its analyses and, when no other activity comes from it, its source. */
export async function removeActivity(deps: Deps, principal: Principal, activityId: string): Promise<ActivityDeletion> {
  const record = await writableActivity(deps, activityId, principal);
  const deleted = await conflictAs409(() => deleteActivity(deps.store, record.user_id, record.id));
  if (!deleted) throw new NotFoundError('Activity not found');
  deps.wakeEvents?.();
  return deleted;
}

/** The extension's view of an activity's corrections: `{activity_id, sport, tags, notes}`. */
export function presentCorrections(record: ActivityRecord) {
  return { activity_id: record.id, sport: record.sport, tags: [...record.tags], notes: record.notes ?? null };
}

async function conflictAs409<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof BatchConditionError) throw new HttpError(409, 'the activity changed while it was written; retry', { code: 'conflict' });
    throw error;
  }
}
