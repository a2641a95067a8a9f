/**
 * GET /api/v1/events (gateway/routes/events.ts): every event once, oldest first, across pages, also when
 * many share a millisecond; cursors validated (422); the token's scopes filter the kinds; only the
 * subject's events; documented in /openapi.json. And publication itself: racing publishers never give two
 * events one position.
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { jsonClient, validationIssueAt } from '../support/json-api.js';
import { newEvent } from '../../storage/events.js';
import { publishPending } from '../../engine/events/publish.js';

const feed = suite<{ stack: TestStack }>('event feed');

feed.before(async (context) => {
  context.stack = await startStack();
});
feed.after(async ({ stack }) => stack.close());

async function readAll(stack: TestStack, token: string, limit: number, expected: number): Promise<{ items: { id: string; event_type: string }[]; pages: number }> {
  const client = jsonClient(stack, token);
  const deadline = Date.now() + 15_000;
  const items: { id: string; event_type: string }[] = [];
  let cursor: string | null = null;
  let pages = 0;
  while (items.length < expected) {
    if (Date.now() > deadline) throw new Error(`feed: ${items.length} of ${expected} events after 15 s`);
    const response = await client.get(`/api/v1/events?limit=${limit}${cursor ? `&after=${cursor}` : ''}`);
    assert.is(response.status, 200, JSON.stringify(response.body));
    items.push(...response.body.events);
    pages += 1;
    cursor = response.body.next;
  }
  return { items, pages };
}

feed('lists every event once, oldest first, across pages, when many were written in the same millisecond', async ({ stack }) => {
  const user = await stack.userWithToken(['activities:read']);
  const now = Date.now();
  const written = Array.from({ length: 60 }, (_, i) => newEvent(user.userId, i % 2 ? 'activity_created' : 'test_updated', `r${i}`, now));
  await stack.store.batch(written.slice(0, 30).map((event) => ({ collection: 'events' as const, insert: event })));
  await stack.store.batch(written.slice(30).map((event) => ({ collection: 'events' as const, insert: event })));
  const { items } = await readAll(stack, user.token, 7, 60);
  assert.equal(items.map((item) => item.id), written.map((event) => event.id), 'in the order written, none skipped or repeated');
  const after = (await jsonClient(stack, user.token).get(`/api/v1/events?limit=1`)).body;
  const again = (await jsonClient(stack, user.token).get(`/api/v1/events?after=${after.next}&limit=1`)).body;
  assert.is(again.events[0].id, written[1]!.id, 'a cursor reads on from where it was made, however often');
});

feed('the end of the feed answers no events and the same cursor', async ({ stack }) => {
  const user = await stack.userWithToken(['activities:read']);
  await stack.store.events.insert(newEvent(user.userId, 'test_created', 't1'));
  const { items } = await readAll(stack, user.token, 10, 1);
  assert.is(items.length, 1);
  const first = (await jsonClient(stack, user.token).get('/api/v1/events')).body;
  const end = (await jsonClient(stack, user.token).get(`/api/v1/events?after=${first.next}`)).body;
  assert.equal(end, { events: [], next: first.next });
});

feed('lists only the subject\'s events and needs activities:read', async ({ stack }) => {
  const mine = await stack.userWithToken(['activities:read']);
  const theirs = await stack.userWithToken(['activities:read']);
  await stack.store.events.insert(newEvent(theirs.userId, 'test_created', 'theirs'));
  await stack.store.events.insert(newEvent(mine.userId, 'test_created', 'mine'));
  const { items } = await readAll(stack, mine.token, 10, 1);
  assert.equal(items.map((item) => (item as unknown as { resource_id: string }).resource_id), ['mine']);
  const wellness = await stack.userWithToken(['wellness:read'], { userId: mine.userId });
  assert.is((await jsonClient(stack, wellness.token).get('/api/v1/events')).status, 403);
});

feed('refuses a cursor it did not make and a limit out of range with 422 naming the parameter', async ({ stack }) => {
  const user = jsonClient(stack, (await stack.userWithToken(['activities:read'])).token);
  for (const after of ['nope', Buffer.from('e1:-1').toString('base64url'), Buffer.from('e1:01').toString('base64url'), 'x'.repeat(65)]) {
    const response = await user.get(`/api/v1/events?after=${after}`);
    assert.is(response.status, 422, after);
    assert.ok(validationIssueAt(response, ['query', 'after']));
  }
  for (const limit of ['0', '1001', 'ten']) {
    const response = await user.get(`/api/v1/events?limit=${limit}`);
    assert.is(response.status, 422, limit);
    assert.ok(validationIssueAt(response, ['query', 'limit']));
  }
});

feed('is documented in /openapi.json with its cursor, limit and scope', async ({ stack }) => {
  const document = (await (await stack.get('/openapi.json')).json()) as { paths: Record<string, Record<string, { parameters: { name: string }[]; security: unknown }>> };
  const operation = document.paths['/api/v1/events']?.get;
  assert.ok(operation, 'the route is in the document');
  assert.equal(operation.parameters.map((parameter) => parameter.name).sort(), ['after', 'limit']);
});

feed('publishers racing on the same outbox never give two events one position', async ({ stack }) => {
  const user = await stack.userWithToken(['activities:read']);
  const now = Date.now();
  const written = Array.from({ length: 40 }, (_, i) => newEvent(user.userId, 'test_created', `race${i}`, now));
  await stack.store.batch(written.map((event) => ({ collection: 'events' as const, insert: event })));
  await Promise.all([publishPending(stack.store), publishPending(stack.store), publishPending(stack.store)]);
  while ((await publishPending(stack.store)) > 0);
  const published = await stack.store.events.find({ user_id: user.userId }, { sort: { seq: 1 } });
  assert.ok(published.every((event) => event.status === 'published' && typeof event.seq === 'number'));
  assert.is(new Set(published.map((event) => event.seq)).size, written.length);
  assert.equal(published.map((event) => event.id), written.map((event) => event.id));
});

feed.run();
