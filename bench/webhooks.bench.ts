/**
 * Question: how many webhook deliveries per second does one engine make to a loopback receiver, and how
 * long after a change does its first delivery attempt start (issue 15 targets: ≥ 1,000/s; p99 ≤ 1 s)?
 *
 * The real stack (test/support/stack.ts, SQLite) and a receiver answering 200 at once, in this process.
 * Throughput: USERS users granted one application, EVENTS_PER_USER outbox events each written in one go
 * (as changes leave them), timed from the write until the receiver has every event; deliveries stay
 * ordered per user, so USERS queues run side by side. Delay: CHANGES tests created through the API by
 * WRITERS clients at once (each write wakes the dispatcher in-process; the poll stays at its default
 * 500 ms), each timed from the event's timestamp to the receiver's arrival of its first attempt.
 * Reference in the same run: the same number of signed POSTs straight to the receiver with the same
 * concurrency and no store (engine/events/deliver.ts alone), the ceiling the dispatcher is compared with.
 * Absolute figures are indicative only (2 shared cores; the receiver competes with the service).
 */
import { startStack } from '../test/support/stack.js';
import { startReceiver, subscribe } from '../test/support/webhook-receiver.js';
import { jsonClient } from '../test/support/json-api.js';
import { newEvent } from '../storage/events.js';
import { deliver, keepAliveAgents } from '../engine/events/deliver.js';
import { WEBHOOK_DEFAULTS } from '../engine/config.js';
import { share, type BenchResult } from './results.js';

export const question = 'Webhooks: deliveries per second to a loopback receiver, and delay from a change to its first delivery attempt (p50/p99)';

const USERS = 200;
const EVENTS_PER_USER = 25;
const CHANGES = 600;
const WRITERS = 8;

const quantile = (sorted: number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

async function until(ready: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error('bench: deliveries did not finish in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export async function run(): Promise<BenchResult> {
  const receiver = await startReceiver();
  const stack = await startStack({ WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', LOG_LEVEL: 'silent' });
  try {
    // Throughput.
    const first = await subscribe(stack, [receiver.url], ['activities:read']);
    const users = [first.userId];
    for (let u = 1; u < USERS; u++) users.push((await stack.userWithToken(['activities:read'], { appId: first.appId })).userId);
    const ids = new Set<string>();
    const seen = new Set<string>();
    receiver.answer = (request) => {
      seen.add((JSON.parse(request.body) as { id: string }).id);
      return 200;
    };
    const events = users.flatMap((userId) => Array.from({ length: EVENTS_PER_USER }, (_, i) => newEvent(userId, 'test_created', `t${i}`)));
    for (const event of events) ids.add(event.id);
    const started = performance.now();
    for (let i = 0; i < events.length; i += 500) await stack.store.batch(events.slice(i, i + 500).map((event) => ({ collection: 'events' as const, insert: event })));
    await until(() => seen.size >= ids.size, 300_000);
    const throughputMs = performance.now() - started;
    const firstArrival = receiver.received[0]!.at;
    const lastArrival = receiver.received.at(-1)!.at;
    const requests = receiver.received.length;

    // Delay from a change to its first attempt.
    receiver.received.length = 0;
    const arrivals = new Map<string, number>();
    receiver.answer = (request) => {
      const body = JSON.parse(request.body) as { id: string };
      if (!arrivals.has(body.id)) arrivals.set(body.id, request.at);
      return 200;
    };
    const writers = await Promise.all(Array.from({ length: WRITERS }, () => stack.userWithToken(['activities:read', 'activities:write'], { appId: first.appId })));
    let next = 0;
    await Promise.all(writers.map(async (writer) => {
      const api = jsonClient(stack, writer.token);
      while (next < CHANGES) {
        next += 1;
        const response = await api.post('/api/v1/tests/', { title: null, sport: 'cycling', start: '2024-04-01T09:00:00+02:00', end: null, results: null, tags: null });
        if (response.status !== 200) throw new Error(`bench: create test answered ${response.status}`);
      }
    }));
    await until(() => arrivals.size >= CHANGES, 120_000);
    const written = await stack.store.events.find({ user_id: { $in: writers.map((writer) => writer.userId) } });
    const delays = written.map((event) => arrivals.get(event.id)! - event.timestamp).sort((a, b) => a - b);
    // Reference: signed POSTs alone.
    receiver.answer = () => 200;
    const agents = keepAliveAgents(WEBHOOK_DEFAULTS.concurrency);
    let sent = 0;
    const raw = performance.now();
    await Promise.all(Array.from({ length: WEBHOOK_DEFAULTS.concurrency }, async () => {
      while (sent < ids.size) {
        sent += 1;
        const outcome = await deliver(receiver.url, '{"id":"x"}', 'whsec_bench', { allowedHosts: ['127.0.0.1'], timeoutMs: 2000, agents });
        if (outcome.error !== null) throw new Error(`bench: reference POST failed: ${outcome.error}`);
      }
    }));
    const rawPerSecond = ids.size / ((performance.now() - raw) / 1000);
    agents.http.destroy();
    const perSecond = ids.size / (throughputMs / 1000);
    const text = [
      `${ids.size} events (${USERS} users × ${EVENTS_PER_USER}) delivered in ${(throughputMs / 1000).toFixed(2)} s from the write: ${Math.round(perSecond)} deliveries/s `
        + `(${Math.round(ids.size / ((lastArrival - firstArrival) / 1000))}/s first to last arrival; ${requests - ids.size} repeated requests)`,
      `reference, signed POSTs alone (no store): ${Math.round(rawPerSecond)}/s; the dispatcher reaches ${(perSecond / rawPerSecond).toFixed(2)}× of it`,
      `change → first attempt over ${CHANGES} tests created by ${WRITERS} clients at once: p50 ${quantile(delays, 0.5)} ms, p99 ${quantile(delays, 0.99)} ms, max ${delays.at(-1)} ms`,
    ].join('\n  ');
    return {
      text,
      rows: [{
        question: `deliveries, ${USERS} users × ${EVENTS_PER_USER} events`, dataset: 'synthetic', figure: perSecond, unit: '/s',
        anchor: rawPerSecond, anchorLabel: 'signed POSTs alone', ratio: share(perSecond, rawPerSecond, 'higher'),
      }],
    };
  } finally {
    await stack.close();
    await receiver.close();
  }
}
