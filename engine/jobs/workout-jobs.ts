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
import { describeWithheld, withheld } from '../../domain/provider-permissions.js';
import { parseSwf } from '../../domain/workouts/swf.js';
import { DeliveryRefused, DeliveryUnavailable, type ProviderHttp } from '../workouts/provider-http.js';
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
        if (outcome === 'deleted') return;
        if (outcome !== 'settled') transient = outcome;
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

/** 'settled' (delivered or failed for good), 'deleted' (the workout went away), or the transient error. */
async function deliverOne(deps: WorkoutJobDeps, workout: WorkoutRecord, delivery: WorkoutDelivery, workoutView: WorkoutView | null, signal: AbortSignal): Promise<'settled' | 'deleted' | unknown> {
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
  const sent: { to: { connection: ConnectionRecord; http: ProviderHttp } | null } = { to: null };
  try {
    try {
      if (!workoutView) throw new DeliveryRefused('untranslatable', 'the stored workout is no longer valid SWF');
      if (!(PROVIDERS as readonly string[]).includes(provider)) throw new DeliveryRefused('not_connected', `unknown integration ${provider}`);
      const connection = await deps.store.connections.findOne({ user_id: workout.user_id, provider });
      if (!connection || connection.status !== 'connected') {
        throw new DeliveryRefused('not_connected', `${provider} is ${connection ? connection.status.replace('_', ' ') : 'no longer connected'}`);
      }
      // A permission the user withdrew at the provider (Garmin WORKOUT_IMPORT): refused here, the provider is not called.
      const missing = withheld(connection, 'workouts');
      if (missing.length > 0) throw new DeliveryRefused('permission_missing', describeWithheld(provider, missing));
      const http = await httpFor(deps, connection, signal);
      sent.to = { connection, http };
      const warnings = await WORKOUT_SENDERS[provider].deliver({ view: workoutView, connection, http, remote, save: () => save({}) });
      await save({ status: 'delivered', reason: null, detail: null }, warnings);
      return 'settled';
    } catch (error) {
      if (error instanceof WorkoutGone || signal.aborted) throw error;
      if (error instanceof DeliveryRefused || error instanceof Untranslatable) {
        await save({ status: 'failed', reason: error.reason, detail: error.message });
        return 'settled';
      }
      deps.logger.warn({ err: error, workout: workout.id, provider }, 'workouts: delivery failed, will retry');
      await save({ detail: error instanceof Error ? error.message : String(error) });
      return error instanceof DeliveryUnavailable ? error : new DeliveryUnavailable(String(error), error);
    }
  } catch (error) {
    if (!(error instanceof WorkoutGone)) throw error;
    // Deleted while this delivery was in flight: the removal job did not know what was just created.
    if (sent.to && Object.keys(remote).length > 0) await removeQuietly(deps, sent.to.connection, sent.to.http, remote);
    return 'deleted';
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
          if (error instanceof DeliveryUnavailable) transient = error;
          else deps.logger.warn({ err: error, workout: job.payload.workout_id, provider }, 'workouts: removal refused by the provider');
        }
      }
      if (transient !== null) throw transient;
    },
  };
}

async function httpFor(deps: WorkoutJobDeps, connection: ConnectionRecord, signal: AbortSignal): Promise<ProviderHttp> {
  return {
    provider: connection.provider, baseUrl: deps.options.apiBaseUrls[connection.provider],
    token: await deps.options.accessTokenFor(connection), fetch: deps.options.fetch, signal,
  };
}

async function removeQuietly(deps: WorkoutJobDeps, connection: ConnectionRecord, http: ProviderHttp, remote: JsonObject): Promise<void> {
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
