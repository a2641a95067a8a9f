/** Activity lookups shared by the activity, series and analysis routes and the athlete's pages. */
import type { ActivityRecord, Store } from '../../storage/store.js';
import type { Principal } from '../auth/access-tokens.js';
import { NotFoundError } from '../errors.js';
import { presentActivityDetails } from '../presenters/activity.js';
import { tracesByActivity } from './activity-traces.js';

/** The caller's activity; another user's is a 404, never a 403 that leaks its existence. */
export async function ownActivity(deps: { store: Store }, activityId: string, userId: string): Promise<ActivityRecord> {
  const record = await deps.store.activities.findOne({ id: activityId, user_id: userId });
  if (!record || record.user_id !== userId) throw new NotFoundError('Activity not found');
  return record;
}

/**
 * The caller's activity's id, found without reading its document (laps and all): what the analysis and
 * series routes need before they call the engine. A 404 exactly as ownActivity's.
 */
export async function ownActivityId(deps: { store: Store }, activityId: string, userId: string): Promise<string> {
  const [found] = await deps.store.activities.findFields({ id: activityId, user_id: userId }, ['id'], { limit: 1 });
  if (found === undefined) throw new NotFoundError('Activity not found');
  return found.id;
}

/** Activity details (interface §2) with the activity's traces, as `GET /activities/{activity_id}` answers them. */
export async function activityDetails(deps: { store: Store }, record: ActivityRecord, principal: Principal) {
  const traces = await tracesByActivity(deps.store, record.user_id, [record], principal);
  return presentActivityDetails(record, principal, traces.get(record.id) ?? []);
}

/** The signed-in person on the athlete's pages, as a personal token would act for them (no application: no app metadata). */
export function personalPrincipal(userId: string): Principal {
  return {
    userId, applicationId: null, grantId: null, scopes: new Set(['activities:read']), clientSecretId: null, issuanceId: null,
    actorId: null, org: null, mintingScopes: null, tokenId: '', expiresAt: Number.MAX_SAFE_INTEGER,
  };
}
