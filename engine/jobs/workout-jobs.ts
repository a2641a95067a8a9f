/**
 * The scheduled-workout jobs (storage/workout-jobs.ts writes them):
 *
 * - `workout_delivery:<id>` sends the workout to every integration whose delivery is still `pending`,
 *   one after another, saving each outcome as it comes: `delivered`, or `failed` with a `reason` and the
 *   provider's words in `detail` when retrying cannot help (412 permission missing, 422, 401 …). A
 *   transient failure leaves that delivery pending with the last error as `detail`. A 429 (or 503) that
 *   names when to come back (`Retry-After`, else a reset header: provider-http.ts) puts the job back in
 *   the queue until then without spending an attempt (RescheduleJob; the latest such time when several
 *   providers wait), unless that is more than MAX_DELIVERY_WAIT_MS after the delivery was queued: then
 *   the delivery ends `failed` / `provider_unavailable` at once. The app's shared request budget spent
 *   (integrations/provider-budget.ts) waits for its reset the same way. Any other transient failure (a 429 naming
 *   no time, 5xx, timeout) fails the job so the runner retries it with its back-off; what was delivered
 *   is not sent again. When the runner gives up, the deliveries still pending become `failed` /
 *   `provider_unavailable`. A workout deleted meanwhile is not sent; one deleted while a send was in
 *   flight is removed there.
 * - `workout_removal:<id>` removes a deleted workout at each provider that documents how (Garmin,
 *   intervals.icu); a 404 there counts as removed. Refusals are logged: the workout is gone here.
 *
 * Kept honest by test/gateway/workouts.test.ts and workout-delivery-rate-limit.test.ts (the real stack
 * against provider stand-ins).
 */
import type { Logger } from '../../domain/logger.js';
import type { Store } from '../../storage/store.js';
import type { ConnectionRecord, JsonObject, WorkoutDelivery, WorkoutRecord } from '../../storage/records.js';
import { PROVIDERS, type Provider } from '../../domain/providers.js';
import { describeWithheld, withheld } from '../../domain/provider-permissions.js';
import { parseSwf } from '../../domain/workouts/swf.js';
import { ProviderCallError } from '../integrations/provider-call-error.js';
import { BudgetSpent } from '../integrations/provider-budget.js';
import { placeWait, rateLimitWaitMs } from '../integrations/rate-limit-wait.js';
import { DeliveryRefused, refusalOf } from '../workouts/delivery-refused.js';
import type { WorkoutApi } from '../workouts/provider-call.js';
import { WORKOUT_SENDERS } from '../workouts/senders.js';
import { Untranslatable, type WorkoutView } from '../workouts/workout-view.js';
import type { WorkoutDeliveryOptions } from '../workouts/delivery-options.js';
import { RescheduleJob, type JobHandler } from './runner.js';

/**
 * How long after it was queued a delivery may still wait for a provider's named time, milliseconds: an
 * hour covers Wahoo's 5-minute and hourly windows and intervals.icu's 15-minute one; a spent daily quota
 * (a reset hours away) ends the delivery as `provider_unavailable` instead of leaving it pending.
 */
export const MAX_DELIVERY_WAIT_MS = 3_600_000;

export interface WorkoutJobDeps {
  store: Store;
  logger: Logger;
  options: WorkoutDeliveryOptions;
}

export function workoutDeliveryJobHandler(deps: WorkoutJobDeps): JobHandler {
  const { store } = deps;
  return {
    async run(job, signal) {
      if (!job.user_id) return;
      const workout = await store.workouts.findOne({ id: String(job.payload.workout_id), user_id: job.user_id });
      if (!workout) return;
      const parsed = parseSwf(workout.swf);
      const waitBudgetUntil = job.created_at + MAX_DELIVERY_WAIT_MS;
      let transient: unknown = null;
      let resumeAt: number | null = null;
      for (const delivery of workout.deliveries) {
        if (delivery.status !== 'pending') continue;
        const outcome = await deliverOne(deps, workout, delivery, parsed.swf && view(workout, parsed.swf), waitBudgetUntil, signal);
        if (outcome.kind === 'deleted') return;
        if (outcome.kind === 'wait') resumeAt = Math.max(resumeAt ?? 0, outcome.until);
        if (outcome.kind === 'retry') transient = outcome.error;
      }
      // No provider is called again before the time it named; a delivery that merely failed is retried then too.
      if (resumeAt !== null) throw new RescheduleJob(resumeAt, `workouts: a provider asked to wait until ${new Date(resumeAt).toISOString()}`);
      if (transient !== null) throw transient;
    },
    async onGiveUp(job, error) {
      if (!job.user_id) return;
      const workout = await store.workouts.findOne({ id: String(job.payload.workout_id), user_id: job.user_id });
      if (!workout) return;
      const now = Date.now();
      const deliveries = workout.deliveries.map((delivery) => delivery.status !== 'pending' ? delivery : {
        ...delivery, status: 'failed', reason: 'provider_unavailable',
        detail: `gave up after repeated failures: ${error instanceof Error ? error.message : String(error)}`, updated_at: now,
      });
      await store.workouts.updateOne({ id: workout.id, user_id: workout.user_id }, { set: { deliveries } });
    },
  };
}

