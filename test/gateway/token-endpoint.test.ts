/**
 * AUTH.md "Token endpoint" (and "Brute force and leakage" as far as the token endpoint goes), item by
 * item: malformed requests, unknown grants, code reuse, expiry, substitution, PKCE, client
 * authentication, enumeration resistance, body size, the refresh issuance matrix, refresh after
 * revocation, scope narrowing, rate limiting. Codes come straight from issueCode, as after consent.
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { decodeJwt } from 'jose';
import { startStack, type TestStack } from '../support/stack.js';
import { runCli } from '../support/processes.js';
import { basicAuth, codeFor, makeApp, makeUser, pkcePair, tokenRequest, type TestApp } from '../support/oauth.js';
import { CODE_TTL_MS, redeemCode } from '../../gateway/auth/authorization-codes.js';
import { addClientSecret } from '../../gateway/services/accounts.js';
import { deleteClientSecret, revokeGrant } from '../../gateway/services/grants.js';

type Body = Record<string, unknown>;

const token = suite<{ stack: TestStack }>('token endpoint');

token.before(async (context) => {
  context.stack = await startStack();
});
token.after(async (context) => {
  await context.stack.close();
});

/** RFC 6749 §5.1: "Cache-Control: no-store" and "Pragma: no-cache" on every answer. */
function assertNoStore(response: Response): void {
  assert.is(response.headers.get('cache-control'), 'no-store');
  assert.is(response.headers.get('pragma'), 'no-cache');
}

async function expectError(response: Response, status: number, error: string, message?: string): Promise<Body> {
  const text = await response.text();
  assert.is(response.status, status, `${message ?? ''} ${text}`);
  assertNoStore(response);
  assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
  const body = JSON.parse(text) as Body;
  assert.is(body.error, error, `${message ?? ''} ${text}`);
  assert.type(body.error_description, 'string');
  assert.equal(Object.keys(body).sort(), ['error', 'error_description']);
  return body;
}

async function expectTokens(response: Response, message?: string): Promise<Body> {
  const text = await response.text();
  assert.is(response.status, 200, `${message ?? ''} ${text}`);
  assertNoStore(response);
  return JSON.parse(text) as Body;
}

/** A code exchange with the secret in the body (or none for a PKCE app), plus `extra` fields. */
function exchange(stack: TestStack, client: TestApp, code: string, extra: Record<string, string> = {}): Promise<Response> {
  return tokenRequest(stack, {
    grant_type: 'authorization_code', code, client_id: client.app.id, ...(client.secret && { client_secret: client.secret }), ...extra,
  });
}

function refresh(stack: TestStack, client: TestApp, refreshToken: string, extra: Record<string, string> = {}): Promise<Response> {
  return tokenRequest(stack, {
    grant_type: 'refresh_token', refresh_token: refreshToken, client_id: client.app.id, ...(client.secret && { client_secret: client.secret }), ...extra,
  });
}

// ---- Malformed requests and unknown grants ----

token('refuses a request without grant_type with invalid_request, no-store and no-cache', async ({ stack }) => {
  const client = await makeApp(stack);
  await expectError(await tokenRequest(stack, { client_id: client.app.id, client_secret: client.secret! }), 400, 'invalid_request');
  await expectError(await tokenRequest(stack, ''), 400, 'invalid_request', 'empty body');
});

token('refuses a JSON body and a body of another media type with invalid_request', async ({ stack }) => {
  const client = await makeApp(stack);
  const { code } = await codeFor(stack, { app: client.app, scopes: ['activities:read'] });
  const fields = { grant_type: 'authorization_code', code, client_id: client.app.id, client_secret: client.secret! };
  await expectError(await tokenRequest(stack, JSON.stringify(fields), { 'content-type': 'application/json' }), 400, 'invalid_request', 'json');
  await expectError(await tokenRequest(stack, new URLSearchParams(fields).toString(), { 'content-type': 'text/plain' }), 400, 'invalid_request', 'text/plain');
  // The code was not spent by the refused requests.
  await expectTokens(await exchange(stack, client, code));
});

token('refuses a repeated parameter with invalid_request', async ({ stack }) => {
  const client = await makeApp(stack);
  const { code } = await codeFor(stack, { app: client.app, scopes: ['activities:read'] });
  const base: [string, string][] = [['grant_type', 'authorization_code'], ['code', code], ['client_id', client.app.id], ['client_secret', client.secret!]];
  for (const repeated of [['code', code], ['grant_type', 'authorization_code'], ['client_id', client.app.id], ['scope', 'openid']] as [string, string][]) {
    const form = [...base, repeated, ...(repeated[0] === 'scope' ? [repeated] : [])];
    await expectError(await tokenRequest(stack, form), 400, 'invalid_request', repeated[0]);
  }
  await expectTokens(await exchange(stack, client, code));
});

token('refuses a body over 16 KB with 413, and one over the global 1 MB limit', async ({ stack }) => {
  const client = await makeApp(stack);
  const { code } = await codeFor(stack, { app: client.app, scopes: ['activities:read'] });
  const padded = { grant_type: 'authorization_code', code, client_id: client.app.id, client_secret: client.secret!, padding: 'x'.repeat(17 * 1024) };
  const body = await expectError(await tokenRequest(stack, padded), 413, 'invalid_request');
  assert.match(String(body.error_description), /16384 bytes/);
  const huge = await tokenRequest(stack, { ...padded, padding: 'x'.repeat(2 * 1024 * 1024) });
  assert.is(huge.status, 413);
  // Just under the limit is fine.
  await expectTokens(await tokenRequest(stack, { ...padded, padding: 'x'.repeat(15 * 1024) }));
});

