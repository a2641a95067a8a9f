/**
 * CORS on the real stack (issue 16 item 1, AUTH.md "Pages"): the API and the token endpoint answer the
 * registered redirect-URI origins, the page origins and CORS_ALLOWED_ORIGINS, never with credentials; any
 * other origin gets no CORS headers and the same status it would get without them; the HTML pages never
 * send CORS headers. The stack uses the wildcard pages form so each page has an origin of its own.
 */
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { okJson } from '../support/json-api.js';
import { createApplication } from '../../gateway/services/accounts.js';
import { loadGatewayConfig } from '../../gateway/config.js';
import { ConfigError } from '../../domain/config-error.js';

const APP_ORIGIN = 'https://cadence.example.com';
const EXTRA_ORIGIN = 'https://dashboard.example.org';
const STRANGER = 'https://evil.example.net';

let stack: TestStack;
let owner: { userId: string; token: string };

test.before(async () => {
  stack = await startStack({ PAGES_BASE: 'https://{slug}.pages.example.test', CORS_ALLOWED_ORIGINS: `${EXTRA_ORIGIN}, http://127.0.0.1:9` });
  owner = await stack.userWithToken(['activities:read']);
  await createApplication(stack.store, owner.userId, { name: 'Cadence', redirect_uris: [`${APP_ORIGIN}/callback`, 'http://localhost/callback', 'com.cadence:/cb'] });
});
test.after(async () => {
  await stack?.close();
});

function preflight(urlPath: string, origin: string, method = 'POST'): Promise<Response> {
  return fetch(`${stack.baseUrl}${urlPath}`, {
    method: 'OPTIONS', headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'authorization, content-type' },
  });
}

function assertNoCors(response: Response, where: string): void {
  for (const [name] of response.headers) assert.not.ok(name.startsWith('access-control-'), `${where}: ${name}`);
}

