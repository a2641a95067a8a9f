/**
 * AUTH.md "Discovery, JWKS, userinfo, ID token": exact issuer and endpoints, truthful metadata, public
 * key members only, `nonce`/`aud`/`sub` agreement between the ID token, userinfo and the access token
 * (verified against the published JWKS with jose's createRemoteJWKSet, as a relying party does), the
 * userinfo shape of gaps.md, and key rotation.
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { startStack, type TestStack } from '../support/stack.js';
import { runCli } from '../support/processes.js';
import { codeFor, makeApp, makeUser, pkcePair, tokenRequest, type TestApp } from '../support/oauth.js';
import { SigningKeys, RETIRED_KEY_PUBLISHED_MS } from '../../gateway/auth/signing-keys.js';
import { mintAccessToken } from '../../gateway/auth/access-tokens.js';
import { unionGrant } from '../../gateway/services/accounts.js';
import { loadGatewayConfig } from '../../gateway/config.js';
import { startGateway, type RunningGateway } from '../../gateway/server.js';
import { SCOPES } from '../../gateway/auth/scopes.js';
import { userClaims } from '../../gateway/auth/id-tokens.js';
import { newId } from '../../storage/ids.js';

type Body = Record<string, unknown>;

const oidc = suite<{ stack: TestStack }>('openid connect');

oidc.before(async (context) => {
  context.stack = await startStack();
});
oidc.after(async (context) => {
  await context.stack.close();
});

/** Exchanges a fresh code for `scopes` and returns the token response. */
async function tokensFor(stack: Pick<TestStack, 'baseUrl' | 'store'>, client: TestApp, options: { scopes: string[]; userId?: string; nonce?: string; authTime?: number }): Promise<Body> {
  const { code } = await codeFor(stack as TestStack, { app: client.app, ...options });
  const response = await tokenRequest(stack, { grant_type: 'authorization_code', code, client_id: client.app.id, client_secret: client.secret! });
  const text = await response.text();
  assert.is(response.status, 200, text);
  return JSON.parse(text) as Body;
}

async function userinfo(stack: TestStack, accessToken: string, method: 'GET' | 'POST' = 'GET'): Promise<Response> {
  return fetch(`${stack.baseUrl}/api/v1/oauth/userinfo`, { method, headers: { authorization: `Bearer ${accessToken}` } });
}