token('answers an unknown grant type with unsupported_grant_type', async ({ stack }) => {
  const client = await makeApp(stack);
  for (const grantType of ['password', 'client_credentials', 'implicit', 'urn:ietf:params:oauth:grant-type:device_code', 'AUTHORIZATION_CODE']) {
    await expectError(await tokenRequest(stack, { grant_type: grantType, client_id: client.app.id, client_secret: client.secret! }), 400, 'unsupported_grant_type', grantType);
  }
});

// ---- Codes ----

token('exchanges a code for tokens with the client secret in the body', async ({ stack }) => {
  const client = await makeApp(stack);
  const { code, userId } = await codeFor(stack, { app: client.app, scopes: ['activities:read', 'wellness:read'] });
  const body = await expectTokens(await exchange(stack, client, code));
  assert.equal(Object.keys(body).sort(), ['access_token', 'expires_in', 'refresh_token', 'scope', 'token_type']);
  assert.is(body.token_type, 'Bearer');
  assert.is(body.expires_in, 900);
  assert.is(body.scope, 'activities:read wellness:read');
  const claims = decodeJwt(String(body.access_token));
  assert.is(claims.sub, userId);
  assert.is(claims.aud, client.app.id);
  assert.is(claims.client_id, client.app.id);
  assert.is(claims.cs, client.secretRecord!.id);
  assert.is((await stack.get('/api/v1/activities/', String(body.access_token))).status, 200);
});

token('serves the alias POST /oauth/token with the same handler', async ({ stack }) => {
  const client = await makeApp(stack);
  const { code } = await codeFor(stack, { app: client.app, scopes: ['activities:read'] });
  const form = { grant_type: 'authorization_code', code, client_id: client.app.id, client_secret: client.secret! };
  const body = await expectTokens(await tokenRequest(stack, form, {}, { path: '/oauth/token' }));
  assert.is(body.token_type, 'Bearer');
  await expectError(await tokenRequest(stack, form, {}, { path: '/oauth/token' }), 400, 'invalid_grant', 'the alias shares the code store');
});

token('refuses a code used a second time', async ({ stack }) => {
  const client = await makeApp(stack);
  const { code } = await codeFor(stack, { app: client.app, scopes: ['activities:read'] });
  await expectTokens(await exchange(stack, client, code));
  await expectError(await exchange(stack, client, code), 400, 'invalid_grant');
});

/**
 * RFC 6749 §4.1.2: "If an authorization code is used more than once, the authorization server MUST deny
 * the request and SHOULD revoke (when possible) all tokens previously issued based on that
 * authorization code." Everything descending from the first exchange ends; the grant does not.
 */
token('a replayed code revokes the refresh and access tokens of its first exchange, and only those [code reuse]', async ({ stack }) => {
  const client = await makeApp(stack);
  const user = await makeUser(stack);
  const first = await codeFor(stack, { app: client.app, userId: user.id, scopes: ['activities:read'] });
  const issued = await expectTokens(await exchange(stack, client, first.code));
  const refreshed = await expectTokens(await refresh(stack, client, String(issued.refresh_token)));
  const principal = await stack.get('/api/v1/oauth/principal-token', String(issued.access_token));
  assert.is(principal.status, 200);
  const derived = String(((await principal.json()) as Body).access_token);
  // Another session of the same user and application.
  const other = await codeFor(stack, { app: client.app, userId: user.id, scopes: ['activities:read'] });
  const otherTokens = await expectTokens(await exchange(stack, client, other.code));
  for (const accessToken of [issued.access_token, refreshed.access_token, derived, otherTokens.access_token]) {
    assert.is((await stack.get('/api/v1/activities/', String(accessToken))).status, 200, 'live before the replay');
  }

  await expectError(await exchange(stack, client, first.code), 400, 'invalid_grant', 'the replay is denied');

  await expectError(await refresh(stack, client, String(issued.refresh_token)), 400, 'invalid_grant', 'its refresh token');
  for (const [name, accessToken] of [['issued', issued.access_token], ['refreshed', refreshed.access_token], ['principal-token', derived]] as const) {
    assert.is((await stack.get('/api/v1/activities/', String(accessToken))).status, 401, `${name} access token revoked`);
  }
  assert.ok(await stack.store.grants.get(first.grantId), 'the grant stays');
  assert.is((await stack.get('/api/v1/activities/', String(otherTokens.access_token))).status, 200, 'the other session keeps working');
  await expectTokens(await refresh(stack, client, String(otherTokens.refresh_token)), 'its refresh token too');
  const next = await codeFor(stack, { app: client.app, userId: user.id, scopes: ['activities:read'] });
  const fresh = await expectTokens(await exchange(stack, client, next.code), 'a new authorization works');
  assert.is((await stack.get('/api/v1/activities/', String(fresh.access_token))).status, 200);
});

token('a replayed PKCE code revokes the access token of its first exchange; a replay from another client counts too [code reuse]', async ({ stack }) => {
  const client = await makeApp(stack, { secret: false });
  const pkce = pkcePair();
  const { code } = await codeFor(stack, { app: client.app, scopes: ['activities:read', 'offline_access'], codeChallenge: pkce.challenge });
  const issued = await expectTokens(await exchange(stack, client, code, { code_verifier: pkce.verifier }));
  assert.type(decodeJwt(String(issued.access_token)).iid, 'string', 'the access token names its issuance');
  const stranger = await makeApp(stack);
  await expectError(await exchange(stack, stranger, code), 400, 'invalid_grant');
  assert.is((await stack.get('/api/v1/activities/', String(issued.access_token))).status, 401);
  await expectError(await refresh(stack, client, String(issued.refresh_token)), 400, 'invalid_grant');
});