/**
 * `settled` (delivered or failed for good), `deleted` (the workout went away), `wait` (the provider named
 * when to come back, Unix ms) or `retry` (a transient failure, for the runner's back-off).
 */
type Outcome = { kind: 'settled' } | { kind: 'deleted' } | { kind: 'wait'; until: number } | { kind: 'retry'; error: unknown };

async function deliverOne(deps: WorkoutJobDeps, workout: WorkoutRecord, delivery: WorkoutDelivery, workoutView: WorkoutView | null, waitBudgetUntil: number, signal: AbortSignal): Promise<Outcome> {
  const provider = delivery.integration as Provider;
  const remote: JsonObject = { ...delivery.remote };
  // Each write re-reads the record (the workout may have been deleted meanwhile: then stop at once).
  const save = async (change: DeliveryChange, warnings: string[] = []): Promise<void> => {
    const current = await deps.store.workouts.findOne({ id: workout.id, user_id: workout.user_id });
    if (!current) throw new WorkoutGone();
    const deliveries = current.deliveries.map((item) => item.integration === provider ? updated(item, change, remote) : item);
    const merged = [...new Set([...current.warnings, ...warnings])];
    await deps.store.workouts.updateOne({ id: workout.id, user_id: workout.user_id }, { set: { deliveries, warnings: merged } });
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
      // A permission the user withdrew at the provider (Garmin WORKOUT_IMPORT): refused here, the provider is not called.
      const missing = withheld(connection, 'workouts');
      if (missing.length > 0) throw new DeliveryRefused('permission_missing', describeWithheld(provider, missing));
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
      const named = namedWait(error, waitBudgetUntil);
      if (named?.place === 'give_up') {
        const detail = `the provider asked to wait until ${new Date(named.until).toISOString()}, past the ${MAX_DELIVERY_WAIT_MS / 60_000} min a delivery waits: ${message}`;
        await save({ status: 'failed', reason: 'provider_unavailable', detail });
        return { kind: 'settled' };
      }
      if (named) {
        deps.logger.info({ workout: workout.id, provider, until: named.until }, 'workouts: rate limited, delivery requeued until the provider\'s time');
        await save({ detail: `waiting until ${new Date(named.until).toISOString()}: ${message}` });
        return { kind: 'wait', until: named.until };
      }
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

/**
 * For a 429 or 503 that named when to come back: that time (Unix ms), and whether it is within the
 * delivery's wait budget (rate-limit-wait.ts, as the backfill decides). Null for any other failure.
 */
function namedWait(error: unknown, budgetUntil: number): { until: number; place: 'reschedule' | 'give_up' } | null {
  // Our own shared budget spent (BudgetSpent) names its window's reset as a 429's Retry-After would.
  if (!(error instanceof ProviderCallError) || error.retryAt === null || (error.status !== 429 && error.status !== 503 && !(error instanceof BudgetSpent))) return null;
  const now = Date.now();
  const wait = rateLimitWaitMs(error.retryAt, 1, now);
  const place = placeWait(wait, { inlineMaxMs: 0, capMs: budgetUntil - now, queue: true });
  return { until: now + wait, place: place === 'give_up' ? 'give_up' : 'reschedule' };
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

/**
 * The connection's workout API. No rate-limit floor: a 429 naming no time (Garmin documents no header;
 * providers.md: "wait ≥ 60 s") is retried with the runner's back-off like a 5xx, as before.
 */
async function httpFor(deps: WorkoutJobDeps, connection: ConnectionRecord, signal: AbortSignal): Promise<WorkoutApi> {
  return {
    context: {
      provider: connection.provider, fetch: deps.options.fetch, now: Date.now, timeoutMs: deps.options.timeoutMs, rateLimitFloorMs: null, signal,
      ...(deps.options.spend && { spend: deps.options.spend }),
    },
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
