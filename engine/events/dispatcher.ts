/**
 * The webhook dispatcher (DESIGN.md §6, gaps.md "Events"): publishes outbox events (publish.ts), then
 * delivers each delivery record at least once, ordered per queue (application endpoint × user): a delivery
 * is attempted only when no delivery of its queue with a lower `seq` is still pending, so a later event of
 * a user is never sent before an earlier one was delivered or expired.
 *
 * Crash safety, as the job runner (engine/jobs/runner.ts): every state lives in the store. A delivery is
 * claimed with a lease (`lease_owner`, `lease_until`); a process that dies mid-attempt lets the lease
 * expire and any dispatcher attempts it again (a duplicate, within at-least-once). An attempt's outcome and
 * its log record (`event_attempts`) are written in one batch.
 *
 * Deliveries waiting behind their queue's head are parked (`next_attempt_at: null`) so a failing endpoint's
 * backlog never crowds out other queues; a delivery that becomes final unparks the next one, and a parker
 * checks the head again after parking (so a race between the two never strands a queue). A sweep unparks
 * anything parked longer than PARK_SWEEP_MS, for a process killed between the two writes.
 *
 * Retries: exponential backoff with jitter, `retryBaseMs · 2^(attempt−1) · [0.5, 1.5)`, at most
 * MAX_RETRY_DELAY_MS, until `expires_at` (24 h after the event); then the delivery is expired.
 * `wake()` (after a write in this process) skips the idle wait; otherwise it polls every `pollMs`.
 * Kept honest by test/engine/webhooks.test.ts and test/engine/webhooks-crash.test.ts.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from '../../domain/logger.js';
import type { EventDeliveryRecord, Store } from '../../storage/store.js';
import { eventBody, eventVisibleTo } from '../../storage/events.js';
import { publishPending } from './publish.js';
import { deliver, keepAliveAgents, type AttemptOutcome } from './deliver.js';
import { newId } from '../../storage/ids.js';

export interface DispatcherOptions {
  store: Store;
  logger: Logger;
  /** Hosts exempt from the address check (WEBHOOK_ALLOWED_HOSTS). */
  allowedHosts: readonly string[];
  /** Attempts in flight at once in this process. */
  concurrency: number;
  /** Idle wait between polls, milliseconds. */
  pollMs: number;
  /** Lease of a claimed delivery, milliseconds (longer than an attempt). */
  leaseMs: number;
  /** First retry delay before jitter, milliseconds. */
  retryBaseMs: number;
  /** How long a receiver has to answer, milliseconds (gaps.md: 2 s). */
  timeoutMs: number;
  /** How long attempt records and final deliveries are kept, milliseconds. */
  retentionMs: number;
}

export const MAX_RETRY_DELAY_MS = 60 * 60 * 1000;
/** Parked deliveries older than this are looked at again (see the header), milliseconds. */
const PARK_SWEEP_MS = 60_000;
/** How often retention and the park sweep run, milliseconds. */
const HOUSEKEEPING_MS = 60_000;
/** Application and grant reads are reused this long during a burst, milliseconds. */
const RECEIVER_CACHE_MS = 1000;

export interface Dispatcher {
  wake(): void;
  /** Stops claiming and waits for attempts in flight. */
  close(): Promise<void>;
}

export function retryDelay(attempts: number, baseMs: number, random = Math.random()): number {
  return Math.min(MAX_RETRY_DELAY_MS, baseMs * 2 ** Math.min(30, attempts - 1) * (0.5 + random));
}

