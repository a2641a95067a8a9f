/**
 * Interoperability with a certified OpenID relying-party library (openid-client), against the service
 * started exactly as `npm start` starts it (`threshold serve`, its own process, a fresh data directory).
 * The library does discovery, builds the authorization URL, checks the callback (state, iss), redeems
 * the code (PKCE or client secret), validates the ID token against the JWKS (nonce, aud, iss), refreshes
 * and reads userinfo. The person in the middle (sign-in and consent) is played over HTTP by a cookie jar.
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import * as client from 'openid-client';
import { startProcess, runCli, type RunningProcess } from '../support/processes.js';
import { tempDir } from '../support/stack.js';
import { CookieJar, csrfFrom } from '../support/browser-session.js';

interface Context {
  service: RunningProcess;
  dataDir: string;
  env: Record<string, string>;
  baseUrl: string;
  userId: string;
  /** Every credential the flows saw, checked against the service's log at the end. */
  seen: string[];
}

const EMAIL = 'rider@example.com';
const PASSWORD = 'a long enough passphrase';

const interop = suite<Context>('openid-client against threshold serve');

interop.before(async (context) => {
  context.dataDir = tempDir();
  context.env = { PORT: '0', HOST: '127.0.0.1', ENGINE_ADDRESS: '127.0.0.1:0', ENGINE_THREADS: '1', DATA_DIR: context.dataDir, LOG_LEVEL: 'info' };
  context.service = startProcess('dist/cli/threshold.js', context.env, ['serve']);
  const running = await context.service.waitForLog((line) => line.msg === 'threshold is running', 60_000);
  context.baseUrl = String(running.url);
  context.seen = [PASSWORD];
  const user = runCli(['user', 'create', '--email', EMAIL, '--password', PASSWORD, '--first-name', 'Rae'], context.env);
  assert.is(user.status, 0, user.stderr);
  context.userId = (user.json as { id: string }).id;
});
interop.after(async (context) => {
  await context.service?.stop();
  fs.rmSync(context.dataDir, { recursive: true, force: true });
});

function createApp(context: Context, redirectUri: string, secret: boolean): { id: string; client_secret: string | null } {
  const result = runCli(['app', 'create', '--owner', context.userId, '--name', 'Relying Party', '--redirect-uri', redirectUri, ...(secret ? ['--secret'] : [])], context.env);
  assert.is(result.status, 0, result.stderr);
  const app = result.json as { id: string; client_secret: string | null };
  if (app.client_secret) context.seen.push(app.client_secret);
  return app;
}

/** The person: signs in with a password when asked and allows the request; returns the callback URL. */
async function actAsUser(jar: CookieJar, authorizationUrl: URL, redirectUri: string, email = EMAIL): Promise<URL> {
  let response = await jar.get(authorizationUrl.href);
  for (let step = 0; step < 10; step++) {
    if (response.status === 303) {
      const location = response.headers.get('location')!;
      if (location.startsWith(redirectUri)) return new URL(location);
      response = await jar.get(location);
      continue;
    }
    const html = await response.text();
    if (html.includes('action="/signin/password"')) {
      const interaction = /name="interaction" value="([^"]+)"/.exec(html)![1]!;
      response = await jar.post('/signin/password', { email, password: PASSWORD, csrf: csrfFrom(html), interaction });
      continue;
    }
    const decision = /action="([^"]*\/decision)"/.exec(html)?.[1];
    if (decision) {
      response = await jar.post(decision, { csrf: csrfFrom(html), decision: 'approve' });
      continue;
    }
    throw new Error(`unexpected page ${response.status}: ${html.slice(0, 400)}`);
  }
  throw new Error('the flow did not come back to the redirect URI');
}

/** The person revokes the app on their account page. */
async function revokeOnAccountPage(jar: CookieJar, applicationId: string): Promise<void> {
  const csrf = await jar.csrf('/account');
  const response = await jar.post(`/account/apps/${applicationId}/revoke`, { csrf });
  assert.is(response.status, 303);
}

async function runFlow(context: Context, config: client.Configuration, redirectUri: string, options: { pkce: boolean; scope: string }) {
  const state = client.randomState();
  const nonce = client.randomNonce();
  const verifier = client.randomPKCECodeVerifier();
  const parameters: Record<string, string> = { redirect_uri: redirectUri, scope: options.scope, state, nonce };
  if (options.pkce) {
    parameters.code_challenge = await client.calculatePKCECodeChallenge(verifier);
    parameters.code_challenge_method = 'S256';
  }
  const jar = new CookieJar(context.baseUrl);
  const callback = await actAsUser(jar, client.buildAuthorizationUrl(config, parameters), redirectUri);
  const tokens = await client.authorizationCodeGrant(config, callback, {
    expectedState: state, expectedNonce: nonce, idTokenExpected: true, ...(options.pkce && { pkceCodeVerifier: verifier }),
  });
  context.seen.push(callback.searchParams.get('code')!, verifier, tokens.access_token, tokens.id_token!, ...(tokens.refresh_token ? [tokens.refresh_token] : []));
  for (const cookie of jar.cookies.values()) context.seen.push(cookie);
  return { jar, tokens };
}

async function refreshTwiceAndReadUserinfo(config: client.Configuration, tokens: client.TokenEndpointResponse & client.TokenEndpointResponseHelpers, userId: string) {
  const claims = tokens.claims()!;
  assert.is(claims.sub, userId, 'the ID token names the user');
  assert.ok(tokens.refresh_token, 'a refresh token was issued');
  for (let round = 0; round < 2; round++) {
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    assert.ok(refreshed.access_token);
    assert.is(refreshed.refresh_token, tokens.refresh_token, 'refresh tokens do not rotate');
    assert.is(refreshed.expires_in, 900);
  }
  const userinfo = await client.fetchUserInfo(config, tokens.access_token, userId);
  assert.is(userinfo.sub, userId);
  assert.is(userinfo.given_name, 'Rae');
}