token('redeems a code once even when ten requests race for it, and the nine replays revoke what it issued', async ({ stack }) => {
  const client = await makeApp(stack);
  const { code } = await codeFor(stack, { app: client.app, scopes: ['activities:read'] });
  const responses = await Promise.all(Array.from({ length: 10 }, () => exchange(stack, client, code)));
  const statuses = responses.map((response) => response.status);
  // One request wins the conditional write; the others are replays of a used code (RFC 6749 §4.1.2),
  // so the winner answers 200 only when its tokens were out before the first replay was seen.
  assert.ok(statuses.filter((status) => status === 200).length <= 1, statuses.join(','));
  assert.ok(statuses.filter((status) => status === 400).length >= 9, statuses.join(','));
  for (const response of responses.filter((candidate) => candidate.status === 400)) await expectError(response, 400, 'invalid_grant');
  assert.is((await stack.store.authorization_codes.find({ application_id: client.app.id })).filter((record) => record.consumed_at !== null).length, 1, 'redeemed once');
  assert.is(await stack.store.refresh_tokens.count({ application_id: client.app.id }), 0, 'no refresh token outlives the replays');
  const winner = responses.find((response) => response.status === 200);
  if (winner) {
    const body = await expectTokens(winner);
    assert.is((await stack.get('/api/v1/activities/', String(body.access_token))).status, 401, 'the access token is revoked');
    await expectError(await refresh(stack, client, String(body.refresh_token)), 400, 'invalid_grant');
  }
});

token('lets exactly one of ten concurrent redeemCode calls win, straight on the store', async ({ stack }) => {
  const client = await makeApp(stack);
  const { code } = await codeFor(stack, { app: client.app, scopes: ['activities:read'] });
  const outcomes = await Promise.all(Array.from({ length: 10 }, () => redeemCode(stack.store, code)));
  assert.is(outcomes.filter((outcome) => outcome !== null).length, 1);
  assert.is(await redeemCode(stack.store, code), null, 'and none after');
  assert.is(await redeemCode(stack.store, `${code}x`), null, 'unknown code');
});

token('refuses an expired code', async ({ stack }) => {
  const client = await makeApp(stack);
  const { code } = await codeFor(stack, { app: client.app, scopes: ['activities:read'], now: Date.now() - CODE_TTL_MS - 1000 });
  await expectError(await exchange(stack, client, code), 400, 'invalid_grant');
});

token('refuses a code of another application [substitution], without spending it', async ({ stack }) => {
  const victim = await makeApp(stack);
  const attacker = await makeApp(stack);
  const { code } = await codeFor(stack, { app: victim.app, scopes: ['activities:read'] });
  await expectError(await exchange(stack, attacker, code), 400, 'invalid_grant', 'confidential attacker');
  const publicAttacker = await makeApp(stack, { secret: false });
  await expectError(await exchange(stack, publicAttacker, code), 400, 'invalid_grant', 'public attacker');
  // The victim's PKCE code is no more use to another client.
  const pkce = pkcePair();
  const pkceCode = await codeFor(stack, { app: victim.app, scopes: ['activities:read'], codeChallenge: pkce.challenge });
  await expectError(await tokenRequest(stack, { grant_type: 'authorization_code', code: pkceCode.code, client_id: publicAttacker.app.id, code_verifier: pkce.verifier }), 400, 'invalid_grant', 'pkce');
  await expectTokens(await exchange(stack, victim, code), 'the rightful client still redeems it');
});

token('refuses a code whose grant was revoked before redemption', async ({ stack }) => {
  const client = await makeApp(stack);
  const { code, userId } = await codeFor(stack, { app: client.app, scopes: ['activities:read'] });
  assert.ok(await revokeGrant(stack.store, userId, client.app.id));
  await expectError(await exchange(stack, client, code), 400, 'invalid_grant');
  // Even when a new grant exists by the time the old code arrives.
  const second = await codeFor(stack, { app: client.app, userId, scopes: ['activities:read'] });
  await stack.store.grants.deleteMany({ id: second.grantId });
  await codeFor(stack, { app: client.app, userId, scopes: ['activities:read'] });
  await expectError(await exchange(stack, client, second.code), 400, 'invalid_grant', 'new grant');
});

token('refuses a redirect_uri at code exchange that differs from the authorization request\'s, even under the registered one', async ({ stack }) => {
  const client = await makeApp(stack, { redirectUris: ['https://app.example.com/callback'] });
  const withUri = await codeFor(stack, { app: client.app, scopes: ['activities:read'], redirectUri: 'https://app.example.com/callback/sub' });
  for (const other of ['https://app.example.com/callback', 'https://app.example.com/callback/sub/', 'https://app.example.com/callback/SUB', 'https://app.example.com/callback/sub?x=1']) {
    await expectError(await exchange(stack, client, withUri.code, { redirect_uri: other }), 400, 'invalid_grant', other);
  }
  await expectTokens(await exchange(stack, client, withUri.code, { redirect_uri: 'https://app.example.com/callback/sub' }), 'exact match');
});

/**
 * Deliberately not RFC 6749 §4.1.3 ("REQUIRED, if the redirect_uri parameter was included in the
 * authorization request"): gaps.md pins "`redirect_uri` is optional at code exchange (must match when
 * given)" as a [client] fact, because existing clients (the official Python client among them) omit it
 * and must keep working unchanged. Do not "fix" this by making redirect_uri required.
 */