export function startDispatcher(options: DispatcherOptions): Dispatcher {
  const { store, logger } = options;
  const owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const agents = keepAliveAgents(options.concurrency);
  const stop = new AbortController();
  const inFlight = new Map<string, Promise<void>>(); // queue → attempt
  let woken = false;
  let wakeUp: (() => void) | null = null;
  const receivers = new Map<string, { at: number; value: Promise<Receiver | null> }>();
  let lastHousekeeping = 0;

  const wake = () => {
    woken = true;
    wakeUp?.();
  };

  const idle = (ms: number) =>
    new Promise<void>((resolve) => {
      if (woken || stop.signal.aborted) return resolve();
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeUp = null;
        resolve();
      }
      wakeUp = done;
    });

  async function loop(): Promise<void> {
    while (!stop.signal.aborted) {
      woken = false;
      let busy = false;
      try {
        while ((await publishPending(store)) > 0) busy = true;
        if (inFlight.size < options.concurrency) busy = (await claimReady(options.concurrency - inFlight.size)) || busy;
        if (Date.now() - lastHousekeeping > HOUSEKEEPING_MS) await housekeeping();
      } catch (error) {
        logger.error({ err: error }, 'webhooks: dispatch pass failed');
      }
      // Full: an attempt's end wakes the loop. Idle: sleep until the next retry is due, at most pollMs
      // (deliveries already due but held by an attempt of their queue are started on that attempt's wake).
      if (inFlight.size >= options.concurrency) await idle(options.pollMs);
      else if (!busy) await idle(await untilNextDue());
    }
  }

  /** Claims up to `room` deliveries at the head of their queues and starts them; answers whether any started. */
  async function claimReady(room: number): Promise<boolean> {
    const now = Date.now();
    const candidates = await store.event_deliveries.find(
      { status: 'pending', next_attempt_at: { $lte: now }, $or: [{ lease_until: null }, { lease_until: { $lt: now } }] },
      { sort: { next_attempt_at: 1 }, limit: Math.min(1000, Math.max(200, room * 4)) },
    );
    const heads = new Map<string, EventDeliveryRecord>();
    for (const candidate of candidates) {
      if (inFlight.has(candidate.queue)) continue;
      const seen = heads.get(candidate.queue);
      if (!seen || candidate.seq < seen.seq) heads.set(candidate.queue, candidate);
    }
    let started = false;
    for (const delivery of heads.values()) {
      if (inFlight.size >= options.concurrency) break;
      if (await blocked(delivery)) {
        await park(delivery);
        continue;
      }
      const claimed = await store.event_deliveries.updateOne(
        { id: delivery.id, status: 'pending', lease_until: delivery.lease_until ?? null },
        { set: { lease_owner: owner, lease_until: now + options.leaseMs } },
      );
      if (!claimed) continue;
      started = true;
      const attempt = attemptOne(claimed).catch((error: unknown) => logger.error({ err: error, delivery: claimed.id }, 'webhooks: attempt failed')).finally(() => {
        inFlight.delete(claimed.queue);
        wake();
      });
      inFlight.set(claimed.queue, attempt);
    }
    return started;
  }

  /** Whether an earlier delivery of the queue is still pending. */
  async function blocked(delivery: EventDeliveryRecord): Promise<boolean> {
    return (await store.event_deliveries.count({ queue: delivery.queue, status: 'pending', seq: { $lt: delivery.seq } })) > 0;
  }

  async function park(delivery: EventDeliveryRecord): Promise<void> {
    const parked = await store.event_deliveries.updateOne(
      { id: delivery.id, status: 'pending', next_attempt_at: delivery.next_attempt_at },
      { set: { next_attempt_at: null, updated_at: Date.now() } },
    );
    // The head may have become final between the check and the park: look again, now that it is parked.
    if (parked && !(await blocked(parked))) await unpark(parked.queue);
  }

  /** Makes the lowest parked delivery of the queue due now. */
  async function unpark(queue: string): Promise<void> {
    const now = Date.now();
    await store.event_deliveries.updateOne({ queue, status: 'pending', next_attempt_at: null }, { set: { next_attempt_at: now, updated_at: now } }, { sort: { seq: 1 } });
  }

  async function attemptOne(delivery: EventDeliveryRecord): Promise<void> {
    const now = Date.now();
    if (now > delivery.expires_at) return settle(delivery, null, 'expired: no attempt succeeded within 24 h of the event', now);
    const [event, receiver] = await Promise.all([store.events.get(delivery.event_id), receiverOf(delivery.application_id, delivery.user_id)]);
    const gone =
      !event ? 'the event no longer exists'
      : !receiver ? 'the user no longer grants the application'
      : !receiver.endpoints.includes(delivery.endpoint) ? 'the endpoint is no longer registered'
      : !receiver.secret ? 'the application has no webhook secret'
      : !eventVisibleTo(event.event_type, receiver.scopes) ? 'the grant no longer reads this kind of event' : null;
    if (gone || !event || !receiver?.secret) return settle(delivery, null, `cancelled: ${gone}`, now);
    const outcome = await deliver(delivery.endpoint, JSON.stringify(eventBody(event)), receiver.secret, { allowedHosts: options.allowedHosts, timeoutMs: options.timeoutMs, agents }, now);
    return settle(delivery, outcome, null, now);
  }

  /** Records the outcome (and the attempt, when one was made) in one batch; unparks the queue's next delivery when final. */
  async function settle(delivery: EventDeliveryRecord, outcome: AttemptOutcome | null, finalError: string | null, startedAt: number): Promise<void> {
    const now = Date.now();
    const attempts = delivery.attempts + (outcome ? 1 : 0);
    let set: Partial<EventDeliveryRecord>;
    if (outcome && outcome.error === null) {
      set = { status: 'delivered', next_attempt_at: null, last_status: outcome.statusCode, last_error: null };
    } else if (outcome) {
      const next = now + retryDelay(attempts, options.retryBaseMs);
      set = next > delivery.expires_at
        ? { status: 'expired', next_attempt_at: null, last_status: outcome.statusCode, last_error: outcome.error }
        : { status: 'pending', next_attempt_at: next, last_status: outcome.statusCode, last_error: outcome.error };
    } else {
      set = { status: 'expired', next_attempt_at: null, last_error: finalError };
    }
    await store.batch([
      {
        collection: 'event_deliveries',
        update: { id: delivery.id, lease_owner: owner },
        change: { set: { ...set, attempts, lease_owner: null, lease_until: null, updated_at: now } },
      },
      ...(outcome
        ? [{
            collection: 'event_attempts' as const,
            insert: {
              id: newId(), delivery_id: delivery.id, event_id: delivery.event_id, user_id: delivery.user_id, application_id: delivery.application_id,
              endpoint: delivery.endpoint, at: startedAt, status_code: outcome.statusCode, error: outcome.error, duration_ms: outcome.durationMs,
            },
          }]
        : []),
    ]);
    if (set.status !== 'pending') await unpark(delivery.queue);
  }

  interface Receiver {
    endpoints: string[];
    secret: string | null;
    scopes: ReadonlySet<string>;
  }

  function receiverOf(applicationId: string, userId: string): Promise<Receiver | null> {
    const key = `${applicationId}:${userId}`;
    const cached = receivers.get(key);
    if (cached && Date.now() - cached.at < RECEIVER_CACHE_MS) return cached.value;
    const value = (async () => {
      const [application, grant] = await Promise.all([store.applications.get(applicationId), store.grants.findOne({ user_id: userId, application_id: applicationId })]);
      return application && grant ? { endpoints: application.webhook_endpoints, secret: application.webhook_secret, scopes: new Set(grant.scopes) } : null;
    })();
    if (receivers.size > 10_000) receivers.clear();
    receivers.set(key, { at: Date.now(), value });
    return value;
  }

  async function untilNextDue(): Promise<number> {
    try {
      const next = await store.event_deliveries.findOne({ status: 'pending', next_attempt_at: { $gt: Date.now() } }, { sort: { next_attempt_at: 1 } });
      if (next?.next_attempt_at == null) return options.pollMs;
      return Math.max(0, Math.min(options.pollMs, next.next_attempt_at - Date.now() + 1));
    } catch {
      return options.pollMs;
    }
  }

  async function housekeeping(): Promise<void> {
    const now = Date.now();
    lastHousekeeping = now;
    await store.event_deliveries.updateMany({ status: 'pending', next_attempt_at: null, updated_at: { $lt: now - PARK_SWEEP_MS } }, { set: { next_attempt_at: now, updated_at: now } });
    const attempts = await store.event_attempts.deleteMany({ at: { $lt: now - options.retentionMs } });
    const finals = await store.event_deliveries.deleteMany({ status: { $in: ['delivered', 'expired'] }, updated_at: { $lt: now - options.retentionMs } });
    if (attempts + finals > 0) logger.info({ attempts, deliveries: finals }, 'webhooks: old records removed');
  }

  const running = loop();
  return {
    wake,
    async close() {
      stop.abort(new Error('webhook dispatcher closing'));
      wakeUp?.();
      await running;
      await Promise.allSettled([...inFlight.values()]);
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}
