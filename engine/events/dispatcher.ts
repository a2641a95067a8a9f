/**
 * The webhook dispatcher (DESIGN.md §6, gaps.md "Events"): publishes outbox events (publish.ts), then
 * delivers each delivery record at least once, ordered per queue (application endpoint × user): a delivery
 * is attempted only when no delivery of its queue with a lower `seq` is still pending, so a later event of
 * a user is never sent before an earlier one was delivered or expired.
 *
 * Crash safety, as the job runner (engine/jobs/runner.ts): every state lives in the store. Deliveries are
 * claimed with a lease (`lease_owner`, `lease_until`, `claim`); a process that dies mid-attempt lets the
 * lease expire and any dispatcher attempts the delivery again (a duplicate, within at-least-once). An
 * attempt's outcome and its log record (`event_attempts`) are written in one batch.
 *
 * Work goes in rounds, one loop per process, and each round writes one batch however many deliveries are
 * in flight (an embedded store syncs every write to disk, tens of milliseconds on a busy machine): the
 * outcomes of finished attempts, the claim of each finished queue's next delivery, the claims of other
 * ready queue heads; then their attempts start, at most `concurrency` at once and one per queue.
 * Deliveries waiting behind their queue's head are parked (`next_attempt_at: null`) so a failing
 * endpoint's backlog never crowds other queues out of a round; the round that finishes a head claims the
 * next delivery of its queue whether parked or not, and a sweep makes anything parked longer than
 * PARK_SWEEP_MS due again (for a process that died holding a head).
 *
 * Retries: exponential backoff with jitter, `retryBaseMs · 2^(attempt−1) · [0.5, 1.5)`, at most
 * MAX_RETRY_DELAY_MS, until `expires_at` (24 h after the event); then the delivery is expired.
 * `wake()` (after a write in this process) starts a round at once; otherwise it polls every `pollMs`.
 * Kept honest by test/engine/webhooks.test.ts and test/engine/webhooks-crash.test.ts.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from '../../domain/logger.js';
import type { BatchOp, EventAttemptRecord, EventDeliveryRecord, EventRecord, Store } from '../../storage/store.js';
import { eventBody, eventVisibleTo } from '../../storage/events.js';
import { newId } from '../../storage/ids.js';
import { publishPending } from './publish.js';
import { deliver, keepAliveAgents, type AttemptOutcome } from './deliver.js';

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
/** Publication records are kept this long: racing publishers collide on recent ones only, milliseconds. */
const PUBLICATION_GUARD_MS = 60 * 60 * 1000;
/** How often retention and the park sweep run, milliseconds. */
const HOUSEKEEPING_MS = 60_000;
/** Application and grant reads are reused this long during a burst, milliseconds. */
const RECEIVER_CACHE_MS = 1000;

export interface Dispatcher {
  wake(): void;
  /** Stops claiming, waits for attempts in flight and writes their outcomes. */
  close(): Promise<void>;
}

/** The wait before retry number `attempts` (1 = after the first attempt), milliseconds; `random` in [0, 1). */
export function retryDelay(attempts: number, baseMs: number, random = Math.random()): number {
  return Math.min(MAX_RETRY_DELAY_MS, baseMs * 2 ** Math.min(30, attempts - 1) * (0.5 + random));
}

interface Settlement {
  delivery: EventDeliveryRecord;
  set: Partial<EventDeliveryRecord>;
  attempt: EventAttemptRecord | null;
}

interface Receiver {
  endpoints: string[];
  secret: string | null;
  scopes: ReadonlySet<string>;
}