token('accepts a code exchange without redirect_uri, for existing clients that omit it (gaps.md, pinned) — secret and PKCE flows alike', async ({ stack }) => {
  const client = await makeApp(stack);
  const confidential = await codeFor(stack, { app: client.app, scopes: ['activities:read'], redirectUri: 'https://app.example.com/callback/sub' });
  await expectTokens(await exchange(stack, client, confidential.code), 'secret flow, redirect_uri omitted');
  const publicApp = await makeApp(stack, { secret: false });
  const pkce = pkcePair();
  const pkceCode = await codeFor(stack, { app: publicApp.app, scopes: ['activities:read'], codeChallenge: pkce.challenge });
  await expectTokens(await exchange(stack, publicApp, pkceCode.code, { code_verifier: pkce.verifier }), 'PKCE flow, redirect_uri omitted');
});

// ---- PKCE ----

token('exchanges a PKCE code with its verifier and no secret', async ({ stack }) => {
  const client = await makeApp(stack, { secret: false });
  const pkce = pkcePair();
  const { code, userId } = await codeFor(stack, { app: client.app, scopes: ['activities:read'], codeChallenge: pkce.challenge });
  const body = await expectTokens(await exchange(stack, client, code, { code_verifier: pkce.verifier }));
  const claims = decodeJwt(String(body.access_token));
  assert.is(claims.sub, userId);
  assert.is(claims.cs, undefined, 'no secret behind a PKCE token');
});

token('refuses a PKCE code without its verifier with invalid_grant: the grant is what is wrong, and the code is not spent', async ({ stack }) => {
  const client = await makeApp(stack, { secret: false });
  const pkce = pkcePair();
  const { code } = await codeFor(stack, { app: client.app, scopes: ['activities:read'], codeChallenge: pkce.challenge });
  await expectError(await exchange(stack, client, code), 400, 'invalid_grant');
  await expectError(await exchange(stack, client, code, { code_verifier: '' }), 400, 'invalid_grant', 'empty verifier (RFC 6749 §3.2: as if omitted)');
  await expectTokens(await exchange(stack, client, code, { code_verifier: pkce.verifier }), 'not spent');
});

token('refuses a PKCE code with a wrong verifier [invalid_grant]', async ({ stack }) => {
  const client = await makeApp(stack, { secret: false });
  const pkce = pkcePair();
  const { code } = await codeFor(stack, { app: client.app, scopes: ['activities:read'], codeChallenge: pkce.challenge });
  await expectError(await exchange(stack, client, code, { code_verifier: pkcePair().verifier }), 400, 'invalid_grant');
  // The challenge itself is not a verifier (a "plain" downgrade).
  await expectError(await exchange(stack, client, code, { code_verifier: pkce.challenge }), 400, 'invalid_grant', 'challenge as verifier');
});

token('refuses a PKCE code with a malformed verifier [invalid_request]', async ({ stack }) => {
  const client = await makeApp(stack, { secret: false });
  const pkce = pkcePair();
  const { code } = await codeFor(stack, { app: client.app, scopes: ['activities:read'], codeChallenge: pkce.challenge });
  for (const verifier of ['short', 'a'.repeat(42), 'a'.repeat(129), `${'a'.repeat(42)} b`, `${'a'.repeat(42)}/+`, `${pkce.verifier}é`]) {
    await expectError(await exchange(stack, client, code, { code_verifier: verifier }), 400, 'invalid_request', verifier);
  }
});

token('refuses a verifier on a code without a challenge [downgrade]', async ({ stack }) => {
  const client = await makeApp(stack);
  const { code } = await codeFor(stack, { app: client.app, scopes: ['activities:read'] });
  await expectError(await exchange(stack, client, code, { code_verifier: pkcePair().verifier }), 400, 'invalid_grant');
});

token('refuses a client secret on a flow started with a challenge with 401 invalid_client, without spending the code', async ({ stack }) => {
  const client = await makeApp(stack);
  const pkce = pkcePair();
  const { code } = await codeFor(stack, { app: client.app, scopes: ['activities:read'], codeChallenge: pkce.challenge });
  const instead = await exchange(stack, client, code);
  assert.is(instead.headers.get('www-authenticate'), null, 'no Basic challenge for a body secret');
  await expectError(instead, 401, 'invalid_client', 'body secret instead of the verifier');
  await expectError(await exchange(stack, client, code, { code_verifier: pkce.verifier }), 401, 'invalid_client', 'body secret and verifier');
  const basic = await tokenRequest(stack, { grant_type: 'authorization_code', code, code_verifier: pkce.verifier }, { authorization: basicAuth(client.app.id, client.secret!) });
  assert.match(basic.headers.get('www-authenticate') ?? '', /^Basic /, 'RFC 6749 §5.2: a Basic challenge after Basic');
  await expectError(basic, 401, 'invalid_client', 'basic secret');
  // The code is still unused: the same app finishes the flow the way it started it.
  await expectTokens(await tokenRequest(stack, { grant_type: 'authorization_code', code, client_id: client.app.id, code_verifier: pkce.verifier }));
});

token('refuses a code without a challenge when no secret is sent', async ({ stack }) => {
  const client = await makeApp(stack);
  const { code } = await codeFor(stack, { app: client.app, scopes: ['activities:read'] });
  await expectError(await tokenRequest(stack, { grant_type: 'authorization_code', code, client_id: client.app.id }), 401, 'invalid_client');
  await expectTokens(await exchange(stack, client, code), 'not spent');
});

// ---- Client authentication ----

token('refuses a wrong, foreign or missing client secret with invalid_client', async ({ stack }) => {
  const client = await makeApp(stack);
  const other = await makeApp(stack);
  const { code } = await codeFor(stack, { app: client.app, scopes: ['activities:read'] });
  const form = { grant_type: 'authorization_code', code, client_id: client.app.id };
  await expectError(await tokenRequest(stack, { ...form, client_secret: `${client.secret!}x` }), 401, 'invalid_client', 'wrong');
  await expectError(await tokenRequest(stack, { ...form, client_secret: other.secret! }), 401, 'invalid_client', 'another app\'s secret');
  await expectError(await tokenRequest(stack, { grant_type: 'authorization_code', code, client_secret: client.secret! }), 401, 'invalid_client', 'no client id');
  const wrongBasic = await tokenRequest(stack, { grant_type: 'authorization_code', code }, { authorization: basicAuth(client.app.id, 'tsk_wrong') });
  assert.is(wrongBasic.headers.get('www-authenticate'), 'Basic realm="threshold"');
  await expectError(wrongBasic, 401, 'invalid_client', 'wrong basic');
  await expectTokens(await exchange(stack, client, code), 'not spent');
});

