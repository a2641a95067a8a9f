/**
 * AUTH.md "Brute force and leakage" and the resource-server rules that span every route: entropy and
 * uniqueness of every credential the provider hands out, every scope boundary of the route table, and
 * cookie authentication across origins. (Logs are checked in test/interop/openid-client.test.ts, which
 * runs the service with its real logger.)
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { decodeJwt } from 'jose';
import { startStack, type TestStack } from '../support/stack.js';
import { codeFor, makeApp, makeUser } from '../support/oauth.js';
import { issueRefreshToken } from '../../gateway/auth/refresh-tokens.js';
import { createMagicLink } from '../../gateway/auth/magic-links.js';
import { addClientSecret } from '../../gateway/services/accounts.js';
import { SCOPES } from '../../gateway/auth/scopes.js';

const test = suite<{ stack: TestStack }>('brute force and leakage');

test.before(async (context) => {
  context.stack = await startStack();
});
test.after(async (context) => {
  await context.stack.close();
});

const ROUNDS = 200;

/** The random part of a prefixed secret (`tac_…`), decoded. */
function randomPart(secret: string): Buffer {
  return Buffer.from(secret.slice(secret.indexOf('_') + 1), 'base64url');
}

function assertStrong(values: string[], label: string): void {
  assert.is(new Set(values).size, values.length, `${label}: all different`);
  for (const value of values) assert.is(randomPart(value).length, 32, `${label}: 256 random bits`);
  // Not a counter or a timestamp: the first bytes are spread over (almost) all values.
  assert.ok(new Set(values.map((value) => randomPart(value).subarray(0, 4).toString('hex'))).size > values.length * 0.95, `${label}: no shared prefix`);
}

test('hands out authorization codes, refresh tokens, client secrets and sign-in links of 256 random bits, never twice', async ({ stack }) => {
  const { app } = await makeApp(stack);
  const codes: string[] = [];
  const refresh: string[] = [];
  const secrets: string[] = [];
  const links: string[] = [];
  const user = await makeUser(stack);
  const { grantId } = await codeFor(stack, { app, userId: user.id, scopes: ['activities:read'] });
  for (let round = 0; round < ROUNDS; round++) {
    codes.push((await codeFor(stack, { app, userId: user.id, scopes: ['activities:read'] })).code);
    refresh.push(await issueRefreshToken(stack.store, { userId: user.id, applicationId: app.id, grantId, clientSecretId: null, scopes: ['activities:read'], authTime: Date.now() }));
    secrets.push((await addClientSecret(stack.store, app, null)).secret);
    links.push((await createMagicLink(stack.store, user, null)).token);
  }
  assertStrong(codes, 'codes');
  assertStrong(refresh, 'refresh tokens');
  assertStrong(secrets, 'client secrets');
  assert.is(new Set(links).size, ROUNDS, 'sign-in links: all different');
  for (const link of links) assert.is(Buffer.from(link, 'base64url').length, 32, 'sign-in links: 256 random bits');
  // Only hashes are stored.
  const stored = JSON.stringify([
    await stack.store.authorization_codes.find({ application_id: app.id }),
    await stack.store.refresh_tokens.find({ application_id: app.id }),
    await stack.store.client_secrets.find({ application_id: app.id }),
    await stack.store.magic_links.find({ user_id: user.id }),
  ]);
  for (const value of [...codes, ...refresh, ...links]) assert.not.ok(stored.includes(value), 'never stored in clear');
  for (const secret of secrets) assert.not.ok(stored.includes(secret.slice(8)), 'a secret is stored as its hash and an 8-character hint');
});

test('gives every access token its own jti', async ({ stack }) => {
  const ids = new Set<string>();
  const { userId } = await stack.userWithToken([]);
  for (let round = 0; round < ROUNDS; round++) {
    const { token } = await stack.userWithToken([], { userId });
    ids.add(String(decodeJwt(token).jti));
  }
  assert.is(ids.size, ROUNDS);
});

interface Operation { security?: { bearer?: string[] }[] }

test('refuses every route with a scope to a token holding every scope but that one, naming it', async ({ stack }) => {
  const document = (await (await stack.get('/openapi.json')).json()) as { paths: Record<string, Record<string, Operation>> };
  const { userId } = await stack.userWithToken([]);
  let checked = 0;
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const scope = operation.security?.[0]?.bearer?.[0];
      if (!scope) continue;
      const { token } = await stack.userWithToken(SCOPES.filter((other) => other !== scope), { userId });
      const url = path.replace(/\{[^}]+\}/g, 'x');
      const response = await fetch(`${stack.baseUrl}${url}`, {
        method: method.toUpperCase(),
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: method === 'get' || method === 'delete' ? undefined : '{}',
      });
      assert.is(response.status, 403, `${method.toUpperCase()} ${path} without ${scope}`);
      assert.match(((await response.json()) as { detail: string }).detail, scope);
      assert.match(response.headers.get('www-authenticate') ?? '', `scope="${scope}"`);
      checked++;
    }
  }
  assert.ok(checked >= 10, `${checked} scoped routes checked`);
});

test('accepts the token cookie on a state-changing request only from the same origin', async ({ stack }) => {
  const { token } = await stack.userWithToken(['sharing:read']);
  const post = (headers: Record<string, string>) => fetch(`${stack.baseUrl}/api/v1/oauth/delegated-token`, {
    method: 'POST', headers: { cookie: `token=${token}`, 'content-type': 'application/json', ...headers }, body: JSON.stringify({ sub: 'nobody' }),
  });
  for (const origin of ['https://evil.example.com', 'null', `${stack.baseUrl}.evil.example.com`]) {
    assert.is((await post({ origin })).status, 403, origin);
  }
  assert.is((await post({})).status, 403, 'no Origin at all');
  // From the same origin the request reaches the endpoint (which then refuses an unknown subject by itself).
  const same = await post({ origin: stack.baseUrl });
  assert.is(same.status, 403);
  assert.not.match(((await same.json()) as { detail: string }).detail, 'same-origin');
  // A bearer header is not a cookie: no Origin needed.
  const bearer = await fetch(`${stack.baseUrl}/api/v1/oauth/delegated-token`, {
    method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ sub: 'nobody' }),
  });
  assert.not.match(((await bearer.json()) as { detail: string }).detail, 'same-origin');
});

test.run();
