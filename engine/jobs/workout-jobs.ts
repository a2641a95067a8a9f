/**
 * The scheduled-workout jobs (storage/workout-jobs.ts writes them):
 *
 * - `workout_delivery:<id>` sends the workout to every integration whose delivery is still `pending`,
 *   one after another, saving each outcome as it comes: `delivered`, or `failed` with a `reason` and the
 *   provider's words in `detail` when retrying cannot help (412 permission missing, 422, 401 …). A
 *   transient failure (429, 5xx, timeout) leaves that delivery pending with the last error as `detail`,
 *   and the job fails so the runner retries it with its back-off; what was delivered is not sent again.
 *   When the runner gives up, the deliveries still pending become `failed` / `provider_unavailable`.
 *   A workout deleted meanwhile is not sent; one deleted while a send was in flight is removed there.
 * - `workout_removal:<id>` removes a deleted workout at each provider that documents how (Garmin,
 *   intervals.icu); a 404 there counts as removed. Refusals are logged: the workout is gone here.
 *
 * Kept honest by test/gateway/workouts.test.ts (the real stack against provider stand-ins).
 */
import type { Logger } from '../../domain/logger.js';
import type { Store } from '../../storage/store.js';
import type { ConnectionRecord, JsonObject, WorkoutDelivery, WorkoutRecord } from '../../storage/records.js';
import { PROVIDERS, type Provider } from '../../domain/providers.js';
import { parseSwf } from '../../domain/workouts/swf.js';
import { ProviderCallError } from '../integrations/provider-call-error.js';
import { PROVIDER_TIMEOUT_MS } from '../integrations/provider-http.js';
import { DeliveryRefused, refusalOf } from '../workouts/delivery-refused.js';
import type { WorkoutApi } from '../workouts/provider-call.js';
import { WORKOUT_SENDERS } from '../workouts/senders.js';
import { Untranslatable, type WorkoutView } from '../workouts/workout-view.js';
import type { WorkoutDeliveryOptions } from '../workouts/delivery-options.js';
import type { JobHandler } from './runner.js';

export interface WorkoutJobDeps {
  store: Store;
  logger: Logger;
  options: WorkoutDeliveryOptions;
}

export function workoutDeliveryJobHandler(deps: WorkoutJobDeps): JobHandler {
  const { store } = deps;
  return {
    async run(job, signal) {
      const workout = await store.workouts.get(String(job.payload.workout_id));
      if (!workout || workout.user_id !== job.user_id) return;
      const parsed = parseSwf(workout.swf);
      let transient: unknown = null;
      for (const delivery of workout.deliveries) {
        if (delivery.status !== 'pending') continue;
        const outcome = await deliverOne(deps, workout, delivery, parsed.swf && view(workout, parsed.swf), signal);
        if (outcome.kind === 'deleted') return;
        if (outcome.kind === 'retry') transient = outcome.error;
      }
      if (transient !== null) throw transient;
    },
    async onGiveUp(job, error) {
      const workout = await store.workouts.get(String(job.payload.workout_id));
      if (!workout) return;
      const now = Date.now();
      const deliveries = workout.deliveries.map((delivery) => delivery.status !== 'pending' ? delivery : {
        ...delivery, status: 'failed', reason: 'provider_unavailable',
        detail: `gave up after repeated failures: ${error instanceof Error ? error.message : String(error)}`, updated_at: now,
      });
      await store.workouts.updateOne({ id: workout.id }, { set: { deliveries } });
    },
  };
}

/** `settled` (delivered or failed for good), `deleted` (the workout went away) or `retry` (a transient failure). */
type Outcome = { kind: 'settled' } | { kind: 'deleted' } | { kind: 'retry'; error: unknown };