export function startDispatcher(options: DispatcherOptions): Dispatcher {
  const { store, logger } = options;
  const owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const agents = keepAliveAgents(options.concurrency);
  const stop = new AbortController();
  /** Queue → its attempt, from the claim until the outcome is written. */
  const inFlight = new Map<string, Promise<void>>();
  const settled: Settlement[] = [];
  const receivers = new Map<string, { at: number; value: Promise<Receiver | null> }>();
  let woken = false;
  let wakeUp: (() => void) | null = null;
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
        busy = await round();
        if (Date.now() - lastHousekeeping > HOUSEKEEPING_MS) await housekeeping();
      } catch (error) {
        logger.error({ err: error }, 'webhooks: dispatch round failed');
      }
      // Between rounds, let I/O run: an embedded store answers synchronously, so a busy loop of rounds
      // would otherwise starve the sockets of the attempts in flight.
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (busy) continue;
      // Attempts in flight wake the loop when they end; otherwise sleep until the next retry is due.
      await idle(inFlight.size > 0 ? options.pollMs : await untilNextDue());
    }
    // Closing: let attempts in flight end, and write their outcomes (a round claims nothing once stopped).
    await Promise.allSettled([...inFlight.values()]);
    await round().catch((error: unknown) => logger.error({ err: error }, 'webhooks: writing outcomes at close failed'));
  }

  /**
   * One round; answers whether it did anything (then another follows at once). Everything it changes goes
   * in one batch: the outcomes of finished attempts (and their log records), the claim of each finished
   * queue's next delivery (chained, parked or not), the claims of other ready queue heads, and the parking
   * of candidates that wait behind their queue's head.
   */
  async function round(): Promise<boolean> {
    let busy = false;
    while ((await publishPending(store)) > 0) busy = true;
    const finished = settled.splice(0);
    const now = Date.now();
    const claimRound = newId();
    const ops: BatchOp[] = [];
    const claims: string[] = [];
    const claimOp = (delivery: EventDeliveryRecord, due: boolean): void => {
      claims.push(delivery.id);
      ops.push({
        collection: 'event_deliveries',
        update: { id: delivery.id, status: 'pending', $or: [{ lease_until: null }, { lease_until: { $lt: now } }] },
        change: { set: { lease_owner: owner, lease_until: now + options.leaseMs, claim: claimRound, ...(due && { next_attempt_at: now }) } },
      });
    };
    for (const { delivery, set, attempt } of finished) {
      ops.push({
        collection: 'event_deliveries',
        update: { id: delivery.id, lease_owner: owner, claim: delivery.claim },
        change: { set: { ...set, lease_owner: null, lease_until: null, claim: null, updated_at: now } },
      });
      if (attempt) ops.push({ collection: 'event_attempts', insert: attempt });
    }
    // A queue whose head became final goes on with its next delivery at once.
    for (const { delivery, set } of finished) {
      if (set.status === 'pending' || stop.signal.aborted) continue;
      const next = await store.event_deliveries.findOne({ queue: delivery.queue, status: 'pending', seq: { $gt: delivery.seq } }, { sort: { seq: 1 } });
      if (next && (next.next_attempt_at === null || next.next_attempt_at <= now)) claimOp(next, true);
    }
    // Looking for other queues costs a query of many deliveries: only for a fair share of free room, or
    // when nothing is in flight.
    const room = options.concurrency - inFlight.size + finished.length - claims.length;
    const worthIt = room >= Math.max(1, Math.floor(options.concurrency / 8)) || inFlight.size - finished.length + claims.length === 0;
    if (room > 0 && worthIt && !stop.signal.aborted) await claimHeads(room, now, claimOp, ops);
    if (ops.length === 0) return busy;
    try {
      await store.batch(ops);
    } catch (error) {
      settled.unshift(...finished); // written next round; the leases keep the deliveries ours meanwhile
      throw error;
    }
    for (const { delivery } of finished) inFlight.delete(delivery.queue);
    if (claims.length > 0) await start(claims, claimRound);
    return true;
  }

  /** Adds claims of up to `room` ready queue heads not in flight here, and parks the candidates behind a head. */
  async function claimHeads(room: number, now: number, claimOp: (delivery: EventDeliveryRecord, due: boolean) => void, ops: BatchOp[]): Promise<void> {
    const candidates = await store.event_deliveries.find(
      { status: 'pending', next_attempt_at: { $lte: now }, $or: [{ lease_until: null }, { lease_until: { $lt: now } }] },
      { sort: { next_attempt_at: 1 }, limit: Math.min(2000, Math.max(64, room * 3)) },
    );
    // Parked until its queue's head is final (that head's round claims the next delivery) or the sweep looks again.
    const park = (delivery: EventDeliveryRecord) => ops.push({
      collection: 'event_deliveries',
      update: { id: delivery.id, status: 'pending', next_attempt_at: delivery.next_attempt_at, $or: [{ lease_until: null }, { lease_until: { $lt: now } }] },
      change: { set: { next_attempt_at: null, updated_at: now } },
    });
    const heads = new Map<string, EventDeliveryRecord>();
    for (const candidate of candidates) {
      // Behind a head in flight here: out of the way of other queues' heads.
      if (inFlight.has(candidate.queue)) park(candidate);
      else {
        const seen = heads.get(candidate.queue);
        if (!seen || candidate.seq < seen.seq) heads.set(candidate.queue, candidate);
      }
    }
    for (const candidate of candidates) {
      const head = heads.get(candidate.queue);
      if (head && head !== candidate) park(candidate);
    }
    let claimed = 0;
    for (const head of heads.values()) {
      if (claimed >= room) break;
      if (await blocked(head)) park(head);
      else {
        claimOp(head, false);
        claimed += 1;
      }
    }
  }

  /** Whether an earlier delivery of the queue is still pending. */
  async function blocked(delivery: EventDeliveryRecord): Promise<boolean> {
    return (await store.event_deliveries.count({ queue: delivery.queue, status: 'pending', seq: { $lt: delivery.seq } })) > 0;
  }

  /** Starts the attempts of the deliveries this round's batch claimed. */
  async function start(ids: string[], claimRound: string): Promise<void> {
    const claimed = await store.event_deliveries.find({ id: { $in: ids }, claim: claimRound });
    const events = new Map((await store.events.find({ id: { $in: [...new Set(claimed.map((delivery) => delivery.event_id))] } })).map((event) => [event.id, event]));
    for (const delivery of claimed) {
      const attempt = attemptOne(delivery, events.get(delivery.event_id) ?? null)
        .then((settlement) => void settled.push(settlement))
        .catch((error: unknown) => {
          // Never lost: the lease runs out and the delivery is attempted again.
          logger.error({ err: error, delivery: delivery.id }, 'webhooks: attempt failed');
          inFlight.delete(delivery.queue);
        })
        .finally(wake);
      inFlight.set(delivery.queue, attempt);
    }
  }

  async function attemptOne(delivery: EventDeliveryRecord, event: EventRecord | null): Promise<Settlement> {
    const now = Date.now();
    if (now > delivery.expires_at) return final(delivery, 'expired: no attempt succeeded within 24 h of the event');
    const receiver = await receiverOf(delivery.application_id, delivery.user_id);
    const gone =
      !event ? 'the event no longer exists'
      : !receiver ? 'the user no longer grants the application'
      : !receiver.endpoints.includes(delivery.endpoint) ? 'the endpoint is no longer registered'
      : !receiver.secret ? 'the application has no webhook secret'
      : !eventVisibleTo(event.event_type, receiver.scopes) ? 'the grant no longer reads this kind of event' : null;
    if (gone !== null || !event || !receiver?.secret) return final(delivery, `cancelled: ${gone}`);
    const body = JSON.stringify(eventBody(event));
    const outcome = await deliver(delivery.endpoint, body, receiver.secret, { allowedHosts: options.allowedHosts, timeoutMs: options.timeoutMs, agents }, now);
    return { delivery, set: outcomeChange(delivery, outcome), attempt: attemptRecord(delivery, outcome, now) };
  }

  function outcomeChange(delivery: EventDeliveryRecord, outcome: AttemptOutcome): Partial<EventDeliveryRecord> {
    const attempts = delivery.attempts + 1;
    const last = { attempts, last_status: outcome.statusCode, last_error: outcome.error };
    if (outcome.error === null) return { ...last, status: 'delivered', next_attempt_at: null };
    const next = Date.now() + retryDelay(attempts, options.retryBaseMs);
    return next > delivery.expires_at ? { ...last, status: 'expired', next_attempt_at: null } : { ...last, status: 'pending', next_attempt_at: next };
  }

  function final(delivery: EventDeliveryRecord, reason: string): Settlement {
    return { delivery, set: { status: 'expired', next_attempt_at: null, last_error: reason }, attempt: null };
  }

  function attemptRecord(delivery: EventDeliveryRecord, outcome: AttemptOutcome, at: number): EventAttemptRecord {
    return {
      id: newId(), delivery_id: delivery.id, event_id: delivery.event_id, user_id: delivery.user_id, application_id: delivery.application_id,
      endpoint: delivery.endpoint, at, status_code: outcome.statusCode, error: outcome.error, duration_ms: outcome.durationMs,
    };
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

  /** Milliseconds until the next retry falls due, at most pollMs. */
  async function untilNextDue(): Promise<number> {
    try {
      const now = Date.now();
      const next = await store.event_deliveries.findOne({ status: 'pending', next_attempt_at: { $gt: now } }, { sort: { next_attempt_at: 1 } });
      return next?.next_attempt_at == null ? options.pollMs : Math.max(1, Math.min(options.pollMs, next.next_attempt_at - now + 1));
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
    await store.event_publications.deleteMany({ created_at: { $lt: now - PUBLICATION_GUARD_MS } });
    if (attempts + finals > 0) logger.info({ attempts, deliveries: finals }, 'webhooks: old records removed');
  }

  const running = loop();
  return {
    wake,
    async close() {
      stop.abort(new Error('webhook dispatcher closing'));
      wakeUp?.();
      await running;
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}