token('answers an unknown client and a wrong secret identically [enumeration]', async ({ stack }) => {
  const client = await makeApp(stack);
  const { code } = await codeFor(stack, { app: client.app, scopes: ['activities:read'] });
  const answers: { status: number; body: string; challenge: string | null }[] = [];
  for (const clientId of [client.app.id, '0123456789abcdef']) {
    for (const useBasic of [false, true]) {
      const response = useBasic
        ? await tokenRequest(stack, { grant_type: 'authorization_code', code }, { authorization: basicAuth(clientId, 'tsk_not-the-secret') })
        : await tokenRequest(stack, { grant_type: 'authorization_code', code, client_id: clientId, client_secret: 'tsk_not-the-secret' });
      answers.push({ status: response.status, body: await response.text(), challenge: response.headers.get('www-authenticate') });
    }
  }
  assert.equal(answers[0], answers[2], 'body secret: known and unknown client');
  assert.equal(answers[1], answers[3], 'basic: known and unknown client');
  assert.is(answers[0]!.status, 401);
  // Without a secret, an unknown client id is as invalid as a known one that owes a secret.
  const knownNoSecret = await tokenRequest(stack, { grant_type: 'authorization_code', code, client_id: client.app.id });
  const unknownNoSecret = await tokenRequest(stack, { grant_type: 'authorization_code', code, client_id: 'fedcba9876543210' });
  assert.is(knownNoSecret.status, unknownNoSecret.status);
  assert.is((await knownNoSecret.json() as Body).error, (await unknownNoSecret.json() as Body).error);
});

token('accepts HTTP Basic with a form-urlencoded id and secret', async ({ stack }) => {
  const client = await makeApp(stack);
  const plain = await codeFor(stack, { app: client.app, scopes: ['activities:read'] });
  await expectTokens(await tokenRequest(stack, { grant_type: 'authorization_code', code: plain.code }, { authorization: basicAuth(client.app.id, client.secret!) }), 'plain');
  // Every character percent-encoded, as a strict RFC 6749 §2.3.1 client may send it.
  const encodeAll = (value: string) => [...Buffer.from(value)].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  const encoded = await codeFor(stack, { app: client.app, scopes: ['activities:read'] });
  const header = `Basic ${Buffer.from(`${encodeAll(client.app.id)}:${encodeAll(client.secret!)}`).toString('base64')}`;
  await expectTokens(await tokenRequest(stack, { grant_type: 'authorization_code', code: encoded.code, client_id: client.app.id }, { authorization: header }), 'encoded');
  // The scheme is case-insensitive.
  const lower = await codeFor(stack, { app: client.app, scopes: ['activities:read'] });
  await expectTokens(await tokenRequest(stack, { grant_type: 'authorization_code', code: lower.code }, { authorization: basicAuth(client.app.id, client.secret!).replace('Basic', 'basic') }), 'lowercase scheme');
});

token('refuses malformed Basic credentials with invalid_client and a Basic challenge', async ({ stack }) => {
  const client = await makeApp(stack);
  const { code } = await codeFor(stack, { app: client.app, scopes: ['activities:read'] });
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  const cases: Record<string, string> = {
    'bad base64': 'Basic !!!not-base64!!!',
    'truncated base64': `Basic ${b64(`${client.app.id}:${client.secret!}`).slice(0, -1)}`,
    'no colon': `Basic ${b64(`${client.app.id}${client.secret!}`)}`,
    'empty id': `Basic ${b64(`:${client.secret!}`)}`,
    'bad percent-encoding': `Basic ${b64(`${client.app.id}:%zz${client.secret!}`)}`,
    'not UTF-8': `Basic ${Buffer.from([0xff, 0xfe, 0x3a, 0x41]).toString('base64')}`,
    'no credentials': 'Basic',
  };
  for (const [name, header] of Object.entries(cases)) {
    const response = await tokenRequest(stack, { grant_type: 'authorization_code', code }, { authorization: header });
    assert.is(response.headers.get('www-authenticate'), 'Basic realm="threshold"', name);
    await expectError(response, 401, 'invalid_client', name);
  }
  await expectTokens(await exchange(stack, client, code), 'not spent');
});

token('refuses Basic together with a body secret, and a Basic id that differs from client_id', async ({ stack }) => {
  const client = await makeApp(stack);
  const other = await makeApp(stack);
  const { code } = await codeFor(stack, { app: client.app, scopes: ['activities:read'] });
  const authorization = basicAuth(client.app.id, client.secret!);
  await expectError(await tokenRequest(stack, { grant_type: 'authorization_code', code, client_secret: client.secret! }, { authorization }), 400, 'invalid_request', 'both');
  await expectError(await tokenRequest(stack, { grant_type: 'authorization_code', code, client_id: other.app.id }, { authorization }), 400, 'invalid_request', 'ids differ');
  await expectTokens(await tokenRequest(stack, { grant_type: 'authorization_code', code, client_id: client.app.id }, { authorization }), 'same id in both places');
});

