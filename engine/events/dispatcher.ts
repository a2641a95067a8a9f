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
 * outcomes of finished attempts, the claims of the queues to work next, the release of claims a chain
 * stopped before. A queue is claimed as a chain: its next CLAIM_BATCH pending deliveries in one go (one
 * read, one batch), then attempted one after another, at most `concurrency` chains at once. Each attempt
 * after the first waits until the round that wrote the previous one's outcome committed, so a SIGKILL
 * between a POST and its record re-delivers that event and nothing after it (never an earlier event after
 * a later one), while the outcomes of all chains share that one commit. A chain stops at a failed attempt
 * (its queue waits for the retry), when half its lease has passed, or at close, and releases the rest.
 * Deliveries waiting behind their queue's head are parked (`next_attempt_at: null`) so a failing
 * endpoint's backlog never crowds other queues out of a round; the round that finishes a chain claims the
 * next deliveries of its queue whether parked or not, and a sweep makes anything parked longer than
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
  /** Called once the round that wrote this outcome committed. */
  recorded?: () => void;
}

/** A chain that stopped: its queue leaves this process's flight; `after`, when it ran out with a final outcome, goes on past that delivery. */
interface ChainEnd {
  queue: string;
  after: EventDeliveryRecord | null;
}

interface Receiver {
  endpoints: string[];
  secret: string | null;
  scopes: ReadonlySet<string>;
}

/** Deliveries of one queue claimed together and attempted one after another (see the header). */
export const CLAIM_BATCH = 32;