async function assertRefused(config: client.Configuration, tokens: client.TokenEndpointResponse, userId: string): Promise<void> {
  try {
    await client.refreshTokenGrant(config, tokens.refresh_token!);
    assert.unreachable('refresh after revocation must fail');
  } catch (error) {
    assert.instance(error, client.ResponseBodyError);
    assert.is((error as client.ResponseBodyError).error, 'invalid_grant');
  }
  try {
    await client.fetchUserInfo(config, tokens.access_token, userId);
    assert.unreachable('userinfo after revocation must fail');
  } catch (error) {
    assert.ok(error instanceof client.WWWAuthenticateChallengeError || error instanceof client.ResponseBodyError, String(error));
    assert.is((error as { status?: number }).status, 401);
  }
}

interop('a public client with PKCE: code, ID token, two refreshes with one refresh token, userinfo, refused after revocation', async (context) => {
  const redirectUri = 'http://127.0.0.1:8123/callback';
  const app = createApp(context, 'http://127.0.0.1/callback', false);
  const config = await client.discovery(new URL(context.baseUrl), app.id, undefined, client.None(), { execute: [client.allowInsecureRequests] });
  assert.is(config.serverMetadata().issuer, context.baseUrl);
  const { jar, tokens } = await runFlow(context, config, redirectUri, { pkce: true, scope: 'openid profile activities:read offline_access' });
  await refreshTwiceAndReadUserinfo(config, tokens, context.userId);
  await revokeOnAccountPage(jar, app.id);
  await assertRefused(config, tokens, context.userId);
});

interop('a confidential client with a client secret (HTTP Basic): the same, without PKCE', async (context) => {
  const redirectUri = 'https://rp.example.com/callback';
  const app = createApp(context, redirectUri, true);
  assert.ok(app.client_secret);
  const config = await client.discovery(new URL(context.baseUrl), app.id, undefined, client.ClientSecretBasic(app.client_secret!), { execute: [client.allowInsecureRequests] });
  const { jar, tokens } = await runFlow(context, config, redirectUri, { pkce: false, scope: 'openid profile activities:read' });
  await refreshTwiceAndReadUserinfo(config, tokens, context.userId);
  await revokeOnAccountPage(jar, app.id);
  await assertRefused(config, tokens, context.userId);
});

interop('a confidential client posting its secret in the body works too', async (context) => {
  const redirectUri = 'https://rp.example.com/post-callback';
  const app = createApp(context, redirectUri, true);
  const config = await client.discovery(new URL(context.baseUrl), app.id, undefined, client.ClientSecretPost(app.client_secret!), { execute: [client.allowInsecureRequests] });
  const { tokens } = await runFlow(context, config, redirectUri, { pkce: false, scope: 'openid activities:read' });
  await refreshTwiceAndReadUserinfo(config, tokens, context.userId);
});

interop('the official client\'s imported legacy application: data:read data:write profile offline_access for another user, by PKCE on loopback', async (context) => {
  // gaps.md: "the official Python client uses a public application with id 5382f68b0d254378 and the legacy defaults".
  const purposes = ['activities', 'wellness', 'reproductive_health', 'workouts', 'sharing', 'email']
    .flatMap((category) => ['--purpose', `${category}=The official client shows your ${category.replace('_', ' ')} data to you.`]);
  const imported = runCli([
    'app', 'create', '--owner', context.userId, '--name', 'Official client', '--id', '5382f68b0d254378', '--created-at', '2024-06-01T00:00:00Z',
    '--description', 'The official client library', '--url', 'https://client.example.com', '--image', 'https://client.example.com/logo.png',
    '--privacy-statement', 'https://client.example.com/privacy', '--redirect-uri', 'http://localhost', '--redirect-uri', 'http://127.0.0.1', ...purposes,
  ], context.env);
  assert.is(imported.status, 0, imported.stderr);
  const athlete = runCli(['user', 'create', '--email', 'athlete@example.com', '--password', PASSWORD, '--first-name', 'Rae'], context.env);
  const athleteId = (athlete.json as { id: string }).id;
  const config = await client.discovery(new URL(context.baseUrl), '5382f68b0d254378', undefined, client.None(), { execute: [client.allowInsecureRequests] });
  const redirectUri = 'http://localhost:8400/auth/callback';
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri, scope: 'data:read data:write profile offline_access', state,
    code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
  });
  const callback = await actAsUser(new CookieJar(context.baseUrl), url, redirectUri, 'athlete@example.com');
  const tokens = await client.authorizationCodeGrant(config, callback, { expectedState: state, pkceCodeVerifier: verifier });
  context.seen.push(tokens.access_token, tokens.refresh_token!);
  assert.equal(tokens.scope!.split(' ').sort(), [
    'activities:read', 'activities:write', 'email', 'offline_access', 'openid', 'profile', 'reproductive_health:read', 'reproductive_health:write',
    'sharing:read', 'sharing:write', 'wellness:read', 'wellness:write', 'workouts:read', 'workouts:write',
  ]);
  const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
  const userinfo = await client.fetchUserInfo(config, refreshed.access_token, athleteId);
  assert.is(userinfo.email, 'athlete@example.com');
});

interop('writes no password, secret, code, cookie or token to its log', async (context) => {
  const log = context.service.output();
  assert.ok(log.includes('"msg":"request"'), 'the service did log the requests');
  assert.ok(context.seen.length >= 10);
  for (const secret of context.seen) assert.not.ok(log.includes(secret), `a credential (${secret.slice(0, 6)}…) is in the log`);
});

interop.run();