token('treats an empty client_secret as absent', async ({ stack }) => {
  const client = await makeApp(stack, { secret: false });
  const pkce = pkcePair();
  const { code } = await codeFor(stack, { app: client.app, scopes: ['activities:read'], codeChallenge: pkce.challenge });
  await expectTokens(await tokenRequest(stack, { grant_type: 'authorization_code', code, client_id: client.app.id, client_secret: '', code_verifier: pkce.verifier }));
});

token('ignores an Authorization: Bearer header, even an expired token, and a tz field', async ({ stack }) => {
  const client = await makeApp(stack);
  const { token: bearer } = await stack.userWithToken(['activities:read']);
  const past = Math.floor(Date.now() / 1000) - 3600;
  const expired = `${Buffer.from(JSON.stringify({ alg: 'RS256', typ: 'at+jwt' })).toString('base64url')}.${Buffer.from(JSON.stringify({ exp: past })).toString('base64url')}.sig`;
  for (const header of [`Bearer ${bearer}`, `Bearer ${expired}`]) {
    const { code } = await codeFor(stack, { app: client.app, scopes: ['activities:read'] });
    const body = await expectTokens(await tokenRequest(stack, {
      grant_type: 'authorization_code', code, client_id: client.app.id, client_secret: client.secret!, tz: 'Europe/Amsterdam',
    }, { authorization: header }));
    assert.is(body.token_type, 'Bearer');
  }
});

token('never echoes a submitted code, secret or token in an error body', async ({ stack }) => {
  const client = await makeApp(stack);
  const pkce = pkcePair();
  const { code } = await codeFor(stack, { app: client.app, scopes: ['activities:read', 'offline_access'] });
  const issued = await expectTokens(await exchange(stack, client, code));
  const refreshToken = String(issued.refresh_token);
  const secrets = [code, client.secret!, refreshToken, pkce.verifier, 'tsk_guessed-secret-value'];
  const responses = [
    await exchange(stack, client, code),
    await exchange(stack, client, code, { code_verifier: pkce.verifier }),
    await tokenRequest(stack, { grant_type: 'authorization_code', code, client_id: client.app.id, client_secret: 'tsk_guessed-secret-value' }),
    await tokenRequest(stack, { grant_type: 'authorization_code', code }, { authorization: basicAuth(client.app.id, 'tsk_guessed-secret-value') }),
    await refresh(stack, client, `${refreshToken}x`),
    await refresh(stack, client, refreshToken, { scope: 'wellness:read' }),
    await tokenRequest(stack, [['grant_type', 'refresh_token'], ['refresh_token', refreshToken], ['refresh_token', refreshToken]]),
    await tokenRequest(stack, { grant_type: code, client_id: client.app.id, client_secret: client.secret! }),
    await tokenRequest(stack, { grant_type: 'authorization_code', code: refreshToken, client_id: client.app.id, client_secret: client.secret! }),
  ];
  for (const response of responses) {
    assert.ok(response.status >= 400, String(response.status));
    const text = await response.text();
    for (const secret of secrets) assert.not.ok(text.includes(secret), `error body echoes a secret: ${text}`);
    for (const value of response.headers.values()) for (const secret of secrets) assert.not.ok(value.includes(secret), 'a header echoes a secret');
  }
});

// ---- Refresh tokens ----

token('issues refresh tokens per the matrix: secret client always, PKCE only with offline_access', async ({ stack }) => {
  const confidential = await makeApp(stack);
  const withSecret = await codeFor(stack, { app: confidential.app, scopes: ['activities:read'] });
  assert.type((await expectTokens(await exchange(stack, confidential, withSecret.code))).refresh_token, 'string', 'secret, no offline_access');

  const publicApp = await makeApp(stack, { secret: false });
  const online = pkcePair();
  const onlineCode = await codeFor(stack, { app: publicApp.app, scopes: ['activities:read'], codeChallenge: online.challenge });
  const onlineBody = await expectTokens(await exchange(stack, publicApp, onlineCode.code, { code_verifier: online.verifier }));
  assert.not.ok('refresh_token' in onlineBody, 'PKCE without offline_access');

  const offline = pkcePair();
  const offlineCode = await codeFor(stack, { app: publicApp.app, scopes: ['activities:read', 'offline_access'], codeChallenge: offline.challenge });
  const offlineBody = await expectTokens(await exchange(stack, publicApp, offlineCode.code, { code_verifier: offline.verifier }));
  assert.type(offlineBody.refresh_token, 'string', 'PKCE with offline_access');
  const stored = await stack.store.refresh_tokens.find({ application_id: publicApp.app.id });
  assert.is(stored.length, 1);
  assert.is(stored[0]!.client_secret_id, null, 'recorded as issued under PKCE');
  assert.not.ok(JSON.stringify(stored[0]).includes(String(offlineBody.refresh_token)), 'stored only as a hash');
});

token('refreshes twice with the same refresh token, which does not rotate', async ({ stack }) => {
  const client = await makeApp(stack);
  const { code, userId } = await codeFor(stack, { app: client.app, scopes: ['activities:read', 'openid'] });
  const first = await expectTokens(await exchange(stack, client, code));
  const refreshToken = String(first.refresh_token);
  for (const round of [1, 2]) {
    const body = await expectTokens(await refresh(stack, client, refreshToken), `round ${round}`);
    assert.is(body.refresh_token, refreshToken, 'the same refresh token comes back');
    assert.is(body.token_type, 'Bearer');
    assert.is(body.expires_in, 900);
    assert.is(body.scope, 'activities:read openid');
    assert.type(body.id_token, 'string', 'openid in scope');
    assert.is(decodeJwt(String(body.access_token)).sub, userId);
    assert.is((await stack.get('/api/v1/activities/', String(body.access_token))).status, 200);
  }
  const stored = await stack.store.refresh_tokens.findOne({ application_id: client.app.id });
  assert.type(stored!.last_used_at, 'number', 'last_used_at recorded');
});