export function startDispatcher(options: DispatcherOptions): Dispatcher {
  const { store, logger } = options;
  const owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const agents = keepAliveAgents(options.concurrency);
  const stop = new AbortController();
  const stopped = new Promise<void>((resolve) => stop.signal.addEventListener('abort', () => resolve(), { once: true }));
  /** Queue → its chain, from the claim until the round after the chain stopped. */
  const inFlight = new Map<string, Promise<void>>();
  const settled: Settlement[] = [];
  /** Claimed here and not attempted: given back by the next round. */
  const releases: EventDeliveryRecord[] = [];
  const ended: ChainEnd[] = [];
  const receivers = new Map<string, { at: number; value: Promise<Receiver | null> }>();
  let woken = false;
  let wakeUp: (() => void) | null = null;
  let lastHousekeeping = 0;
  /** When a round last looked for ready queues (claimHeads), epoch milliseconds. */
  let lastLook = 0;

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
    // Closing: chains stop after their attempt under way; their outcomes and releases are written (a round claims nothing once stopped).
    await Promise.allSettled([...inFlight.values()]);
    await round().catch((error: unknown) => logger.error({ err: error }, 'webhooks: writing outcomes at close failed'));
  }

  /**
   * One round; answers whether it did anything (then another follows). Everything it changes goes in one
   * batch: the outcomes of finished attempts (and their log records), the release of claims chains did not
   * use, the claims of the next deliveries of each queue whose chain ran out (parked or not), the claims of
   * other ready queues, and the parking of candidates that wait behind their queue's head.
   */
  async function round(): Promise<boolean> {
    let busy = false;
    while ((await publishPending(store)) > 0) busy = true;
    const finished = settled.splice(0);
    const given = releases.splice(0);
    const ends = ended.splice(0);
    const now = Date.now();
    const claimRound = newId();
    const ops: BatchOp[] = [];
    /** Queue → the deliveries claimed for its chain, in `seq` order. */
    const claims = new Map<string, EventDeliveryRecord[]>();
    const claimChain = (line: EventDeliveryRecord[]): void => {
      claims.set(line[0]!.queue, line);
      for (const delivery of line) {
        ops.push({
          collection: 'event_deliveries',
          update: { id: delivery.id, status: 'pending', $or: [{ lease_until: null }, { lease_until: { $lt: now } }] },
          // Due (parked ones too): if the claim lapses or is given back, they are found again at once.
          change: { set: { lease_owner: owner, lease_until: now + options.leaseMs, claim: claimRound, next_attempt_at: now } },
        });
      }
    };
    for (const { delivery, set, attempt } of finished) {
      ops.push({
        collection: 'event_deliveries',
        update: { id: delivery.id, lease_owner: owner, claim: delivery.claim },
        change: { set: { ...set, lease_owner: null, lease_until: null, claim: null, updated_at: now } },
      });
      if (attempt) ops.push({ collection: 'event_attempts', insert: attempt });
    }
    for (const delivery of given) {
      ops.push({
        collection: 'event_deliveries',
        update: { id: delivery.id, lease_owner: owner, claim: delivery.claim },
        change: { set: { lease_owner: null, lease_until: null, claim: null, updated_at: now } },
      });
    }
    // A queue whose chain ran out with a final outcome goes on with its next deliveries at once.
    for (const { after } of ends) {
      if (after === null || stop.signal.aborted) continue;
      const line = await store.event_deliveries.find({ queue: after.queue, status: 'pending', seq: { $gt: after.seq } }, { sort: { seq: 1 }, limit: CLAIM_BATCH });
      if (line.length > 0 && (line[0]!.next_attempt_at === null || line[0]!.next_attempt_at <= now)) claimChain(line);
    }
    // Looking for other queues costs a query of many deliveries: only for a fair share of free room, or
    // when nothing is in flight; and only when something may have changed since the last look (events
    // published, chains ended, claims given back) or pollMs after it (retries falling due, other processes).
    const flying = inFlight.size - ends.length + claims.size;
    const room = options.concurrency - flying;
    const worthIt = room >= Math.max(1, Math.floor(options.concurrency / 8)) || flying === 0;
    const news = busy || ends.length > 0 || given.length > 0 || flying === 0 || now - lastLook >= options.pollMs;
    if (room > 0 && worthIt && news && !stop.signal.aborted) {
      lastLook = now;
      await claimHeads(room, now, claimChain, ops);
    }
    if (ops.length > 0) {
      try {
        await store.batch(ops);
      } catch (error) {
        // Written next round; the leases keep the deliveries ours meanwhile.
        settled.unshift(...finished);
        releases.unshift(...given);
        ended.unshift(...ends);
        throw error;
      }
    }
    for (const settlement of finished) settlement.recorded?.();
    for (const { queue } of ends) inFlight.delete(queue);
    if (claims.size > 0) await start(claims, claimRound);
    return busy || ops.length > 0 || ends.length > 0;
  }

  /**
   * Adds the chains of up to `room` ready queues not in flight here (each head with the deliveries behind
   * it, read in one query that also tells whether an earlier delivery is still pending), and parks the
   * candidates behind a head.
   */
  async function claimHeads(room: number, now: number, claimChain: (line: EventDeliveryRecord[]) => void, ops: BatchOp[]): Promise<void> {
    const candidates = await store.event_deliveries.find(
      { status: 'pending', next_attempt_at: { $lte: now }, $or: [{ lease_until: null }, { lease_until: { $lt: now } }] },
      { sort: { next_attempt_at: 1 }, limit: Math.min(2000, Math.max(64, room * 3)) },
    );
    // Parked until its queue's chain ran out (its round claims the next deliveries) or the sweep looks again.
    const park = (delivery: EventDeliveryRecord) => ops.push({
      collection: 'event_deliveries',
      update: { id: delivery.id, status: 'pending', next_attempt_at: delivery.next_attempt_at, $or: [{ lease_until: null }, { lease_until: { $lt: now } }] },
      change: { set: { next_attempt_at: null, updated_at: now } },
    });
    const heads = new Map<string, EventDeliveryRecord>();
    for (const candidate of candidates) {
      if (inFlight.has(candidate.queue)) continue; // behind a chain in flight here: parked below
      const seen = heads.get(candidate.queue);
      if (!seen || candidate.seq < seen.seq) heads.set(candidate.queue, candidate);
    }
    const claimed = new Set<string>();
    let chains = 0;
    for (const head of heads.values()) {
      if (chains >= room) break;
      const line = await store.event_deliveries.find({ queue: head.queue, status: 'pending' }, { sort: { seq: 1 }, limit: CLAIM_BATCH });
      if (line.length > 0 && line[0]!.seq < head.seq) {
        park(head); // an earlier delivery of its queue is still pending
        claimed.add(head.id);
        continue;
      }
      if (line[0]?.id !== head.id) continue; // no longer pending: another dispatcher's
      claimChain(line);
      for (const delivery of line) claimed.add(delivery.id);
      chains += 1;
    }
    // Behind a head (in flight here, claimed or blocked): out of the way of other queues' heads.
    for (const candidate of candidates) {
      if (claimed.has(candidate.id)) continue;
      if (inFlight.has(candidate.queue) || (heads.has(candidate.queue) && heads.get(candidate.queue) !== candidate)) park(candidate);
    }
  }

  /** Starts the chains this round's batch claimed: each the longest prefix of its line that the claim got; the rest are released. */
  async function start(claims: Map<string, EventDeliveryRecord[]>, claimRound: string): Promise<void> {
    const ids = [...claims.values()].flatMap((line) => line.map((delivery) => delivery.id));
    const held = new Map((await store.event_deliveries.find({ id: { $in: ids }, claim: claimRound })).map((delivery) => [delivery.id, delivery]));
    const events = new Map((await store.events.find({ id: { $in: [...new Set([...held.values()].map((delivery) => delivery.event_id))] } })).map((event) => [event.id, event]));
    for (const [queue, line] of claims) {
      const chain: EventDeliveryRecord[] = [];
      for (const delivery of line) {
        const mine = held.get(delivery.id);
        if (!mine) break;
        chain.push(mine);
      }
      for (const delivery of line.slice(chain.length)) if (held.has(delivery.id)) releases.push(held.get(delivery.id)!);
      if (chain.length > 0) inFlight.set(queue, runChain(chain, events));
    }
  }

  /**
   * Attempts a chain's deliveries in order, each after the previous one's outcome committed; ends with the
   * rest released and the queue handed back to the loop.
   */
  async function runChain(chain: EventDeliveryRecord[], events: Map<string, EventRecord>): Promise<void> {
    const claimedAt = Date.now();
    let done = 0;
    let after: EventDeliveryRecord | null = null;
    try {
      for (const delivery of chain) {
        if (done > 0 && (stop.signal.aborted || Date.now() - claimedAt > options.leaseMs / 2)) break;
        const settlement = await attemptOne(delivery, events.get(delivery.event_id) ?? null);
        done += 1;
        const recorded = new Promise<void>((resolve) => (settlement.recorded = resolve));
        settled.push(settlement);
        wake();
        // A retry later: the queue waits for it, and the deliveries behind are given back.
        if (settlement.set.status === 'pending') break;
        // The last one: the round that writes its outcome claims the queue's next deliveries in the same batch.
        if (done === chain.length) {
          after = delivery;
          break;
        }
        await Promise.race([recorded, stopped]);
        if (stop.signal.aborted) break;
      }
      releases.push(...chain.slice(done));
    } catch (error) {
      // Never lost: the leases run out and the deliveries are attempted again.
      logger.error({ err: error, delivery: chain[done]?.id }, 'webhooks: attempt failed');
    }
    ended.push({ queue: chain[0]!.queue, after });
    wake();
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
