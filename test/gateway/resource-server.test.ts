/** AUTH.md "Resource server": every way a forged, stale or misplaced token must be refused. */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { createHmac } from 'node:crypto';
import { SignJWT, generateKeyPair, importJWK, type JWK, type JWTPayload } from 'jose';
import { startStack, type TestStack } from '../support/stack.js';
import { createApplication } from '../../gateway/services/accounts.js';

const rs = suite<{ stack: TestStack; ourKey: { kid: string; jwk: JWK; publicJwk: JWK } }>('resource server');

rs.before(async (context) => {
  context.stack = await startStack();
  const record = (await context.stack.store.signing_keys.findOne({}))!;
  context.ourKey = { kid: record.kid, jwk: record.private_jwk as JWK, publicJwk: record.public_jwk as JWK };
});
rs.after(async (context) => {
  await context.stack.close();
});

function claims(stack: TestStack, userId: string, extra: JWTPayload = {}): JWTPayload {
  const now = Math.floor(Date.now() / 1000);
  return { iss: stack.baseUrl, sub: userId, iat: now, exp: now + 900, jti: 'test-jti', scope: 'activities:read', ...extra };
}

async function signWithOurKey(context: { ourKey: { kid: string; jwk: JWK } }, payload: JWTPayload, header: Record<string, unknown> = {}): Promise<string> {
  const key = await importJWK(context.ourKey.jwk, 'RS256');
  return new SignJWT(payload).setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: context.ourKey.kid, ...header }).sign(key);
}

function b64(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

async function expect401(stack: TestStack, token: string, message?: string): Promise<void> {
  const response = await stack.get('/api/v1/activities/', token);
  assert.is(response.status, 401, message);
  assert.match(response.headers.get('www-authenticate') ?? '', /^Bearer/);
  const body = (await response.json()) as { detail: string };
  assert.type(body.detail, 'string');
  assert.not.match(body.detail, token.slice(0, 20), 'the error body never echoes the token');
}

rs('accepts a token signed with our key for an existing user', async (context) => {
  const { userId } = await context.stack.userWithToken([]);
  const response = await context.stack.get('/api/v1/activities/', await signWithOurKey(context, claims(context.stack, userId)));
  assert.is(response.status, 200);
});

rs('refuses an expired token', async (context) => {
  const { userId } = await context.stack.userWithToken([]);
  const past = Math.floor(Date.now() / 1000) - 3600;
  await expect401(context.stack, await signWithOurKey(context, claims(context.stack, userId, { iat: past, exp: past + 900 })));
});

rs('refuses alg none', async (context) => {
  const { userId } = await context.stack.userWithToken([]);
  const token = `${b64({ alg: 'none', typ: 'at+jwt', kid: context.ourKey.kid })}.${b64(claims(context.stack, userId))}.`;
  await expect401(context.stack, token);
});

rs('refuses HS256 keyed with our public key', async (context) => {
  const { userId } = await context.stack.userWithToken([]);
  const signingInput = `${b64({ alg: 'HS256', typ: 'at+jwt', kid: context.ourKey.kid })}.${b64(claims(context.stack, userId))}`;
  const secret = JSON.stringify(context.ourKey.publicJwk);
  const signature = createHmac('sha256', secret).update(signingInput).digest('base64url');
  await expect401(context.stack, `${signingInput}.${signature}`);
});

rs('refuses a foreign key that reuses our kid, and an unknown kid', async (context) => {
  const { userId } = await context.stack.userWithToken([]);
  const { privateKey } = await generateKeyPair('RS256');
  const reused = await new SignJWT(claims(context.stack, userId)).setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: context.ourKey.kid }).sign(privateKey);
  await expect401(context.stack, reused);
  const unknown = await new SignJWT(claims(context.stack, userId)).setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: 'unknown-kid' }).sign(privateKey);
  await expect401(context.stack, unknown);
});

rs('refuses jku, x5u and jwk headers even on a token we signed', async (context) => {
  const { userId } = await context.stack.userWithToken([]);
  for (const header of [{ jku: 'https://evil.example/jwks' }, { x5u: 'https://evil.example/cert' }, { jwk: context.ourKey.publicJwk }]) {
    await expect401(context.stack, await signWithOurKey(context, claims(context.stack, userId), header), JSON.stringify(Object.keys(header)));
  }
});