token('refreshes a PKCE-issued token with the client id alone, and a secret-issued one only with a live secret of its app', async ({ stack }) => {
  const publicApp = await makeApp(stack, { secret: false });
  const pkce = pkcePair();
  const pkceCode = await codeFor(stack, { app: publicApp.app, scopes: ['activities:read', 'offline_access'], codeChallenge: pkce.challenge });
  const pkceTokens = await expectTokens(await exchange(stack, publicApp, pkceCode.code, { code_verifier: pkce.verifier }));
  await expectTokens(await refresh(stack, publicApp, String(pkceTokens.refresh_token)), 'PKCE refresh');

  const client = await makeApp(stack);
  const { code } = await codeFor(stack, { app: client.app, scopes: ['activities:read'] });
  const refreshToken = String((await expectTokens(await exchange(stack, client, code))).refresh_token);
  await expectError(await tokenRequest(stack, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: client.app.id }), 401, 'invalid_client', 'no secret');
  await expectError(await refresh(stack, client, refreshToken, { client_secret: 'tsk_wrong' }), 401, 'invalid_client', 'wrong secret');
  const second = await addClientSecret(stack.store, client.app, 'second');
  const body = await expectTokens(await tokenRequest(stack, { grant_type: 'refresh_token', refresh_token: refreshToken }, { authorization: basicAuth(client.app.id, second.secret) }), 'another live secret of the app');
  assert.is(decodeJwt(String(body.access_token)).cs, client.secretRecord!.id, 'the access token stands on the secret the refresh token was issued under');
});

token('refuses a refresh token presented by another application', async ({ stack }) => {
  const client = await makeApp(stack);
  const other = await makeApp(stack);
  const { code } = await codeFor(stack, { app: client.app, scopes: ['activities:read'] });
  const refreshToken = String((await expectTokens(await exchange(stack, client, code))).refresh_token);
  await expectError(await refresh(stack, other, refreshToken), 400, 'invalid_grant');
  await expectTokens(await refresh(stack, client, refreshToken), 'still good for its own client');
});

token('refuses a refresh after the user revokes the grant', async ({ stack }) => {
  const client = await makeApp(stack);
  const { code, userId } = await codeFor(stack, { app: client.app, scopes: ['activities:read'] });
  const issued = await expectTokens(await exchange(stack, client, code));
  assert.ok(await revokeGrant(stack.store, userId, client.app.id));
  await expectError(await refresh(stack, client, String(issued.refresh_token)), 400, 'invalid_grant');
  assert.is((await stack.get('/api/v1/activities/', String(issued.access_token))).status, 401);
  // A new consent does not revive the old refresh token.
  await codeFor(stack, { app: client.app, userId, scopes: ['activities:read'] });
  await expectError(await refresh(stack, client, String(issued.refresh_token)), 400, 'invalid_grant', 'after a new consent');
  // The grant is checked itself, not only through the refresh tokens deleted with it.
  const other = await codeFor(stack, { app: client.app, scopes: ['activities:read'] });
  const otherTokens = await expectTokens(await exchange(stack, client, other.code));
  await stack.store.grants.deleteMany({ id: other.grantId });
  await expectError(await refresh(stack, client, String(otherTokens.refresh_token)), 400, 'invalid_grant', 'grant record gone');
});

token('a revoked grant\'s access and refresh tokens stay dead after the user consents again, while the new ones work', async ({ stack }) => {
  const client = await makeApp(stack);
  const first = await codeFor(stack, { app: client.app, scopes: ['activities:read'] });
  const old = await expectTokens(await exchange(stack, client, first.code));
  assert.ok(await revokeGrant(stack.store, first.userId, client.app.id));
  const again = await codeFor(stack, { app: client.app, userId: first.userId, scopes: ['activities:read'] });
  assert.is.not(again.grantId, first.grantId, 'consent after a revocation makes a new grant');
  const fresh = await expectTokens(await exchange(stack, client, again.code));
  const refreshed = await expectTokens(await refresh(stack, client, String(fresh.refresh_token)), 'the new refresh token');
  for (const [name, accessToken] of [['new', fresh.access_token], ['refreshed', refreshed.access_token]]) {
    assert.is((await stack.get('/api/v1/activities/', String(accessToken))).status, 200, `the ${name} access token works`);
  }
  assert.is((await stack.get('/api/v1/activities/', String(old.access_token))).status, 401, 'the old access token stays dead');
  await expectError(await refresh(stack, client, String(old.refresh_token)), 400, 'invalid_grant', 'the old refresh token stays dead');
  // What keeps them apart: each access token names the grant it was issued under.
  assert.is(decodeJwt(String(old.access_token)).gid, first.grantId);
  assert.is(decodeJwt(String(refreshed.access_token)).gid, again.grantId);
});

token('refuses a refresh after the client secret it was issued under is deleted', async ({ stack }) => {
  const client = await makeApp(stack);
  const spare = await addClientSecret(stack.store, client.app, 'spare');
  const { code } = await codeFor(stack, { app: client.app, scopes: ['activities:read'] });
  const issued = await expectTokens(await exchange(stack, client, code));
  assert.ok(await deleteClientSecret(stack.store, client.app.id, client.secretRecord!.id));
  await expectError(
    await tokenRequest(stack, { grant_type: 'refresh_token', refresh_token: String(issued.refresh_token), client_id: client.app.id, client_secret: spare.secret }),
    400, 'invalid_grant', 'even with another live secret',
  );
  assert.is((await stack.get('/api/v1/activities/', String(issued.access_token))).status, 401, 'the access token ends too');
  // The secret is checked itself, not only through the refresh tokens deleted with it.
  const again = await codeFor(stack, { app: client.app, scopes: ['activities:read'] });
  const tokens = await tokenRequest(stack, { grant_type: 'authorization_code', code: again.code, client_id: client.app.id, client_secret: spare.secret });
  const refreshToken = String((await expectTokens(tokens)).refresh_token);
  const third = await addClientSecret(stack.store, client.app, 'third');
  await stack.store.client_secrets.deleteMany({ id: spare.record.id });
  await expectError(
    await tokenRequest(stack, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: client.app.id, client_secret: third.secret }),
    400, 'invalid_grant', 'secret record gone',
  );
});