oidc('publishes discovery with the exact issuer, endpoints and supported features', async ({ stack }) => {
  const response = await stack.get('/.well-known/openid-configuration');
  assert.is(response.status, 200);
  const base = stack.baseUrl;
  assert.equal(await response.json(), {
    issuer: base,
    authorization_endpoint: `${base}/oauth/authorize`,
    token_endpoint: `${base}/api/v1/oauth/token`,
    userinfo_endpoint: `${base}/api/v1/oauth/userinfo`,
    jwks_uri: `${base}/.well-known/jwks.json`,
    scopes_supported: [...SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    code_challenge_methods_supported: ['S256'],
    claims_supported: ['iss', 'sub', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'name', 'given_name', 'family_name', 'email', 'registered_at'],
    prompt_values_supported: ['none', 'consent', 'login', 'select_account'],
    authorization_response_iss_parameter_supported: true,
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
    claims_parameter_supported: false,
  });
});

oidc('serves the endpoints discovery names', async ({ stack }) => {
  const metadata = (await (await stack.get('/.well-known/openid-configuration')).json()) as Record<string, string>;
  assert.is((await fetch(metadata.jwks_uri!)).status, 200);
  assert.is((await fetch(metadata.userinfo_endpoint!)).status, 401, 'userinfo wants a token');
  const token = await fetch(metadata.token_endpoint!, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=password' });
  assert.equal(await token.json(), { error: 'unsupported_grant_type', error_description: 'grant_type must be authorization_code or refresh_token' });
});

oidc('publishes only public key members in the JWKS', async ({ stack }) => {
  const { keys } = (await (await stack.get('/.well-known/jwks.json')).json()) as { keys: Record<string, string>[] };
  assert.ok(keys.length >= 1);
  for (const key of keys) {
    for (const member of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k']) assert.not.ok(member in key, `private member ${member}`);
    assert.equal(Object.keys(key).sort(), ['alg', 'e', 'kid', 'kty', 'n', 'use']);
    assert.is(key.kty, 'RSA');
    assert.is(key.use, 'sig');
  }
});

oidc('issues an ID token whose nonce, aud and sub agree with the request, userinfo and the access token', async ({ stack }) => {
  const client = await makeApp(stack);
  const user = await makeUser(stack, { first_name: 'Ada', last_name: 'Lovelace' });
  const authTime = Date.now() - 60_000;
  const body = await tokensFor(stack, client, { scopes: ['openid', 'profile', 'email', 'activities:read'], userId: user.id, nonce: 'n-0S6_WzA2Mj', authTime });
  const metadata = (await (await stack.get('/.well-known/openid-configuration')).json()) as Record<string, string>;
  const jwks = createRemoteJWKSet(new URL(metadata.jwks_uri!));
  const { payload, protectedHeader } = await jwtVerify(String(body.id_token), jwks, {
    issuer: stack.baseUrl, audience: client.app.id, algorithms: ['RS256'], typ: 'JWT',
  });
  assert.is(protectedHeader.alg, 'RS256');
  assert.type(protectedHeader.kid, 'string');
  assert.is(payload.nonce, 'n-0S6_WzA2Mj');
  assert.is(payload.aud, client.app.id);
  assert.is(payload.sub, user.id);
  assert.is(payload.auth_time, Math.floor(authTime / 1000));
  assert.is(payload.exp! - payload.iat!, 900);
  assert.is(payload.name, 'Ada Lovelace');
  assert.is(payload.given_name, 'Ada');
  assert.is(payload.family_name, 'Lovelace');
  assert.is(payload.email, user.email);
  const access = decodeJwt(String(body.access_token));
  assert.is(access.sub, payload.sub);
  assert.is(access.aud, payload.aud);
  assert.is(decodeProtectedHeader(String(body.access_token)).kid, protectedHeader.kid);
  const info = (await (await userinfo(stack, String(body.access_token))).json()) as Body;
  assert.is(info.sub, payload.sub);
  assert.is(info.name, payload.name);
  assert.is(info.email, payload.email);
});

oidc('leaves nonce out when the request had none, and the name and email claims without their scopes', async ({ stack }) => {
  const client = await makeApp(stack);
  const user = await makeUser(stack, { first_name: 'Ada', last_name: 'Lovelace' });
  const body = await tokensFor(stack, client, { scopes: ['openid'], userId: user.id });
  const claims = decodeJwt(String(body.id_token));
  assert.equal(Object.keys(claims).sort(), ['aud', 'auth_time', 'exp', 'iat', 'iss', 'sub']);
  const withoutOpenid = await tokensFor(stack, client, { scopes: ['profile', 'activities:read'], userId: user.id });
  assert.not.ok('id_token' in withoutOpenid, 'no ID token without openid');
});

oidc('issues an ID token on refresh with auth_time from the sign-in and no nonce', async ({ stack }) => {
  const client = await makeApp(stack);
  const authTime = Date.now() - 3_600_000;
  const first = await tokensFor(stack, client, { scopes: ['openid', 'profile'], nonce: 'abc', authTime });
  const response = await tokenRequest(stack, { grant_type: 'refresh_token', refresh_token: String(first.refresh_token), client_id: client.app.id, client_secret: client.secret! });
  const body = (await response.json()) as Body;
  assert.is(response.status, 200);
  const claims = decodeJwt(String(body.id_token));
  assert.is(claims.auth_time, Math.floor(authTime / 1000));
  assert.not.ok('nonce' in claims);
  assert.is(claims.sub, decodeJwt(String(first.id_token)).sub);
});

oidc('refuses an ID token used as an access token', async ({ stack }) => {
  const client = await makeApp(stack);
  const body = await tokensFor(stack, client, { scopes: ['openid', 'activities:read'] });
  assert.is((await userinfo(stack, String(body.id_token))).status, 401);
  assert.is((await stack.get('/api/v1/activities/', String(body.id_token))).status, 401);
  assert.is((await stack.get('/api/v1/activities/', String(body.access_token))).status, 200);
});

oidc('answers userinfo on GET and POST, with email only under the email scope', async ({ stack }) => {
  const client = await makeApp(stack);
  const user = await makeUser(stack, { first_name: 'Grace', last_name: 'Hopper' });
  const full = await tokensFor(stack, client, { scopes: ['openid', 'profile', 'email'], userId: user.id });
  for (const method of ['GET', 'POST'] as const) {
    const response = await userinfo(stack, String(full.access_token), method);
    assert.is(response.status, 200, method);
    assert.is(response.headers.get('cache-control'), 'no-store');
    assert.equal(await response.json(), {
      sub: user.id, name: 'Grace Hopper', given_name: 'Grace', family_name: 'Hopper', email: user.email,
      registered_at: new Date(user.registered_at).toISOString(),
    }, method);
  }
  const noEmail = await tokensFor(stack, client, { scopes: ['openid', 'profile'], userId: user.id });
  const info = (await (await userinfo(stack, String(noEmail.access_token), 'POST')).json()) as Body;
  assert.not.ok('email' in info);
  assert.is(info.given_name, 'Grace');
});

// Interface §5 "Scopes": "openid: sub on userinfo", "profile: name claims: name, given_name, family_name".
oidc('answers names on userinfo only to a token holding profile, and sub only to one holding openid (403 naming it)', async ({ stack }) => {
  const client = await makeApp(stack);
  const user = await makeUser(stack, { first_name: 'Grace', last_name: 'Hopper' });
  const registeredAt = new Date(user.registered_at).toISOString();
  const noProfile = await tokensFor(stack, client, { scopes: ['openid', 'activities:read'], userId: user.id });
  assert.equal(await (await userinfo(stack, String(noProfile.access_token))).json(), { sub: user.id, registered_at: registeredAt }, 'no name claim without profile');
  const withEmail = await tokensFor(stack, client, { scopes: ['openid', 'email'], userId: user.id });
  assert.equal(await (await userinfo(stack, String(withEmail.access_token), 'POST')).json(), { sub: user.id, email: user.email, registered_at: registeredAt }, 'email is not a name');
  const profile = await tokensFor(stack, client, { scopes: ['openid', 'profile'], userId: user.id });
  assert.equal(await (await userinfo(stack, String(profile.access_token))).json(), {
    sub: user.id, name: 'Grace Hopper', given_name: 'Grace', family_name: 'Hopper', registered_at: registeredAt,
  }, 'names with profile');
  for (const scopes of [['profile', 'email', 'activities:read'], ['activities:read']]) {
    const withoutOpenid = await tokensFor(stack, client, { scopes, userId: user.id });
    for (const method of ['GET', 'POST'] as const) {
      const refused = await userinfo(stack, String(withoutOpenid.access_token), method);
      assert.is(refused.status, 403, `${scopes.join(' ')} ${method}`);
      assert.match(refused.headers.get('www-authenticate') ?? '', 'scope="openid"');
      const body = await refused.text();
      assert.not.match(body, user.id, 'no sub without openid');
      assert.not.match(body, 'Grace');
    }
  }
});

oidc('names a user "First Last", else by the email before @, else "Athlete", with registered_at in UTC', async ({ stack }) => {
  const cases: [Parameters<typeof makeUser>[1], string][] = [
    [{ first_name: 'Ada', last_name: 'Lovelace' }, 'Ada Lovelace'],
    [{ first_name: 'Ada' }, 'Ada'],
    [{ email: 'jane.doe@example.com' }, 'jane.doe'],
    [{ email: null }, 'Athlete'],
  ];
  for (const [names, expected] of cases) {
    const user = await makeUser(stack, names);
    const { token } = await stack.userWithToken(['openid', 'profile', 'email'], { userId: user.id });
    const info = (await (await userinfo(stack, token)).json()) as Body;
    assert.is(info.name, expected);
    assert.match(String(info.registered_at), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  }
});

oidc('never shows the email on userinfo to a delegated token', async ({ stack }) => {
  const client = await makeApp(stack);
  const actor = await makeUser(stack);
  const subject = await makeUser(stack, { first_name: 'Sub', last_name: 'Ject' });
  // The subject authorized a team the actor belongs to, email included.
  const now = Date.now();
  const teamId = newId();
  await stack.store.teams.insert({ id: teamId, user_id: actor.id, name: 'Team', description: '', url: '', image: '', privacy_statement: '', created_at: now });
  await stack.store.team_members.insert({ id: newId(), team_id: teamId, user_id: actor.id, role: 'owner', created_at: now });
  await stack.store.team_authorizations.insert({ id: newId(), team_id: teamId, user_id: subject.id, scopes: ['openid', 'profile', 'email'], created_at: now, updated_at: now });
  const grant = await unionGrant(stack.store, actor.id, client.app.id, ['openid', 'profile', 'email', 'sharing:read']);
  const keys = await SigningKeys.open(stack.store);
  const delegated = await mintAccessToken(keys, {
    issuer: stack.baseUrl, userId: subject.id, applicationId: client.app.id, grantId: grant.id, scopes: ['openid', 'profile'], actorId: actor.id, org: teamId,
    mintingScopes: ['openid', 'profile', 'email', 'sharing:read'],
  });
  const response = await userinfo(stack, delegated.access_token);
  const info = (await response.json()) as Body;
  assert.is(response.status, 200, JSON.stringify(info));
  assert.equal(info, { sub: subject.id, name: 'Sub Ject', given_name: 'Sub', family_name: 'Ject', registered_at: new Date(subject.registered_at).toISOString() });
  // The claim rule itself: even a delegated principal holding the email scope gets no email.
  assert.equal(userClaims(subject, new Set(['profile', 'email']), { delegated: true }), { name: 'Sub Ject', given_name: 'Sub', family_name: 'Ject' });
  assert.is(userClaims(subject, new Set(['email']), { delegated: false }).email, subject.email);
});

oidc('issues ID tokens to PKCE clients too, audience their client id', async ({ stack }) => {
  const client = await makeApp(stack, { secret: false });
  const pkce = pkcePair();
  const { code, userId } = await codeFor(stack, { app: client.app, scopes: ['openid'], codeChallenge: pkce.challenge, nonce: 'pkce-nonce' });
  const response = await tokenRequest(stack, { grant_type: 'authorization_code', code, client_id: client.app.id, code_verifier: pkce.verifier });
  const body = (await response.json()) as Body;
  const claims = decodeJwt(String(body.id_token));
  assert.is(claims.aud, client.app.id);
  assert.is(claims.sub, userId);
  assert.is(claims.nonce, 'pkce-nonce');
});

oidc.run();

// ---- Key rotation: a gateway of our own on the stack's store, so the test holds its key ring ----

const rotation = suite<{ stack: TestStack; gateway: RunningGateway }>('key rotation');

rotation.before(async (context) => {
  context.stack = await startStack();
  const config = loadGatewayConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', DATA_DIR: context.stack.dataDir, ENGINE_ADDRESS: context.stack.engineAddress });
  context.gateway = await startGateway({ config, store: context.stack.store, logger: context.stack.logger });
});
rotation.after(async (context) => {
  await context.gateway.close();
  await context.stack.close();
});

rotation('signs new tokens with the new key, keeps verifying the old ones, and publishes the old key until its last tokens expired', async ({ stack, gateway }) => {
  const on = { baseUrl: gateway.baseUrl, store: stack.store };
  const client = await makeApp(stack);
  const before = await tokensFor(on, client, { scopes: ['openid', 'activities:read'] });
  const oldKid = decodeProtectedHeader(String(before.id_token)).kid!;
  assert.is(decodeProtectedHeader(String(before.access_token)).kid, oldKid);

  const newKid = await gateway.keys.rotate();
  assert.is.not(newKid, oldKid);
  const after = await tokensFor(on, client, { scopes: ['openid', 'activities:read'] });
  assert.is(decodeProtectedHeader(String(after.id_token)).kid, newKid);
  assert.is(decodeProtectedHeader(String(after.access_token)).kid, newKid);

  const { keys } = (await (await fetch(`${gateway.baseUrl}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] };
  assert.equal(keys.map((key) => key.kid).sort(), [oldKid, newKid].sort(), 'both keys published');
  const jwks = createRemoteJWKSet(new URL(`${gateway.baseUrl}/.well-known/jwks.json`));
  for (const body of [before, after]) {
    await jwtVerify(String(body.id_token), jwks, { issuer: gateway.baseUrl, audience: client.app.id, typ: 'JWT' });
    const response = await fetch(`${gateway.baseUrl}/api/v1/oauth/userinfo`, { headers: { authorization: `Bearer ${String(body.access_token)}` } });
    assert.is(response.status, 200, 'access tokens of both keys are accepted');
  }

  const retiredAt = (await stack.store.signing_keys.findOne({ kid: oldKid }))!.retired_at!;
  assert.type(retiredAt, 'number');
  const publishedAt = (now: number) => gateway.keys.publicJwks(now).map((key) => key.kid);
  assert.ok(publishedAt(retiredAt + RETIRED_KEY_PUBLISHED_MS - 1).includes(oldKid), 'still published just before its last token expires');
  assert.not.ok(publishedAt(retiredAt + RETIRED_KEY_PUBLISHED_MS).includes(oldKid), 'gone once its last token has expired');
  assert.ok(publishedAt(retiredAt + RETIRED_KEY_PUBLISHED_MS).includes(newKid), 'the signing key stays');
});

rotation('rotates from the command line and prints the new kid', async ({ stack, gateway }) => {
  const result = runCli(['keys', 'rotate'], { DATA_DIR: stack.dataDir, LOG_LEVEL: 'silent' });
  assert.is(result.status, 0, result.stderr);
  const { kid } = result.json as { kid: string };
  const record = await stack.store.signing_keys.findOne({ kid });
  assert.ok(record, 'stored');
  assert.is(record!.retired_at, null);
  assert.is(record!.generation, (await stack.store.signing_keys.findOne({}, { sort: { generation: -1 } }))!.generation, 'the newest generation');
  await gateway.keys.reload();
  assert.is(gateway.keys.current().kid, kid, 'signs once the ring is reloaded');
  assert.ok(gateway.keys.publicJwks().some((key) => key.kid === kid));
});

rotation.run();
