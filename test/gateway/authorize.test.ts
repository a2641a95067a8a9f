/**
 * AUTH.md "Authorize" and "Consent and sessions" (the parts that are not sign-in): GET /oauth/authorize
 * and the interaction screens, driven over HTTP with sessions inserted directly.
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { startStack, type TestStack } from '../support/stack.js';
import { sessionFor, type TestSession } from '../support/sessions.js';
import { pkcePair } from '../support/oauth.js';
import { addClientSecret, createApplication, createUser, unionGrant } from '../../gateway/services/accounts.js';
import type { ApplicationRecord } from '../../storage/store.js';

const REDIRECT = 'https://app.example.com/callback';
const PURPOSES = {
  activities: 'We chart your rides and show how your fitness develops.',
  wellness: 'We use your sleep and resting heart rate to plan recovery.',
  email: 'We send you a weekly summary of your training by email.',
  sharing: 'We let your coach see the athletes you share data with.',
  reproductive_health: 'We adapt training load to the phase of your cycle.',
  workouts: 'We send the sessions we plan for you to your watch.',
};

const test = suite<{ stack: TestStack; owner: string }>('authorize');

test.before(async (context) => {
  context.stack = await startStack();
  context.owner = (await createUser(context.stack.store, { email: `owner-${Date.now()}@example.com` })).id;
});
test.after(async (context) => {
  await context.stack.close();
});

interface AppOptions {
  public?: boolean;
  secret?: boolean;
  redirectUris?: string[];
  createdAt?: number;
  purposes?: Record<string, string>;
}

async function makeApp(context: { stack: TestStack; owner: string }, options: AppOptions = {}): Promise<ApplicationRecord> {
  const store = context.stack.store;
  let app = await createApplication(store, context.owner, { name: 'Pacer', redirect_uris: options.redirectUris ?? [REDIRECT] }, options.createdAt);
  if (options.public !== false) {
    app = (await store.applications.updateOne({ id: app.id }, {
      set: {
        description: 'Training charts', url: 'https://app.example.com', image: 'https://app.example.com/logo.png',
        privacy_statement: 'https://app.example.com/privacy', purposes: options.purposes ?? PURPOSES,
      },
    }))!;
  }
  if (options.secret) await addClientSecret(store, app, 'test');
  return app;
}

function authorizeUrl(stack: TestStack, params: Record<string, string | string[] | undefined>): string {
  const url = new URL(`${stack.baseUrl}/oauth/authorize`);
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) url.searchParams.append(name, item);
  }
  return url.href;
}

function baseParams(app: ApplicationRecord, extra: Record<string, string | string[] | undefined> = {}) {
  return { response_type: 'code', client_id: app.id, redirect_uri: REDIRECT, scope: 'activities:read', code_challenge: pkcePair().challenge, code_challenge_method: 'S256', state: 'xyz', ...extra };
}

async function open(url: string, session?: TestSession): Promise<Response> {
  return fetch(url, { redirect: 'manual', headers: session ? { cookie: session.cookie } : {} });
}

function callback(response: Response): URL {
  assert.is(response.status, 303, 'a redirect');
  return new URL(response.headers.get('location')!);
}

async function consentForm(response: Response): Promise<{ action: string; html: string }> {
  assert.is(response.status, 200);
  const html = await response.text();
  const action = /<form[^>]+action="([^"]*\/decision)"/.exec(html)?.[1];
  assert.ok(action, 'the consent form posts a decision');
  return { action: action!.replace(/&amp;/g, '&'), html };
}

async function decide(stack: TestStack, action: string, session: TestSession, fields: Record<string, string>): Promise<Response> {
  return fetch(new URL(action, stack.baseUrl), {
    method: 'POST', redirect: 'manual',
    headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded', origin: stack.baseUrl },
    body: new URLSearchParams(fields).toString(),
  });
}

async function signedIn(context: { stack: TestStack }): Promise<{ userId: string; session: TestSession }> {
  const user = await createUser(context.stack.store, { email: `u-${randomBytes(6).toString('hex')}@example.com`, first_name: 'Ada', last_name: 'Lovelace' });
  return { userId: user.id, session: await sessionFor(context.stack.store, user.id) };
}

// --- client and redirect first ---

test('shows an error page, never a redirect, for an unknown, missing or repeated client_id', async (context) => {
  const app = await makeApp(context);
  for (const params of [
    { ...baseParams(app), client_id: 'no-such-app' },
    { ...baseParams(app), client_id: undefined },
    { ...baseParams(app), client_id: [app.id, app.id] },
    { ...baseParams(app), client_id: 'no-such-app', integration: 'garmin', scope: 'nonsense' },
  ]) {
    const response = await open(authorizeUrl(context.stack, params));
    assert.is(response.status, 400);
    assert.is(response.headers.get('location'), null);
    assert.match(response.headers.get('content-type') ?? '', /text\/html/);
    assert.not.match(await response.text(), 'app.example.com/callback', 'the page never links back to the unverified redirect');
  }
});

test('shows an error page, never a redirect, for a missing, repeated or unregistered redirect_uri', async (context) => {
  const app = await makeApp(context);
  for (const redirect of [undefined, [REDIRECT, REDIRECT], 'https://evil.example.com/callback', `${REDIRECT}x`, 'https://app.example.com/callback/../admin', `${REDIRECT}#frag`]) {
    const response = await open(authorizeUrl(context.stack, { ...baseParams(app), redirect_uri: redirect, scope: 'nonsense' }));
    assert.is(response.status, 400, String(redirect));
    assert.is(response.headers.get('location'), null);
  }
});

test('answers 422 for a misspelled integration or email_auth_mode once the client is known', async (context) => {
  const app = await makeApp(context);
  const response = await open(authorizeUrl(context.stack, baseParams(app, { integration: 'garmin' })));
  assert.is(response.status, 422);
  const body = (await response.json()) as { detail: { loc: string[] }[] };
  assert.equal(body.detail[0]!.loc, ['query', 'integration']);
  const mode = await open(authorizeUrl(context.stack, baseParams(app, { email_auth_mode: 'existing' })));
  assert.is(mode.status, 422);
  assert.equal(((await mode.json()) as { detail: { loc: string[] }[] }).detail[0]!.loc, ['query', 'email_auth_mode']);
  const twice = await open(authorizeUrl(context.stack, baseParams(app, { integration: ['wahoo', 'wahoo'] })));
  assert.is(twice.status, 422);
});

test('shows a clear page for a known integration whose provider is not configured', async (context) => {
  const app = await makeApp(context);
  const response = await open(authorizeUrl(context.stack, baseParams(app, { integration: 'garmin_connect' })));
  assert.is(response.status, 501);
  assert.match(await response.text(), 'Garmin Connect');
});

// --- error redirects carry state and iss ---

test('returns state byte-identical and iss on an error redirect', async (context) => {
  const app = await makeApp(context);
  const state = 'a b+c/%20&x=ü😀=="\'<>';
  const location = callback(await open(authorizeUrl(context.stack, baseParams(app, { state, scope: 'activities:read nonsense' }))));
  assert.is(location.searchParams.get('error'), 'invalid_scope');
  assert.is(location.searchParams.get('state'), state);
  assert.is(location.searchParams.get('iss'), context.stack.baseUrl);
  assert.is(`${location.origin}${location.pathname}`, REDIRECT);
});

test('refuses PKCE plain, a missing method and malformed challenges with invalid_request', async (context) => {
  const app = await makeApp(context);
  const good = pkcePair().challenge;
  for (const extra of [
    { code_challenge: good, code_challenge_method: 'plain' },
    { code_challenge: good, code_challenge_method: undefined },
    { code_challenge: good.slice(1), code_challenge_method: 'S256' },
    { code_challenge: `${good}=`, code_challenge_method: 'S256' },
    { code_challenge: good.replace(/.$/, '+'), code_challenge_method: 'S256' },
    { code_challenge: undefined, code_challenge_method: 'S256' },
  ]) {
    const location = callback(await open(authorizeUrl(context.stack, { ...baseParams(app), ...extra })));
    assert.is(location.searchParams.get('error'), 'invalid_request', JSON.stringify(extra));
    assert.is(location.searchParams.get('state'), 'xyz');
    assert.is(location.searchParams.get('iss'), context.stack.baseUrl);
  }
});

test('requires PKCE from a client without a secret, and not from one with a secret', async (context) => {
  const publicApp = await makeApp(context);
  const location = callback(await open(authorizeUrl(context.stack, baseParams(publicApp, { code_challenge: undefined, code_challenge_method: undefined }))));
  assert.is(location.searchParams.get('error'), 'invalid_request');
  const confidential = await makeApp(context, { secret: true });
  const response = await open(authorizeUrl(context.stack, baseParams(confidential, { code_challenge: undefined, code_challenge_method: undefined })));
  assert.is(response.status, 303);
  assert.match(response.headers.get('location')!, /^\/signin\?interaction=/);
});

test('reads legacy bundles for an application created before the scope release, and refuses them otherwise', async (context) => {
  const legacy = await makeApp(context, { createdAt: Date.parse('2024-03-01T00:00:00Z') });
  const { session } = await signedIn(context);
  const response = await open(authorizeUrl(context.stack, baseParams(legacy, { scope: 'data:read,profile' })), session);
  const { html } = await consentForm(response);
  assert.match(html, 'Your activities');
  assert.match(html, 'Your email address', 'profile with a bundle stands for openid profile email sharing');
  const fresh = await makeApp(context);
  const location = callback(await open(authorizeUrl(context.stack, baseParams(fresh, { scope: 'data:read' })), session));
  assert.is(location.searchParams.get('error'), 'invalid_scope');
  assert.is(location.searchParams.get('iss'), context.stack.baseUrl);
});

test('ignores parameters it does not know, and does not validate response_type', async (context) => {
  const app = await makeApp(context);
  const response = await open(authorizeUrl(context.stack, baseParams(app, { response_type: 'token', foo: 'bar', request: 'eyJ' })));
  assert.is(response.status, 303);
  assert.match(response.headers.get('location')!, /^\/signin\?interaction=[A-Za-z0-9_-]{43}$/);
});

// --- prompt against session and grant state ---

test('handles every prompt value against every session and grant state', async (context) => {
  const app = await makeApp(context);
  const loopbackApp = await makeApp(context, { redirectUris: ['http://127.0.0.1/callback'] });
  for (const prompt of [undefined, 'none', 'consent', 'login', 'select_account']) {
    for (const grantState of ['none', 'partial', 'full'] as const) {
      for (const signedInState of [false, true]) {
        for (const target of [app, loopbackApp]) {
          const { userId, session: userSession } = await signedIn(context);
          const session = signedInState ? userSession : await sessionFor(context.stack.store, null);
          if (grantState !== 'none') {
            await unionGrant(context.stack.store, userId, target.id, grantState === 'full' ? ['activities:read', 'wellness:read', 'openid', 'profile'] : ['activities:read']);
          }
          const redirect = target === app ? REDIRECT : 'http://127.0.0.1:53124/callback';
          const label = `prompt=${prompt} grant=${grantState} signed-in=${signedInState} ${target === app ? 'https' : 'loopback'}`;
          const response = await open(authorizeUrl(context.stack, baseParams(target, { prompt, redirect_uri: redirect, scope: 'activities:read wellness:read' })), session);
          if (!signedInState) {
            assert.is(response.status, 303, label);
            assert.match(response.headers.get('location')!, /^\/signin\?interaction=/, `${label}: the sign-in screen, never login_required`);
          } else if (prompt === 'none' && grantState === 'full' && target === app) {
            const location = callback(response);
            assert.ok(location.searchParams.get('code'), `${label}: consent skipped`);
            assert.is(location.searchParams.get('state'), 'xyz');
            assert.is(location.searchParams.get('iss'), context.stack.baseUrl);
          } else {
            const { html } = await consentForm(response);
            assert.not.match(html, 'consent_required', label);
            if (target !== app) assert.match(html.toLowerCase(), 'this device', `${label}: loopback warning`);
          }
        }
      }
    }
  }
});

test('refuses a prompt value it does not define and prompt=none mixed with others', async (context) => {
  const app = await makeApp(context);
  for (const prompt of ['bogus', 'none consent']) {
    const location = callback(await open(authorizeUrl(context.stack, baseParams(app, { prompt }))));
    assert.is(location.searchParams.get('error'), 'invalid_request', prompt);
  }
});

// --- private and not-ready pages ---

test('shows a private app to others as a still-private page naming the account and what is missing', async (context) => {
  const app = await makeApp(context, { public: false });
  const { session } = await signedIn(context);
  const response = await open(authorizeUrl(context.stack, baseParams(app)), session);
  assert.is(response.status, 403);
  const html = await response.text();
  assert.match(html, 'Pacer');
  assert.match(html, 'Ada Lovelace');
  for (const field of ['description', 'website', 'image', 'privacy']) assert.match(html, field);
  const ownerSession = await sessionFor(context.stack.store, context.owner);
  await consentForm(await open(authorizeUrl(context.stack, baseParams(app)), ownerSession));
});

test('shows the not-ready page when a public app lacks a purpose for a requested category', async (context) => {
  const app = await makeApp(context, { purposes: { activities: PURPOSES.activities } });
  const { session } = await signedIn(context);
  const response = await open(authorizeUrl(context.stack, baseParams(app, { scope: 'activities:read wellness:read' })), session);
  assert.is(response.status, 403);
  assert.match(await response.text(), 'wellness', 'names the unexplained category');
  const ok = await open(authorizeUrl(context.stack, baseParams(app, { scope: 'activities:read openid profile offline_access' })), session);
  const { html } = await consentForm(ok);
  assert.match(html, PURPOSES.activities, 'the purpose sentence is the purpose line');
});

// --- consent ---

test('shows only categories not yet granted, and the grant becomes the union and never shrinks', async (context) => {
  const app = await makeApp(context);
  const { userId, session } = await signedIn(context);
  await unionGrant(context.stack.store, userId, app.id, ['activities:read', 'openid', 'profile']);
  const { html, action } = await consentForm(await open(authorizeUrl(context.stack, baseParams(app, { scope: 'activities:read wellness:read' })), session));
  assert.match(html, 'Your daily wellness measures');
  assert.not.match(html, PURPOSES.activities, 'an already granted category is not shown again as a line');
  const location = callback(await decide(context.stack, action, session, { csrf: session.csrf, decision: 'approve' }));
  assert.ok(location.searchParams.get('code'));
  const grant = await context.stack.store.grants.findOne({ user_id: userId, application_id: app.id });
  assert.equal([...grant!.scopes].sort(), ['activities:read', 'openid', 'profile', 'wellness:read']);

  const again = await consentForm(await open(authorizeUrl(context.stack, baseParams(app, { scope: 'workouts:read', state: 's2' })), session));
  callback(await decide(context.stack, again.action, session, { csrf: session.csrf, decision: 'approve' }));
  const after = await context.stack.store.grants.findOne({ user_id: userId, application_id: app.id });
  assert.equal([...after!.scopes].sort(), ['activities:read', 'openid', 'profile', 'wellness:read', 'workouts:read']);
});

test('answers a denial with access_denied, state and iss, and grants nothing', async (context) => {
  const app = await makeApp(context);
  const { userId, session } = await signedIn(context);
  const { action } = await consentForm(await open(authorizeUrl(context.stack, baseParams(app, { state: 'deny-me' })), session));
  const location = callback(await decide(context.stack, action, session, { csrf: session.csrf, decision: 'deny' }));
  assert.is(location.searchParams.get('error'), 'access_denied');
  assert.is(location.searchParams.get('state'), 'deny-me');
  assert.is(location.searchParams.get('iss'), context.stack.baseUrl);
  assert.is(location.searchParams.get('code'), null);
  assert.is(await context.stack.store.grants.findOne({ user_id: userId, application_id: app.id }), null);
});

test('refuses a decision with a missing CSRF token or one from another session', async (context) => {
  const app = await makeApp(context);
  const { userId, session } = await signedIn(context);
  const other = await sessionFor(context.stack.store, userId);
  const { action } = await consentForm(await open(authorizeUrl(context.stack, baseParams(app)), session));
  for (const fields of [{ decision: 'approve' }, { csrf: other.csrf, decision: 'approve' }, { csrf: '', decision: 'approve' }] as Record<string, string>[]) {
    const response = await decide(context.stack, action, session, fields);
    assert.is(response.status, 403);
    assert.is(response.headers.get('location'), null);
  }
  // The same user's other session (another browser) cannot answer this one's request either.
  const response = await decide(context.stack, action, other, { csrf: other.csrf, decision: 'approve' });
  assert.is(response.status, 403);
  // Still answerable from the right session.
  callback(await decide(context.stack, action, session, { csrf: session.csrf, decision: 'approve' }));
});

test('refuses a decision after another account signed in, and interactions across users', async (context) => {
  const app = await makeApp(context);
  const first = await signedIn(context);
  const { action } = await consentForm(await open(authorizeUrl(context.stack, baseParams(app)), first.session));
  // A second user's session in the same browser: simulated by moving the interaction, as sign-in does.
  const second = await signedIn(context);
  const interactionId = /interaction\/([^/]+)\/decision/.exec(action)![1]!;
  await context.stack.store.interactions.updateOne({ id: interactionId }, { set: { session_id: second.session.id } });
  const response = await decide(context.stack, action, second.session, { csrf: second.session.csrf, decision: 'approve' });
  assert.is(response.status, 403);
  assert.is(await context.stack.store.grants.findOne({ user_id: second.userId, application_id: app.id }), null);
});

test('accepts a decision once: double and concurrent submissions get exactly one code', async (context) => {
  const app = await makeApp(context);
  const { session } = await signedIn(context);
  const { action } = await consentForm(await open(authorizeUrl(context.stack, baseParams(app)), session));
  const responses = await Promise.all(Array.from({ length: 6 }, () => decide(context.stack, action, session, { csrf: session.csrf, decision: 'approve' })));
  assert.is(responses.filter((response) => response.status === 303).length, 1);
  assert.ok(responses.every((response) => response.status === 303 || response.status === 409 || response.status === 400));
  const late = await decide(context.stack, action, session, { csrf: session.csrf, decision: 'approve' });
  assert.not.equal(late.status, 303);
});

test('never approves through GET', async (context) => {
  const app = await makeApp(context);
  const { session } = await signedIn(context);
  const { action } = await consentForm(await open(authorizeUrl(context.stack, baseParams(app)), session));
  const url = new URL(action, context.stack.baseUrl);
  url.searchParams.set('csrf', session.csrf);
  url.searchParams.set('decision', 'approve');
  const response = await open(url.href, session);
  assert.ok(response.status === 404 || response.status === 405, `status ${response.status}`);
  assert.is(response.headers.get('location'), null);
});

test('refuses an expired interaction', async (context) => {
  const app = await makeApp(context);
  const { session } = await signedIn(context);
  const { action } = await consentForm(await open(authorizeUrl(context.stack, baseParams(app)), session));
  const interactionId = /interaction\/([^/]+)\/decision/.exec(action)![1]!;
  await context.stack.store.interactions.updateOne({ id: interactionId }, { set: { expires_at: Date.now() - 1 } });
  const response = await decide(context.stack, action, session, { csrf: session.csrf, decision: 'approve' });
  assert.is(response.status, 400);
  assert.is(response.headers.get('location'), null);
});

test('treats an expired session as signed out', async (context) => {
  const app = await makeApp(context);
  const { userId } = await signedIn(context);
  const stale = await sessionFor(context.stack.store, userId, Date.now() - 2 * 3_600_000);
  const response = await open(authorizeUrl(context.stack, baseParams(app)), stale);
  assert.is(response.status, 303);
  assert.match(response.headers.get('location')!, /^\/signin\?interaction=/);
});

test('sends consent and authorize pages with no-store, no-referrer and frame-ancestors none', async (context) => {
  const app = await makeApp(context);
  const { session } = await signedIn(context);
  const consent = await open(authorizeUrl(context.stack, baseParams(app)), session);
  const error = await open(authorizeUrl(context.stack, { ...baseParams(app), client_id: 'nope' }));
  for (const response of [consent, error]) {
    assert.is(response.headers.get('cache-control'), 'no-store');
    assert.is(response.headers.get('referrer-policy'), 'no-referrer');
    assert.match(response.headers.get('content-security-policy') ?? '', "frame-ancestors 'none'");
    assert.is(response.headers.get('x-frame-options'), 'DENY');
  }
});

test('gives interaction ids of 256 bits, all different', async (context) => {
  const app = await makeApp(context);
  const ids = new Set<string>();
  for (let index = 0; index < 50; index++) {
    const response = await open(authorizeUrl(context.stack, baseParams(app)));
    const id = /interaction=([A-Za-z0-9_-]+)/.exec(response.headers.get('location')!)![1]!;
    assert.is(Buffer.from(id, 'base64url').length, 32);
    ids.add(id);
  }
  assert.is(ids.size, 50);
});

// --- revoking through the API ---

test('revokes an app through the API: every token of the grant ends at once, and for good', async (context) => {
  const app = await makeApp(context);
  const other = await makeApp(context);
  const { userId, token: appToken } = await context.stack.userWithToken(['activities:read'], { appId: app.id });
  const { token: personal } = await context.stack.userWithToken([], { userId });
  const { token: otherToken } = await context.stack.userWithToken(['activities:read'], { appId: other.id, userId });
  assert.is((await context.stack.get('/api/v1/activities/', appToken)).status, 200);

  const listed = await context.stack.get('/api/v1/oauth/grants', personal);
  assert.equal(((await listed.json()) as { application_id: string }[]).map((grant) => grant.application_id).sort(), [app.id, other.id].sort());
  const own = await context.stack.get('/api/v1/oauth/grants', otherToken);
  assert.equal(((await own.json()) as { application_id: string }[]).map((grant) => grant.application_id), [other.id]);

  const refused = await fetch(`${context.stack.baseUrl}/api/v1/oauth/grants/${app.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${otherToken}` } });
  assert.is(refused.status, 403);
  const revoked = await fetch(`${context.stack.baseUrl}/api/v1/oauth/grants/${app.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${personal}` } });
  assert.is(revoked.status, 200);
  assert.is((await context.stack.get('/api/v1/activities/', appToken)).status, 401);
  assert.is((await context.stack.get('/api/v1/activities/', otherToken)).status, 200);
  const again = await fetch(`${context.stack.baseUrl}/api/v1/oauth/grants/${app.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${personal}` } });
  assert.is(again.status, 404);
  // Connecting the app again makes a new grant; the tokens of the revoked one stay dead.
  const { token: reconnected } = await context.stack.userWithToken(['activities:read'], { appId: app.id, userId });
  assert.is((await context.stack.get('/api/v1/activities/', reconnected)).status, 200);
  assert.is((await context.stack.get('/api/v1/activities/', appToken)).status, 401);
});

test.run();