token('refuses a refresh after the user is deleted', async ({ stack }) => {
  const client = await makeApp(stack);
  const { code, userId } = await codeFor(stack, { app: client.app, scopes: ['activities:read'] });
  const issued = await expectTokens(await exchange(stack, client, code));
  await stack.store.deleteUser(userId);
  await expectError(await refresh(stack, client, String(issued.refresh_token)), 400, 'invalid_grant');
});

token('narrows scopes on refresh and refuses widening with invalid_scope', async ({ stack }) => {
  const client = await makeApp(stack);
  const { code } = await codeFor(stack, { app: client.app, scopes: ['activities:read', 'wellness:read', 'openid'] });
  const refreshToken = String((await expectTokens(await exchange(stack, client, code))).refresh_token);
  const narrowed = await expectTokens(await refresh(stack, client, refreshToken, { scope: 'wellness:read' }));
  assert.is(narrowed.scope, 'wellness:read');
  assert.is(decodeJwt(String(narrowed.access_token)).scope, 'wellness:read');
  assert.not.ok('id_token' in narrowed, 'no openid, no ID token');
  assert.is((await stack.get('/api/v1/activities/', String(narrowed.access_token))).status, 403, 'the narrowed token lost activities:read');
  await expectError(await refresh(stack, client, refreshToken, { scope: 'wellness:read workouts:read' }), 400, 'invalid_scope', 'widening');
  await expectError(await refresh(stack, client, refreshToken, { scope: 'unknown' }), 400, 'invalid_scope', 'unknown');
  // The narrowing applied to one response only: the refresh token keeps its scopes.
  const full = await expectTokens(await refresh(stack, client, refreshToken));
  assert.is(full.scope, 'activities:read wellness:read openid');
});

token('refuses a missing or unknown refresh token', async ({ stack }) => {
  const client = await makeApp(stack);
  await expectError(await tokenRequest(stack, { grant_type: 'refresh_token', client_id: client.app.id, client_secret: client.secret! }), 400, 'invalid_request');
  await expectError(await refresh(stack, client, 'trt_unknown'), 400, 'invalid_grant');
});

// ---- CLI secrets ----

token('adds and deletes client secrets from the command line', async ({ stack }) => {
  const client = await makeApp(stack, { secret: false });
  const env = { DATA_DIR: stack.dataDir, LOG_LEVEL: 'silent' };
  const added = runCli(['app', 'secret', 'add', '--app', client.app.id, '--label', 'ci'], env);
  assert.is(added.status, 0, added.stderr);
  const secret = added.json as { id: string; label: string; client_secret: string };
  assert.is(secret.label, 'ci');
  const { code } = await codeFor(stack, { app: client.app, scopes: ['activities:read'] });
  const issued = await expectTokens(await tokenRequest(stack, { grant_type: 'authorization_code', code }, { authorization: basicAuth(client.app.id, secret.client_secret) }));
  const deleted = runCli(['app', 'secret', 'delete', '--app', client.app.id, '--id', secret.id], env);
  assert.is(deleted.status, 0, deleted.stderr);
  await expectError(await tokenRequest(stack, { grant_type: 'refresh_token', refresh_token: String(issued.refresh_token) }, { authorization: basicAuth(client.app.id, secret.client_secret) }), 401, 'invalid_client');
  assert.is(runCli(['app', 'secret', 'delete', '--app', client.app.id, '--id', secret.id], env).status, 1, 'already gone');
});

token.run();

// ---- Rate limiting (its own stack: the limiter is per gateway) ----

const limited = suite<{ stack: TestStack }>('token endpoint rate limit');

limited.before(async (context) => {
  context.stack = await startStack();
});
limited.after(async (context) => {
  await context.stack.close();
});

limited('answers repeated failures with 429 and an integer Retry-After, even to the right secret', async ({ stack }) => {
  const client = await makeApp(stack);
  const { code } = await codeFor(stack, { app: client.app, scopes: ['activities:read'] });
  const from = '127.0.1.1';
  let response: Response | null = null;
  for (let attempt = 0; attempt < 40; attempt++) {
    response = await tokenRequest(stack, { grant_type: 'authorization_code', code, client_id: client.app.id, client_secret: `tsk_wrong-${attempt}` }, {}, { from });
    if (response.status === 429) break;
    await expectError(response, 401, 'invalid_client');
  }
  assert.is(response!.status, 429);
  assert.match(response!.headers.get('retry-after') ?? '', /^\d+$/);
  await expectError(response!, 429, 'invalid_request');
  // The right secret is refused too while the window lasts, from this address.
  const right = await tokenRequest(stack, { grant_type: 'authorization_code', code, client_id: client.app.id, client_secret: client.secret! }, {}, { from });
  assert.match(right.headers.get('retry-after') ?? '', /^\d+$/);
  await expectError(right, 429, 'invalid_request');
  // Failures count per address, not per client id: nobody can lock a client out by naming it.
  await expectTokens(await tokenRequest(stack, { grant_type: 'authorization_code', code, client_id: client.app.id, client_secret: client.secret! }, {}, { from: '127.0.1.2' }));
});

limited.run();