async function allowedAfter(origin: string, timeoutMs = 5_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if ((await preflight('/api/v1/activities/', origin, 'GET')).headers.get('access-control-allow-origin') === origin) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('answers a preflight from a registered redirect-URI origin on the API, both token paths and the discovery documents, cached for 600 s, without credentials', async () => {
  for (const urlPath of ['/api/v1/activities/', '/api/v1/oauth/token', '/oauth/token', '/api/v1/oauth/userinfo', '/.well-known/openid-configuration', '/.well-known/jwks.json']) {
    const response = await preflight(urlPath, APP_ORIGIN);
    assert.is(response.status, 204, urlPath);
    assert.is(response.headers.get('access-control-allow-origin'), APP_ORIGIN, urlPath);
    assert.is(response.headers.get('access-control-max-age'), '600', urlPath);
    const allowed = response.headers.get('access-control-allow-headers') ?? '';
    for (const header of ['authorization', 'content-type', 'refreshed-token']) assert.match(allowed, header, urlPath);
    assert.match(response.headers.get('access-control-allow-methods') ?? '', 'POST');
    assert.is(response.headers.get('access-control-allow-credentials'), null, urlPath);
    assert.match(response.headers.get('vary') ?? '', /origin/i);
  }
});

test('lets an allowed origin read answers and errors of the API, with the headers the API uses exposed', async () => {
  const answered = await fetch(`${stack.baseUrl}/api/v1/activities/`, { headers: { origin: APP_ORIGIN, authorization: `Bearer ${owner.token}` } });
  assert.is(answered.status, 200);
  assert.is(answered.headers.get('access-control-allow-origin'), APP_ORIGIN);
  const exposed = (answered.headers.get('access-control-expose-headers') ?? '').toLowerCase();
  for (const header of ['threshold-algorithm', 'retry-after', 'etag', 'www-authenticate']) assert.match(exposed, header);
  assert.is(answered.headers.get('access-control-allow-credentials'), null);

  const refused = await fetch(`${stack.baseUrl}/api/v1/activities/`, { headers: { origin: APP_ORIGIN } });
  assert.is(refused.status, 401);
  assert.is(refused.headers.get('access-control-allow-origin'), APP_ORIGIN, 'a 401 is readable, so the app can tell it must sign in again');
  const token = await fetch(`${stack.baseUrl}/oauth/token`, {
    method: 'POST', headers: { origin: APP_ORIGIN, 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=authorization_code&code=nope',
  });
  assert.is(token.status, 401); // no client_id: invalid_client, and the page can read why
  assert.is(token.headers.get('access-control-allow-origin'), APP_ORIGIN);
});

test('admits a loopback redirect URI\'s host on any port and CORS_ALLOWED_ORIGINS exactly, never custom schemes', async () => {
  for (const origin of ['http://localhost:5173', 'http://localhost', EXTRA_ORIGIN, 'http://127.0.0.1:9']) {
    assert.is((await preflight('/api/v1/activities/', origin)).headers.get('access-control-allow-origin'), origin, origin);
  }
  for (const origin of ['https://localhost:5173', 'http://127.0.0.1:5173', 'https://dashboard.example.org:8443', 'com.cadence:', 'null']) {
    assertNoCors(await preflight('/api/v1/activities/', origin), origin);
  }
});

test('gives an unknown origin no CORS headers and the status it would get without an Origin', async () => {
  const asked = await preflight('/api/v1/activities/', STRANGER, 'GET');
  assert.ok(asked.status < 400, String(asked.status));
  assertNoCors(asked, 'preflight');
  const plain = await fetch(`${stack.baseUrl}/api/v1/activities/`, { headers: { authorization: `Bearer ${owner.token}` } });
  const foreign = await fetch(`${stack.baseUrl}/api/v1/activities/`, { headers: { origin: STRANGER, authorization: `Bearer ${owner.token}` } });
  assert.is(foreign.status, plain.status);
  assertNoCors(foreign, 'request');
  assertNoCors(await fetch(`${stack.baseUrl}/api/v1/activities/`, { headers: { authorization: `Bearer ${owner.token}` } }), 'no Origin');
});

test('never sends CORS headers on the HTML pages, even to an allowed origin', async () => {
  for (const urlPath of ['/signin', '/account', '/account/applications', '/oauth/authorize?client_id=x', '/oauth/interaction/x', '/portal/manage-integrations']) {
    assertNoCors(await fetch(`${stack.baseUrl}${urlPath}`, { headers: { origin: APP_ORIGIN }, redirect: 'manual' }), urlPath);
    assertNoCors(await preflight(urlPath, APP_ORIGIN), `preflight ${urlPath}`);
  }
});

test('admits each live page\'s own origin in the wildcard form, and no other subdomain', async () => {
  const app = await createApplication(stack.store, owner.userId, { name: 'Paged' });
  const page = await okJson(stack, 'POST', '/api/v1/pages', owner.token, { application_id: app.id, slug: 'cadence' });
  assert.is(page.url, 'https://cadence.pages.example.test/');
  assert.ok(await allowedAfter('https://cadence.pages.example.test'));
  assertNoCors(await preflight('/api/v1/activities/', 'https://other.pages.example.test'), 'a subdomain without a page');
});

test('admits a newly registered application\'s origin without waiting for the cache to expire', async () => {
  const origin = 'https://late-arrival.example.com';
  assertNoCors(await preflight('/api/v1/activities/', origin), 'before');
  await createApplication(stack.store, owner.userId, { name: 'Late', redirect_uris: [`${origin}/cb`] });
  assert.ok(await allowedAfter(origin), 'allowed once registered');
});

test('reads CORS_ALLOWED_ORIGINS as exact origins, `*` alone, and refuses paths and mixtures', () => {
  assert.equal(loadGatewayConfig({ CORS_ALLOWED_ORIGINS: 'https://a.example, http://localhost:5173/' }).corsAllowedOrigins, ['https://a.example', 'http://localhost:5173']);
  assert.equal(loadGatewayConfig({ CORS_ALLOWED_ORIGINS: '*' }).corsAllowedOrigins, ['*']);
  assert.equal(loadGatewayConfig({}).corsAllowedOrigins, []);
  for (const bad of ['https://a.example/app', '*, https://a.example', 'ftp://a.example', 'a.example']) {
    try {
      loadGatewayConfig({ CORS_ALLOWED_ORIGINS: bad });
      assert.unreachable(bad);
    } catch (error) {
      assert.instance(error, ConfigError, bad);
      assert.match((error as ConfigError).problems.join('\n'), 'CORS_ALLOWED_ORIGINS');
    }
  }
});

test.run();
