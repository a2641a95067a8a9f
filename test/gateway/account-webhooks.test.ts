/**
 * /account/webhooks (gateway/routes/account-webhooks.ts): an owner sees each endpoint's health and the
 * attempt log, and Redeliver queues an event again (CSRF-checked, only the owner's application, only an
 * event that application was sent).
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { sessionFor } from '../support/sessions.js';
import { startReceiver, subscribe, verifySignature, webhooksPageUntil, type Receiver } from '../support/webhook-receiver.js';
import { jsonClient } from '../support/json-api.js';

const page = suite<{ stack: TestStack; receiver: Receiver }>('account webhooks page');

page.before(async (context) => {
  context.stack = await startStack({ WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_RETRY_BASE_MS: '20', WEBHOOK_POLL_MS: '50' });
  context.receiver = await startReceiver();
});
page.after(async ({ stack, receiver }) => {
  await stack.close();
  await receiver.close();
});

async function ownerOf(stack: TestStack, appId: string) {
  const app = await stack.store.applications.get(appId);
  return sessionFor(stack.store, app!.user_id);
}

function form(fields: Record<string, string>): RequestInit['body'] {
  return new URLSearchParams(fields).toString();
}

page('shows a failing endpoint with its last error and the attempts, and redelivers an event to its owner', async ({ stack, receiver }) => {
  receiver.answer = (request) => (request.path === '/failing' ? 500 : 200);
  const failing = receiver.url.replace('/hooks', '/failing');
  const subscriber = await subscribe(stack, [receiver.url, failing]);
  const test = (await jsonClient(stack, subscriber.token).post('/api/v1/tests/', { title: null, sport: 'cycling', start: '2024-04-01T09:00:00+02:00', end: null, results: null, tags: null })).body;
  await receiver.waitFor((all) => all.filter((request) => request.path === '/failing').length >= 3);
  const session = await ownerOf(stack, subscriber.appId);
  // The receiver saw the third failure before the dispatcher's next round records it: read the page until it does.
  const html = await webhooksPageUntil(stack, session.cookie, /failing: \d+\+? attempts in a row/);
  assert.match(html, /Last error: answered 500/);
  assert.match(html, /delivering/);
  const event = (await stack.store.events.find({ user_id: subscriber.userId }))[0]!;
  assert.ok(html.includes(event.id) && html.includes('test_created'));

  const fields = { application_id: subscriber.appId, event_id: event.id, endpoint: receiver.url };
  const forged = await fetch(`${stack.baseUrl}/account/webhooks/redeliver`, {
    method: 'POST', redirect: 'manual', headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: form({ ...fields, csrf: 'wrong' }),
  });
  assert.is(forged.status, 403);
  const before = receiver.received.filter((request) => request.path === '/hooks').length;
  const redelivered = await fetch(`${stack.baseUrl}/account/webhooks/redeliver`, {
    method: 'POST', redirect: 'manual', headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: form({ ...fields, csrf: session.csrf }),
  });
  assert.is(redelivered.status, 303);
  assert.is(redelivered.headers.get('location'), '/account/webhooks?notice=redelivered');
  const again = (await receiver.waitFor((all) => all.filter((request) => request.path === '/hooks').length > before)).filter((request) => request.path === '/hooks').at(-1)!;
  assert.is(JSON.parse(again.body).id, event.id, 'the same event');
  assert.is(JSON.parse(again.body).resource_id, test.id);
  assert.ok(await verifySignature(again.headers['x-sweatstack-signature'] as string, again.body, subscriber.secret));
});

page("refuses to redeliver for another owner's application or an event the application was never sent", async ({ stack, receiver }) => {
  const subscriber = await subscribe(stack, [receiver.url]);
  const stranger = await subscribe(stack, [receiver.url]);
  await jsonClient(stack, stranger.token).post('/api/v1/tests/', { title: null, sport: 'cycling', start: '2024-04-01T09:00:00+02:00', end: null, results: null, tags: null });
  const deadline = Date.now() + 10_000;
  while ((await stack.store.event_deliveries.count({ application_id: stranger.appId })) === 0 && Date.now() < deadline);
  const strangerEvent = (await stack.store.events.find({ user_id: stranger.userId }))[0]!;
  const session = await ownerOf(stack, subscriber.appId);
  for (const fields of [
    { application_id: stranger.appId, event_id: strangerEvent.id, endpoint: receiver.url },
    { application_id: subscriber.appId, event_id: strangerEvent.id, endpoint: receiver.url },
  ]) {
    const response = await fetch(`${stack.baseUrl}/account/webhooks/redeliver`, {
      method: 'POST', redirect: 'manual', headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: form({ ...fields, csrf: session.csrf }),
    });
    assert.is(response.status, 404);
  }
});

page('asks for a sign-in first, and the account page links to it', async ({ stack, receiver }) => {
  const response = await fetch(`${stack.baseUrl}/account/webhooks`, { redirect: 'manual' });
  assert.is(response.status, 303);
  assert.is(response.headers.get('location'), '/signin');
  const subscriber = await subscribe(stack, [receiver.url]);
  const session = await ownerOf(stack, subscriber.appId);
  const account = await (await fetch(`${stack.baseUrl}/account`, { headers: { cookie: session.cookie } })).text();
  assert.ok(account.includes('href="/account/webhooks"'));
});

page.run();