async function deliverOne(deps: WorkoutJobDeps, workout: WorkoutRecord, delivery: WorkoutDelivery, workoutView: WorkoutView | null, signal: AbortSignal): Promise<Outcome> {
  const provider = delivery.integration as Provider;
  const remote: JsonObject = { ...delivery.remote };
  // Each write re-reads the record (the workout may have been deleted meanwhile: then stop at once).
  const save = async (change: DeliveryChange, warnings: string[] = []): Promise<void> => {
    const current = await deps.store.workouts.get(workout.id);
    if (!current) throw new WorkoutGone();
    const deliveries = current.deliveries.map((item) => item.integration === provider ? updated(item, change, remote) : item);
    const merged = [...new Set([...current.warnings, ...warnings])];
    await deps.store.workouts.updateOne({ id: workout.id }, { set: { deliveries, warnings: merged } });
  };
  const sent: { to: { connection: ConnectionRecord; http: WorkoutApi } | null } = { to: null };
  try {
    try {
      if (!workoutView) throw new DeliveryRefused('untranslatable', 'the stored workout is no longer valid SWF');
      if (!(PROVIDERS as readonly string[]).includes(provider)) throw new DeliveryRefused('not_connected', `unknown integration ${provider}`);
      const connection = await deps.store.connections.findOne({ user_id: workout.user_id, provider });
      if (!connection || connection.status !== 'connected') {
        throw new DeliveryRefused('not_connected', `${provider} is ${connection ? connection.status.replace('_', ' ') : 'no longer connected'}`);
      }
      const http = await httpFor(deps, connection, signal);
      sent.to = { connection, http };
      const warnings = await WORKOUT_SENDERS[provider].deliver({ view: workoutView, connection, http, remote, save: () => save({}) });
      await save({ status: 'delivered', reason: null, detail: null }, warnings);
      return { kind: 'settled' };
    } catch (error) {
      if (error instanceof WorkoutGone || signal.aborted) throw error;
      const refused = error instanceof ProviderCallError ? refusalOf(error) : error;
      if (refused instanceof DeliveryRefused || refused instanceof Untranslatable) {
        await save({ status: 'failed', reason: refused.reason, detail: refused.message });
        return { kind: 'settled' };
      }
      const message = error instanceof Error ? error.message : String(error);
      deps.logger.warn({ err: error, workout: workout.id, provider }, 'workouts: delivery failed, will retry');
      await save({ detail: message });
      return { kind: 'retry', error };
    }
  } catch (error) {
    if (!(error instanceof WorkoutGone)) throw error;
    // Deleted while this delivery was in flight: the removal job did not know what was just created.
    if (sent.to && Object.keys(remote).length > 0) await removeQuietly(deps, sent.to.connection, sent.to.http, remote);
    return { kind: 'deleted' };
  }
}

/** The workout was deleted while it was being delivered. */
class WorkoutGone extends Error {}

export function workoutRemovalJobHandler(deps: WorkoutJobDeps): JobHandler {
  return {
    async run(job, signal) {
      const targets = (job.payload.targets ?? []) as { integration: string; remote: JsonObject }[];
      let transient: unknown = null;
      for (const target of targets) {
        const provider = target.integration as Provider;
        const sender = WORKOUT_SENDERS[provider];
        if (!sender?.remove) continue;
        const connection = await deps.store.connections.findOne({ user_id: job.user_id!, provider });
        if (!connection || connection.status !== 'connected') continue;
        try {
          await sender.remove(await httpFor(deps, connection, signal), connection, target.remote);
        } catch (error) {
          if (signal.aborted) throw error;
          if (error instanceof ProviderCallError && error.retryable) transient = error;
          else deps.logger.warn({ err: error, workout: job.payload.workout_id, provider }, 'workouts: removal refused by the provider');
        }
      }
      if (transient !== null) throw transient;
    },
  };
}

/** The connection's workout API; a 429 is retried with the runner's back-off like a 5xx. */
async function httpFor(deps: WorkoutJobDeps, connection: ConnectionRecord, signal: AbortSignal): Promise<WorkoutApi> {
  return {
    context: { provider: connection.provider, fetch: deps.options.fetch, now: Date.now, timeoutMs: PROVIDER_TIMEOUT_MS, rateLimitFloorMs: null, signal },
    baseUrl: deps.options.apiBaseUrls[connection.provider],
    token: await deps.options.accessTokenFor(connection),
  };
}

async function removeQuietly(deps: WorkoutJobDeps, connection: ConnectionRecord, http: WorkoutApi, remote: JsonObject): Promise<void> {
  try {
    await WORKOUT_SENDERS[connection.provider].remove?.(http, connection, remote);
  } catch (error) {
    deps.logger.warn({ err: error, provider: connection.provider }, 'workouts: could not remove a workout deleted during its delivery');
  }
}

function view(workout: WorkoutRecord, swf: NonNullable<ReturnType<typeof parseSwf>['swf']>): WorkoutView {
  return { id: workout.id, swf, start: workout.start, offset: workout.offset, createdAt: workout.created_at };
}

type DeliveryChange = { status?: string; reason?: string | null; detail?: string | null };

/** The delivery with `change` applied (null removes a field: the store keeps no undefined). */
function updated(item: WorkoutDelivery, change: DeliveryChange, remote: JsonObject): WorkoutDelivery {
  const next: WorkoutDelivery = { ...item, remote: { ...remote }, updated_at: Date.now() };
  if (change.status !== undefined) next.status = change.status;
  for (const field of ['reason', 'detail'] as const) {
    const value = change[field];
    if (value === null) delete next[field];
    else if (value !== undefined) next[field] = value;
  }
  return next;
}
