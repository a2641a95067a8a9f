/**
 * The gateway's shared HTTP edge, as a hostile client meets it on the real stack:
 *
 * - A refused body must not stall the client's next request (middleware/close-unread-requests.ts): an
 *   unread remainder of at most 1 MiB is read and discarded, so the connection stays usable; a larger or
 *   chunked one is answered with `Connection: close`, so a keep-alive client (Node's fetch, like every
 *   pooled client) opens a fresh connection for its next request.
 * - gaps.md (Pages, safety rules): the same session cookie or the same `token` cookie sent twice is a
 *   signed-out request (auth/credential-cookies.ts), on the pages and on the API alike.
 */
import { deflateSync } from 'node:zlib';
import * as assert from 'uvu/assert';
import { suite } from '../support/uvu.js';
import { startStack, type TestStack } from '../support/stack.js';
import { sessionFor } from '../support/sessions.js';
import { makeApp, pkcePair } from '../support/oauth.js';
import { createUser } from '../../gateway/services/accounts.js';

const edge = suite<{ stack: TestStack; token: string }>('http edge');

edge.before(async (context) => {
  context.stack = await startStack();
  context.token = (await context.stack.userWithToken(['sharing:read'])).token;
});
edge.after(async (context) => {
  await context.stack.close();
});

/** A guard against a hang, not a measure of speed: a stalled request fails the test instead of blocking the run. */
const HANG_GUARD_MS = 4000;

async function send(url: string, init: RequestInit = {}): Promise<{ status: number; connection: string | null; body: string }> {
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(HANG_GUARD_MS) });
  return { status: response.status, connection: response.headers.get('connection'), body: await response.text() };
}

/** Refusal, then two more requests on the same keep-alive client, each answered. */
async function refusedThenServed(stack: TestStack, path: string, init: RequestInit, expected: number, connection: 'keep-alive' | 'close'): Promise<void> {
  const refused = await send(`${stack.baseUrl}${path}`, init);
  assert.is(refused.status, expected, refused.body);
  assert.is(refused.connection, connection, `${path} ${expected}: ${connection === 'close' ? 'closes its connection' : 'drains the rest and keeps the connection'}`);
  for (const attempt of [1, 2]) {
    const next = await send(`${stack.baseUrl}/healthz`);
    assert.is(next.status, 200, `request ${attempt} after the refusal`);
  }
}

const bomb = deflateSync(Buffer.alloc(200 * 1024 * 1024, 0x20)); // ~200 KB that inflates to 200 MB

edge('a deflate bomb refused at its inflated limit leaves the next two requests unstalled (its 200 KB drained)', async ({ stack, token }) => {
  await refusedThenServed(stack, '/api/v1/oauth/delegated-token', {
    method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-encoding': 'deflate' }, body: bomb,
  }, 413, 'keep-alive');
});

edge('a chunked JSON body over the limit, an unsupported content encoding and an oversized token form all close their connection', async ({ stack, token }) => {
  const big = Buffer.alloc(3 * 1024 * 1024, 0x20);
  const chunked = new ReadableStream({
    start(controller) {
      for (let at = 0; at < big.length; at += 256 * 1024) controller.enqueue(big.subarray(at, at + 256 * 1024));
      controller.close();
    },
  });
  await refusedThenServed(stack, '/api/v1/oauth/delegated-token', {
    method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: chunked, duplex: 'half',
  } as RequestInit, 413, 'close');
  await refusedThenServed(stack, '/api/v1/oauth/delegated-token', {
    method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-encoding': 'compress' }, body: big,
  }, 415, 'close');
  await refusedThenServed(stack, '/api/v1/oauth/token', {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: big,
  }, 413, 'close');
});

edge('a body refused before it is read (no token) is drained when small and closes its connection when large', async ({ stack }) => {
  await refusedThenServed(stack, '/api/v1/oauth/delegated-token', {
    method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'deflate' }, body: bomb,
  }, 401, 'keep-alive');
  await refusedThenServed(stack, '/api/v1/activities/upload', {
    method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=x' }, body: Buffer.alloc(4 * 1024 * 1024, 0x41),
  }, 401, 'close');
});

edge('a request read to the end keeps its connection', async ({ stack, token }) => {
  const answered = await send(`${stack.baseUrl}/api/v1/oauth/delegated-token`, {
    method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ sub: 'nobody' }),
  });
  assert.is(answered.status, 403);
  assert.is.not(answered.connection, 'close');
});

edge('the same session cookie twice is signed out on the account page, whichever comes first', async ({ stack }) => {
  const [ada, bob] = await Promise.all([1, 2].map((n) => createUser(stack.store, { email: `edge-${n}-${Date.now()}@example.com`, first_name: n === 1 ? 'Ada' : 'Bob' })));
  const [a, b] = await Promise.all([sessionFor(stack.store, ada!.id), sessionFor(stack.store, bob!.id)]);
  const page = (cookie: string) => fetch(`${stack.baseUrl}/account`, { headers: { cookie }, redirect: 'manual' });
  assert.is((await page(a!.cookie)).status, 200, 'one cookie: signed in');
  for (const cookie of [`${b!.cookie}; ${a!.cookie}`, `${a!.cookie}; ${b!.cookie}`, `${a!.cookie}; ${a!.cookie}`, `${a!.cookie}; other=1; ${b!.cookie}`]) {
    const response = await page(cookie);
    assert.is(response.status, 303, cookie);
    assert.is(new URL(response.headers.get('location')!, stack.baseUrl).pathname, '/signin');
  }
});

edge('the same session cookie twice is signed out at authorization: the sign-in screen, not consent', async ({ stack }) => {
  // A private app: its owner may connect it.
  const { app, owner } = await makeApp(stack);
  const [a, b] = await Promise.all([sessionFor(stack.store, owner.id), sessionFor(stack.store, owner.id)]);
  const { challenge } = pkcePair();
  const query = new URLSearchParams({
    client_id: app.id, redirect_uri: app.redirect_uris[0]!, response_type: 'code', scope: 'activities:read', state: 's', code_challenge: challenge, code_challenge_method: 'S256',
  });
  const authorize = (cookie: string) => fetch(`${stack.baseUrl}/oauth/authorize?${query}`, { headers: { cookie }, redirect: 'manual' });
  const single = await authorize(a!.cookie);
  assert.is(single.status, 200, 'one cookie: the consent screen for this user');
  assert.match(await single.text(), 'Allow');
  for (const cookie of [`${a!.cookie}; ${b!.cookie}`, `${b!.cookie}; ${a!.cookie}`]) {
    const duplicated = await authorize(cookie);
    assert.is(duplicated.status, 303, cookie);
    assert.match(duplicated.headers.get('location')!, /^\/signin\?interaction=/);
  }
});

edge('the same token cookie twice is a signed-out API request', async ({ stack }) => {
  const first = await stack.userWithToken(['sharing:read']);
  const second = await stack.userWithToken(['sharing:read']);
  const users = (cookie: string) => fetch(`${stack.baseUrl}/api/v1/users/`, { headers: { cookie } });
  assert.is((await users(`token=${first.token}`)).status, 200, 'one token cookie: signed in');
  assert.is((await users(`token=${first.token}; token=${second.token}`)).status, 401);
  assert.is((await users(`token=${first.token}; token=${first.token}`)).status, 401);
});

edge.run();