rs('refuses a token of another type (an ID token is not an access token)', async (context) => {
  const { userId } = await context.stack.userWithToken([]);
  await expect401(context.stack, await signWithOurKey(context, claims(context.stack, userId), { typ: 'JWT' }));
});

rs('refuses a token from another issuer', async (context) => {
  const { userId } = await context.stack.userWithToken([]);
  await expect401(context.stack, await signWithOurKey(context, claims(context.stack, userId, { iss: 'https://evil.example' })));
});

rs('refuses a tampered payload', async (context) => {
  const { token } = await context.stack.userWithToken(['wellness:read']);
  const [header, payload, signature] = token.split('.');
  const altered = { ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), scope: 'activities:read' };
  await expect401(context.stack, `${header}.${b64(altered)}.${signature}`);
});

rs('never reads a token from the query string', async (context) => {
  const { token } = await context.stack.userWithToken(['activities:read']);
  const response = await context.stack.get(`/api/v1/activities/?access_token=${token}`);
  assert.is(response.status, 401);
});

rs('accepts the token cookie on a GET and ignores the refreshed-token header', async (context) => {
  const { token } = await context.stack.userWithToken(['activities:read']);
  const response = await context.stack.get('/api/v1/activities/', undefined, { cookie: `token=${token}`, 'refreshed-token': 'anything' });
  assert.is(response.status, 200);
});

rs('refuses a token whose user was deleted', async (context) => {
  const { userId, token } = await context.stack.userWithToken(['activities:read']);
  await context.stack.store.deleteUser(userId);
  await expect401(context.stack, token);
});

rs('ends app tokens at once when the grant is revoked, and checks the audience', async (context) => {
  const owner = await context.stack.userWithToken([]);
  const app = await createApplication(context.stack.store, owner.userId, { name: 'Test app' });
  const { userId, token } = await context.stack.userWithToken(['activities:read'], { appId: app.id });
  assert.is((await context.stack.get('/api/v1/activities/', token)).status, 200);
  const mismatched = await signWithOurKey(context, claims(context.stack, userId, { client_id: app.id, aud: 'another-app' }));
  await expect401(context.stack, mismatched);
  await context.stack.store.grants.deleteMany({ user_id: userId, application_id: app.id });
  await expect401(context.stack, token);
});

rs('refuses an app token that does not name its grant (claim gid), or names a grant that is not its user\'s for its app, with invalid_token', async (context) => {
  const owner = await context.stack.userWithToken([]);
  const app = await createApplication(context.stack.store, owner.userId, { name: 'Test app' });
  const other = await createApplication(context.stack.store, owner.userId, { name: 'Other app' });
  const { userId } = await context.stack.userWithToken(['activities:read'], { appId: app.id });
  await context.stack.userWithToken(['activities:read'], { appId: other.id, userId });
  const { userId: someoneElse } = await context.stack.userWithToken(['activities:read'], { appId: app.id });
  const grantOf = async (user: string, application: string) => (await context.stack.store.grants.findOne({ user_id: user, application_id: application }))!.id;
  const appClaims = claims(context.stack, userId, { client_id: app.id, aud: app.id });
  const named = await signWithOurKey(context, { ...appClaims, gid: await grantOf(userId, app.id) });
  assert.is((await context.stack.get('/api/v1/activities/', named)).status, 200, 'naming its grant');
  const refused: [string, JWTPayload][] = [
    ['without gid', appClaims],
    ['the grant of another app', { ...appClaims, gid: await grantOf(userId, other.id) }],
    ['another user\'s grant', { ...appClaims, gid: await grantOf(someoneElse, app.id) }],
    ['a personal token naming a grant', claims(context.stack, userId, { gid: await grantOf(userId, app.id) })],
  ];
  for (const [name, payload] of refused) {
    const response = await context.stack.get('/api/v1/activities/', await signWithOurKey(context, payload));
    assert.is(response.status, 401, name);
    assert.match(response.headers.get('www-authenticate') ?? '', 'error="invalid_token"', name);
  }
});

rs('answers a malformed Authorization header with 401', async (context) => {
  const response = await context.stack.get('/api/v1/activities/', undefined, { authorization: 'Basic abc' });
  assert.is(response.status, 401);
});

rs.run();
