/**
 * Sending a translated workout to each provider, and removing it there, as providers.md describes the
 * calls (paths relative to each provider's API base URL):
 *
 * - Garmin Connect [GAR-trn]: `POST /workoutportal/workout/v2` → `workoutId`, then `POST
 *   /training-api/schedule/` `{workoutId, date}` → `scheduleId`; removal `DELETE
 *   /training-api/workout/v2/{workoutId}` (documented; that it also clears the schedule is assumed).
 * - intervals.icu [ICU-plan][ICU-api]: `POST /api/v1/athlete/{athlete}/events/bulk?upsert=true` with one
 *   event (athlete = the connection's athlete id, `0` = the token's owner [ICU-cook]); the answer is the
 *   array of events [unverified]. Removal `DELETE /api/v1/athlete/{athlete}/events/{id}` [unverified:
 *   in intervals.icu's OpenAPI as generated clients show it, not in providers.md].
 * - Wahoo [WAH-doc]: `GET /v1/plans?external_id=` first (a retried delivery reuses its plan; the answer
 *   shape — an array or `{plans: […]}` — is [unverified], both are read), else `POST /v1/plans`; then
 *   `POST /v1/workouts` with the plan id. providers.md documents no deletion: a deleted workout stays at
 *   Wahoo, and DELETE says so.
 *
 * Each step's remote id is saved as soon as it is known (`save`), so a retry after a crash or a 5xx
 * continues where it stopped instead of creating a second workout. Only the window between a provider's
 * answer and that save can leave a duplicate (Garmin's create has no idempotency key).
 */
import type { ConnectionRecord, JsonObject } from '../../storage/records.js';
import type { Provider } from '../../domain/providers.js';
import { ProviderCallError } from '../integrations/provider-call-error.js';
import { callProvider, idField, type WorkoutApi } from './provider-call.js';
import { toGarminWorkout } from './garmin-workout.js';
import { toIntervalsEvent } from './intervals-icu-workout.js';
import { toWahooDelivery } from './wahoo-workout.js';
import type { WorkoutView } from './workout-view.js';

export interface SendContext {
  view: WorkoutView;
  connection: ConnectionRecord;
  http: WorkoutApi;
  /** What earlier attempts created (remote ids); grows as calls succeed. */
  remote: JsonObject;
  save(remote: JsonObject): Promise<void>;
}

export interface WorkoutSender {
  /** Sends the workout; answers the warnings of its translation. */
  deliver(context: SendContext): Promise<string[]>;
  /** Removes what `remote` names; absent when the provider documents no way to. */
  remove?(http: WorkoutApi, connection: ConnectionRecord, remote: JsonObject): Promise<void>;
}

const garmin: WorkoutSender = {
  async deliver({ view, http, remote, save }) {
    const { body, warnings } = toGarminWorkout(view);
    if (typeof remote.workout_id !== 'string') {
      const created = await callProvider(http, 'POST', '/workoutportal/workout/v2', { json: body.workout }, 'garmin_connect create workout');
      remote.workout_id = idField(created, 'workoutId', 'garmin_connect create workout');
      await save(remote);
    }
    if (typeof remote.schedule_id !== 'string') {
      const scheduled = await callProvider(http, 'POST', '/training-api/schedule/', { json: { workoutId: numeric(remote.workout_id), date: body.date } }, 'garmin_connect schedule workout');
      remote.schedule_id = idField(scheduled, 'scheduleId', 'garmin_connect schedule workout');
      await save(remote);
    }
    return warnings;
  },
  async remove(http, _connection, remote) {
    if (typeof remote.workout_id !== 'string') return;
    await ignoreGone(callProvider(http, 'DELETE', `/training-api/workout/v2/${encodeURIComponent(remote.workout_id)}`, {}, 'garmin_connect delete workout'));
  },
};

const intervals: WorkoutSender = {
  async deliver({ view, connection, http, remote, save }) {
    const { body, warnings } = toIntervalsEvent(view);
    const answer = await callProvider(http, 'POST', `/api/v1/athlete/${athlete(connection)}/events/bulk?upsert=true`, { json: [body] }, 'intervals_icu upsert event');
    const event = Array.isArray(answer) ? answer[0] : answer;
    remote.event_id = idField(event, 'id', 'intervals_icu upsert event');
    await save(remote);
    return warnings;
  },
  async remove(http, connection, remote) {
    if (typeof remote.event_id !== 'string') return;
    await ignoreGone(callProvider(http, 'DELETE', `/api/v1/athlete/${athlete(connection)}/events/${encodeURIComponent(remote.event_id)}`, {}, 'intervals_icu delete event'));
  },
};

const wahoo: WorkoutSender = {
  async deliver({ view, http, remote, save }) {
    const { body, warnings } = toWahooDelivery(view);
    if (typeof remote.plan_id !== 'string') {
      const found = await callProvider(http, 'GET', `/v1/plans?external_id=${encodeURIComponent(view.id)}`, {}, 'wahoo find plan');
      const plans = Array.isArray(found) ? found : Array.isArray((found as { plans?: unknown } | null)?.plans) ? (found as { plans: unknown[] }).plans : [];
      const plan = plans[0] ?? (await callProvider(http, 'POST', '/v1/plans', { form: body.planForm }, 'wahoo create plan'));
      remote.plan_id = idField(plan, 'id', 'wahoo create plan');
      await save(remote);
    }
    if (typeof remote.workout_id !== 'string') {
      const created = await callProvider(http, 'POST', '/v1/workouts', { form: { ...body.workoutForm, 'workout[plan_id]': remote.plan_id } }, 'wahoo create workout');
      remote.workout_id = idField(created, 'id', 'wahoo create workout');
      await save(remote);
    }
    return warnings;
  },
};

export const WORKOUT_SENDERS: Readonly<Record<Provider, WorkoutSender>> = { garmin_connect: garmin, intervals_icu: intervals, wahoo };

function athlete(connection: ConnectionRecord): string {
  return encodeURIComponent(connection.external_user_id ?? '0');
}

/** Garmin's ids are numbers on the wire; keep them numbers when they are. */
function numeric(id: string): number | string {
  return /^\d{1,15}$/.test(id) ? Number(id) : id;
}

/** A removal of something already gone is done. */
async function ignoreGone(call: Promise<unknown>): Promise<void> {
  try {
    await call;
  } catch (error) {
    if (error instanceof ProviderCallError && error.status === 404) return;
    throw error;
  }
}
