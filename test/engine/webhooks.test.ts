/**
 * Webhook delivery on the real stack (engine/events/): a loopback receiver (WEBHOOK_ALLOWED_HOSTS admits
 * 127.0.0.1), signatures checked by an independent implementation, retries on 500 and on timeout with
 * growing delays (a small WEBHOOK_RETRY_BASE_MS), order per user, no redirect followed, the address
 * checked on every attempt, catching up through the feed, and activity_analyzed after an upload.
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { startReceiver, subscribe, verifySignature, type Receiver, type Subscriber } from '../support/webhook-receiver.js';
import { jsonClient } from '../support/json-api.js';
import { csvActivity, settled, upload } from '../support/uploads.js';
import { CLAIM_BATCH, retryDelay } from '../../engine/events/dispatcher.js';
import { countingStore } from '../support/counting-store.js';
import { newEvent } from '../../storage/events.js';
import type { EventAttemptRecord } from '../../storage/store.js';
import { openStore } from '../../storage/open-store.js';

const DAY_MS = 24 * 60 * 60 * 1000;

const BASE_MS = 40;
const TIMEOUT_MS = 300;
const webhooks = suite<{ stack: TestStack; receivers: Receiver[] }>('webhooks');

webhooks.before(async (context) => {
  context.stack = await startStack({ WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_RETRY_BASE_MS: String(BASE_MS), WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS), WEBHOOK_POLL_MS: '50' });
  context.receivers = [];
});
webhooks.after(async ({ stack, receivers }) => {
  await stack.close();
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

async function receiverFor(context: { receivers: Receiver[] }): Promise<Receiver> {
  const receiver = await startReceiver();
  context.receivers.push(receiver);
  return receiver;
}

function testBody(start: string): Record<string, unknown> {
  return { title: null, sport: 'cycling', start, end: null, results: null, tags: null };
}

async function createTests(stack: TestStack, subscriber: Subscriber, count: number): Promise<string[]> {
  const api = jsonClient(stack, subscriber.token);
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push((await api.post('/api/v1/tests/', testBody(`2024-04-0${1 + (i % 9)}T09:00:00+02:00`))).body.id);
  return ids;
}

async function attemptsOf(stack: TestStack, appId: string, count: number): Promise<EventAttemptRecord[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const attempts = await stack.store.event_attempts.find({ application_id: appId }, { sort: { at: 1 } });
    if (attempts.length >= count) return attempts;
    if (Date.now() > deadline) throw new Error(`only ${attempts.length} of ${count} attempts recorded`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const bodyOf = (received: { body: string }) => JSON.parse(received.body) as { id: string; user_id: string; event_type: string; resource_id: string; timestamp: string };

webhooks('delivers each event with the body gaps.md names and a signature an independent HMAC over t.body verifies', async (context) => {
  const receiver = await receiverFor(context);
  const subscriber = await subscribe(context.stack, [receiver.url]);
  const [testId] = await createTests(context.stack, subscriber, 1);
  const [request] = await receiver.waitFor((received) => received.length >= 1);
  const event = (await context.stack.store.events.find({ user_id: subscriber.userId }))[0]!;
  assert.equal(bodyOf(request!), { id: event.id, user_id: subscriber.userId, event_type: 'test_created', resource_id: testId!, timestamp: new Date(event.timestamp).toISOString().replace('.000Z', 'Z') });
  assert.is(request!.path, '/hooks');
  assert.is(request!.headers['content-type'], 'application/json');
  assert.ok(await verifySignature(request!.headers['x-sweatstack-signature'] as string, request!.body, subscriber.secret), 'signature verifies');
  assert.not.ok(await verifySignature(request!.headers['x-sweatstack-signature'] as string, `${request!.body} `, subscriber.secret), 'a changed body does not');
  assert.not.ok(await verifySignature(request!.headers['x-sweatstack-signature'] as string, request!.body, subscriber.secret, Date.now() + 301_000), 'outside ±300 s it does not');
  const [attempt] = await attemptsOf(context.stack, subscriber.appId, 1);
  assert.equal([attempt!.status_code, attempt!.error, attempt!.event_id], [200, null, event.id]);
});

webhooks('retries an endpoint answering 500 with growing delays until it answers 2xx, always the same event', async (context) => {
  const receiver = await receiverFor(context);
  receiver.answer = (_request, index) => (index < 3 ? 500 : 204);
  const subscriber = await subscribe(context.stack, [receiver.url]);
  await createTests(context.stack, subscriber, 1);
  const attempts = await attemptsOf(context.stack, subscriber.appId, 4);
  assert.equal(attempts.map((attempt) => attempt.status_code), [500, 500, 500, 204]);
  assert.is(new Set(receiver.received.map((request) => bodyOf(request).id)).size, 1);
  // Waits are at least the backoff's lower bound (base · 2^(n−1) · 0.5): 20, 40, 80 ms.
  for (let n = 1; n < attempts.length; n++) assert.ok(attempts[n]!.at - attempts[n - 1]!.at >= BASE_MS * 2 ** (n - 1) * 0.5, `wait ${n}`);
  const delivery = (await context.stack.store.event_deliveries.find({ application_id: subscriber.appId }))[0]!;
  assert.equal([delivery.status, delivery.attempts], ['delivered', 4]);
});

webhooks('the backoff doubles with each attempt within ±50 % jitter and stops growing at one hour', () => {
  for (let attempt = 1; attempt <= 8; attempt++) {
    assert.is(retryDelay(attempt, 1000, 0), 1000 * 2 ** (attempt - 1) * 0.5);
    assert.ok(Math.abs(retryDelay(attempt, 1000, 0.999_999) - 1000 * 2 ** (attempt - 1) * 1.5) < 1);
    assert.ok(retryDelay(attempt + 1, 1000, 0) >= retryDelay(attempt, 1000, 0.5) * 0.99, 'the lowest next delay is not below the middle of this one');
  }
  assert.is(retryDelay(40, 10_000, 0.9), 3_600_000);
});

webhooks('an endpoint that does not answer within the timeout is retried', async (context) => {
  const receiver = await receiverFor(context);
  receiver.answer = (_request, index) => (index === 0 ? 'hang' : 200);
  const subscriber = await subscribe(context.stack, [receiver.url]);
  await createTests(context.stack, subscriber, 1);
  const attempts = await attemptsOf(context.stack, subscriber.appId, 2);
  assert.equal(attempts.map((attempt) => [attempt.status_code, attempt.error]), [[null, `no answer within ${TIMEOUT_MS} ms`], [200, null]]);
  assert.ok(attempts[0]!.duration_ms >= TIMEOUT_MS - 5);
});

webhooks('a receiver whose answer never ends [endless, trickle]: its status decides the attempt at once, and the connection is cut after at most a small read within the timeout', async (context) => {
  const receiver = await receiverFor(context);
  const script = [{ status: 500, body: 'endless' }, { status: 200, body: 'endless' }, { status: 503, body: 'trickle' }, { status: 200, body: 'trickle' }] as const;
  receiver.answer = (_request, index) => script[index] ?? 200;
  const subscriber = await subscribe(context.stack, [receiver.url]);
  await createTests(context.stack, subscriber, 2);
  const attempts = await attemptsOf(context.stack, subscriber.appId, 4);
  assert.equal(attempts.map((attempt) => [attempt.status_code, attempt.error]), [[500, 'answered 500'], [200, null], [503, 'answered 503'], [200, null]]);
  assert.ok(attempts.every((attempt) => attempt.duration_ms < TIMEOUT_MS), `decided at the status line: ${attempts.map((attempt) => attempt.duration_ms)}`);
  await receiver.waitFor(() => receiver.tallies.length === 4 && receiver.tallies.every((tally) => tally.closed), TIMEOUT_MS + 5_000)
    .catch(() => assert.unreachable(`the engine still reads: ${JSON.stringify(receiver.tallies)}`));
  // Written is what the loopback socket buffers took before the cut (a few MB at most), not what was read.
  assert.ok(receiver.tallies.every((tally) => tally.written < 32 * 1024 * 1024), JSON.stringify(receiver.tallies));
});

webhooks('a redirect is not followed: the attempt fails and the target is never called', async (context) => {
  const receiver = await receiverFor(context);
  receiver.answer = (request) => (request.path === '/hooks' ? { status: 307, headers: { location: '/elsewhere' } } : 200);
  const subscriber = await subscribe(context.stack, [receiver.url]);
  await createTests(context.stack, subscriber, 1);
  const attempts = await attemptsOf(context.stack, subscriber.appId, 3);
  assert.ok(attempts.every((attempt) => attempt.status_code === 307 && attempt.error === 'redirect not followed'));
  assert.ok(receiver.received.every((request) => request.path === '/hooks'), 'never /elsewhere');
});

webhooks('a host that is not allowed and resolves to loopback is refused at delivery, however it was registered', async (context) => {
  const receiver = await receiverFor(context);
  const subscriber = await subscribe(context.stack, [`http://localhost:${receiver.port}/hooks`, `https://127.0.0.2:${receiver.port}/hooks`]);
  await createTests(context.stack, subscriber, 1);
  const attempts = await attemptsOf(context.stack, subscriber.appId, 2);
  assert.ok(attempts.every((attempt) => attempt.status_code === null && attempt.error!.startsWith('endpoint')), JSON.stringify(attempts.map((a) => a.error)));
  assert.is(receiver.received.length, 0);
});

webhooks("a user's later event is not sent before the earlier one is delivered", async (context) => {
  const receiver = await receiverFor(context);
  const failures = new Map<string, number>();
  // Each event fails twice before it is accepted.
  receiver.answer = (request) => {
    const id = bodyOf(request).id;
    const seen = failures.get(id) ?? 0;
    failures.set(id, seen + 1);
    return seen < 2 ? 503 : 200;
  };
  const subscriber = await subscribe(context.stack, [receiver.url]);
  const other = await subscribe(context.stack, [receiver.url]);
  await Promise.all([createTests(context.stack, subscriber, 4), createTests(context.stack, other, 4)]);
  const received = await receiver.waitFor((all) => all.length >= 24);
  for (const userId of [subscriber.userId, other.userId]) {
    const events = (await context.stack.store.events.find({ user_id: userId }, { sort: { seq: 1 } })).map((event) => event.id);
    const order = received.filter((request) => bodyOf(request).user_id === userId).map((request) => bodyOf(request).id);
    assert.equal(order, events.flatMap((id) => [id, id, id]), 'three attempts of each event, in order, never interleaved');
  }
});

webhooks('a receiver that was down catches up through the feed: the same ids and bodies as the webhooks', async (context) => {
  const receiver = await receiverFor(context);
  let down = true;
  receiver.answer = () => (down ? 503 : 200);
  const subscriber = await subscribe(context.stack, [receiver.url]);
  const testIds = await createTests(context.stack, subscriber, 5);
  await receiver.waitFor((all) => all.length >= 1);
  // The receiver, back up, reads what it missed instead of waiting for the retries.
  const feed = jsonClient(context.stack, subscriber.token);
  const items: Record<string, unknown>[] = [];
  let cursor = '';
  for (let page = 0; page < 10; page++) {
    const response = await feed.get(`/api/v1/events?limit=2${cursor ? `&after=${cursor}` : ''}`);
    assert.is(response.status, 200);
    items.push(...response.body.events);
    if (response.body.events.length === 0) break;
    cursor = response.body.next;
  }
  assert.equal(items.map((item) => item.resource_id), testIds);
  down = false;
  const received = await receiver.waitFor((all) => new Set(all.filter((request) => request.headers['x-sweatstack-signature']).map((request) => bodyOf(request).id)).size >= 5 && all.length >= 6);
  const delivered = new Map(received.map((request) => [bodyOf(request).id, bodyOf(request)]));
  for (const item of items) assert.equal(delivered.get(item.id as string), item, 'the webhook body of the same event');
});

webhooks('an application without a webhook secret gets no delivery; its user still reads the events in the feed', async (context) => {
  const receiver = await receiverFor(context);
  const subscriber = await subscribe(context.stack, [receiver.url], undefined, { secret: false });
  await createTests(context.stack, subscriber, 2);
  const feed = jsonClient(context.stack, subscriber.token);
  const deadline = Date.now() + 10_000;
  let items: unknown[] = [];
  while (items.length < 2 && Date.now() < deadline) items = (await feed.get('/api/v1/events')).body.events;
  assert.is(items.length, 2);
  assert.is(await context.stack.store.event_deliveries.count({ application_id: subscriber.appId }), 0);
  assert.is(receiver.received.length, 0);
});

webhooks('an upload sends activity_created, then activity_analyzed, then source_processed, once the caches exist', async (context) => {
  const receiver = await receiverFor(context);
  const subscriber = await subscribe(context.stack, [receiver.url]);
  const response = await upload(context.stack, subscriber.token, [{ name: 'ride.csv', bytes: csvActivity() }]);
  const [source] = ((await response.json()) as { sources: { id: string }[] }).sources;
  const done = await settled(context.stack, subscriber.token, source!.id);
  const received = await receiver.waitFor((all) => all.length >= 3);
  assert.equal(received.map((request) => [bodyOf(request).event_type, bodyOf(request).resource_id]), [
    ['activity_created', done.activity_ids[0]], ['activity_analyzed', done.activity_ids[0]], ['source_processed', source!.id],
  ]);
  const activity = await context.stack.store.activities.findOne({ id: done.activity_ids[0]!, user_id: subscriber.userId });
  assert.ok(activity?.analysis_key && (await context.stack.store.blobs.size(activity.analysis_key))! > 0, 'the cache exists');
});

webhooks('attempt records and finished deliveries older than the retention are removed when the dispatcher starts', async () => {
  const store = await openStore({ mongodbUri: null, sqliteFile: ':memory:' });
  const now = Date.now();
  const old = now - 2 * DAY_MS;
  const attempt = (id: string, at: number) => ({ id, delivery_id: 'd', event_id: 'e', user_id: 'u', application_id: 'a', endpoint: 'https://example.com/h', at, status_code: 200, error: null, duration_ms: 3 });
  const delivery = (id: string, status: 'delivered' | 'pending', updatedAt: number) => ({
    id, event_id: 'e', user_id: 'u', application_id: 'a', endpoint: 'https://example.com/h', queue: `q${id}`, seq: 1, status, attempts: 1,
    next_attempt_at: status === 'pending' ? now + DAY_MS : null, expires_at: now + DAY_MS, lease_owner: null, lease_until: null, claim: null,
    last_status: null, last_error: null, created_at: updatedAt, updated_at: updatedAt,
  });
  await store.batch([
    { collection: 'event_attempts', insert: attempt('old', old) }, { collection: 'event_attempts', insert: attempt('new', now) },
    { collection: 'event_deliveries', insert: delivery('old-done', 'delivered', old) }, { collection: 'event_deliveries', insert: delivery('new-done', 'delivered', now) },
    { collection: 'event_deliveries', insert: delivery('old-pending', 'pending', old) },
  ]);
  const stack = await startStack({ WEBHOOK_ATTEMPT_RETENTION_DAYS: '1' }, { store });
  try {
    const deadline = Date.now() + 10_000;
    while ((await store.event_attempts.count({})) > 1 && Date.now() < deadline);
    assert.equal((await store.event_attempts.find({})).map((record) => record.id), ['new']);
    assert.equal((await store.event_deliveries.find({}, { sort: { id: 1 } })).map((record) => record.id), ['new-done', 'old-pending'], 'a pending delivery stays');
  } finally {
    await stack.close();
    await store.close();
  }
});

webhooks("a queue's deliveries are claimed together and sent in order: far fewer delivery reads than deliveries", async (context) => {
  const counting = countingStore(await openStore({ mongodbUri: null, sqliteFile: ':memory:' }));
  // A long poll: the looks it times (for retries falling due, other processes' events) stay few however slow the machine.
  const stack = await startStack({ WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_POLL_MS: '1000' }, { store: counting.store });
  try {
    const receiver = await receiverFor(context);
    const subscriber = await subscribe(stack, [receiver.url]);
    const events = Array.from({ length: 2 * CLAIM_BATCH + 6 }, (_, i) => newEvent(subscriber.userId, 'test_created', `t${i}`));
    counting.reset();
    await stack.store.batch(events.map((event) => ({ collection: 'events' as const, insert: event })));
    const received = await receiver.waitFor((all) => all.length >= events.length);
    assert.equal(received.map((request) => bodyOf(request).id), events.map((event) => event.id), 'each once, in order');
    const reads = (prefix: string) => ['find', 'findOne', 'count'].reduce((total, method) => total + (counting.counts.get(`${prefix}event_deliveries.${method}`) ?? 0), 0);
    // One claim per CLAIM_BATCH deliveries (the queue's line, the claimed read back) and the idle polls; one read per delivery before.
    assert.ok(reads('') <= events.length / 4, `${reads('')} reads of deliveries for ${events.length} deliveries`);
  } finally {
    await stack.close();
    await counting.store.close();
  }
});

webhooks.run();
