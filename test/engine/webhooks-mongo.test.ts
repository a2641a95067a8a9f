/**
 * Webhooks and the feed on MongoDB (the bundled jongodb server, or MONGODB_URI): publication, ordered
 * signed delivery, the feed's cursor, and the publication guard, which on MongoDB rests on the publication
 * record's id (its sparse indexes only hold strings, so `seq` cannot be one). The guard is shown with the
 * two publishers' batches one after the other, not racing: the bundled server loses concurrent commits
 * (test/storage/mongo-double.test.ts), so a race on it says nothing about the store. Publishers racing
 * across processes run on a shared SQLite file (test/gateway/processes-shared-sqlite.test.ts).
 */
import { randomBytes } from 'node:crypto';
import { suite, skipUnless } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { openMongoStore } from '../../storage/mongo/mongo-store.js';
import type { Store } from '../../storage/store.js';
import { dropTestDatabase, mongoServerMissing, startMongoServer, type MongoServer } from '../support/mongo-server.js';
import { startStack, type TestStack } from '../support/stack.js';
import { startReceiver, subscribe, verifySignature, type Receiver } from '../support/webhook-receiver.js';
import { jsonClient } from '../support/json-api.js';
import { newEvent } from '../../storage/events.js';
import { publishPending } from '../../engine/events/publish.js';

const onMongo = suite<{ server: MongoServer; database: string; store: Store; stack: TestStack; receiver: Receiver }>('webhooks on MongoDB');
skipUnless(mongoServerMissing(), onMongo);

onMongo.before(async (context) => {
  context.server = await startMongoServer();
  context.database = `threshold_test_${randomBytes(6).toString('hex')}`;
  context.store = await openMongoStore({ uri: context.server.uri, database: context.database });
  context.stack = await startStack({ WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_RETRY_BASE_MS: '20', WEBHOOK_POLL_MS: '50', LOG_LEVEL: 'warn' }, { store: context.store });
  context.receiver = await startReceiver();
});
onMongo.after(async (context) => {
  await context.stack?.close();
  await context.receiver?.close();
  await context.store?.close();
  if (context.store) await dropTestDatabase(context.server.uri, context.database);
  await context.server?.stop();
});

onMongo('delivers a user\'s events signed and in order, and the feed lists the same ones', async ({ stack, receiver }) => {
  receiver.answer = (_request, index) => (index === 0 ? 500 : 200);
  const subscriber = await subscribe(stack, [receiver.url]);
  const api = jsonClient(stack, subscriber.token);
  const tests: string[] = [];
  for (const day of ['01', '02', '03']) tests.push((await api.post('/api/v1/tests/', { title: null, sport: 'cycling', start: `2024-04-${day}T09:00:00+02:00`, end: null, results: null, tags: null })).body.id);
  const received = await receiver.waitFor((all) => all.length >= 4);
  assert.equal(received.map((request) => JSON.parse(request.body).resource_id), [tests[0], ...tests]);
  for (const request of received) assert.ok(await verifySignature(request.headers['x-sweatstack-signature'] as string, request.body, subscriber.secret));
  const first = (await api.get('/api/v1/events?limit=2')).body;
  const rest = (await api.get(`/api/v1/events?after=${first.next}`)).body;
  assert.equal([...first.events, ...rest.events].map((item: { id: string }) => item.id), received.slice(1).map((request) => JSON.parse(request.body).id));
});

onMongo('a publisher that numbered from a stale position fails whole and gives no event a second position', async ({ server }) => {
  // A database of its own: the stack's dispatcher publishes whatever is pending in the shared one.
  const database = `threshold_test_${randomBytes(6).toString('hex')}`;
  const store = await openMongoStore({ uri: server.uri, database });
  try {
    const written = Array.from({ length: 30 }, (_, i) => newEvent('u1', 'test_created', `stale${i}`, Date.now()));
    await store.batch(written.map((event) => ({ collection: 'events' as const, insert: event })));
    // The late publisher reads the outbox and the highest position, then waits at its batch while the
    // other publishes the same events from the same position; then its batch goes in.
    let enter!: () => void;
    let release!: () => void;
    const entered = new Promise<void>((resolve) => (enter = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    const late: Store = { ...store, async batch(ops) {
      enter();
      await released;
      return store.batch(ops);
    } };
    const lateRound = publishPending(late);
    await entered;
    assert.is(await publishPending(store), written.length);
    release();
    assert.is(await lateRound, 0, 'the stale batch fails whole');
    const published = await store.events.find({ user_id: 'u1' }, { sort: { seq: 1 } });
    assert.equal(published.map((event) => event.seq), written.map((_, i) => i + 1));
    assert.equal(published.map((event) => event.id), written.map((event) => event.id));
    assert.equal((await store.event_publications.find({})).map((publication) => publication.id), ['p1']);
  } finally {
    await store.close();
    await dropTestDatabase(server.uri, database);
  }
});

onMongo.run();
