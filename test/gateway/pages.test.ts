/**
 * Every server-rendered page (AUTH.md "Consent and sessions"): the security headers, escaping of
 * names an attacker chooses, CSRF on every form post, POST-only actions, the entropy of CSRF tokens
 * and session ids, and hostile form bodies. The page functions are rendered directly and through the
 * real stack.
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { startStack, type TestStack } from '../support/stack.js';
import { CookieJar, signIn } from '../support/browser-session.js';
import { addClientSecret, createApplication, createUser, unionGrant } from '../../gateway/services/accounts.js';
import { hashSecret } from '../../gateway/auth/secrets.js';
import { renderPage, type Brand, type PageOptions } from '../../gateway/pages/layout.js';
import {
  authorizationErrorPage, consentPage, integrationNotConfiguredPage, notReadyPage, privateAppPage,
} from '../../gateway/pages/oauth.js';
import { accountPage, applicationPage, secretCreatedPage } from '../../gateway/pages/account.js';
import { checkEmailPage, providerSignInStoppedPage, signInPage, signUpPage } from '../../gateway/pages/sign-in.js';
import type { ApplicationRecord } from '../../storage/store.js';

interface Context {
  stack: TestStack;
  email: string;
  password: string;
  application: ApplicationRecord;
  secretId: string;
}

const pages = suite<Context>('pages');

const HOSTILE = `<script>alert("x")</script>' onload="boom`;

pages.before(async (context) => {
  context.stack = await startStack();
  context.email = 'pages-owner@example.com';
  context.password = 'pages owner password';
  const owner = await createUser(context.stack.store, { email: context.email, password: context.password, first_name: HOSTILE });
  context.application = await createApplication(context.stack.store, owner.id, { name: HOSTILE, redirect_uris: ['https://hostile.example/cb'] });
  context.secretId = (await addClientSecret(context.stack.store, context.application, HOSTILE)).record.id;
  await unionGrant(context.stack.store, owner.id, context.application.id, ['activities:read']);
});
pages.after(async (context) => {
  await context.stack.close();
});

function assertHeaders(response: Response, label: string): void {
  assert.is(response.headers.get('cache-control'), 'no-store', `${label}: Cache-Control`);
  assert.is(response.headers.get('referrer-policy'), 'no-referrer', `${label}: Referrer-Policy`);
  assert.match(response.headers.get('content-security-policy') ?? '', "frame-ancestors 'none'", `${label}: CSP`);
  assert.is(response.headers.get('x-frame-options'), 'DENY', `${label}: X-Frame-Options`);
  assert.match(response.headers.get('content-type') ?? '', /^text\/html/, `${label}: HTML`);
}

function assertEscaped(markup: string, label: string): void {
  assert.not.match(markup, '<script', `${label}: no script element`);
  assert.not.match(markup, `' onload="boom`, `${label}: no attribute breakout`);
  assert.match(markup, '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onload=&quot;boom', `${label}: shown as text`);
}

async function interactionFor(stack: TestStack, application: ApplicationRecord, sessionId: string | null, request: Record<string, string> = {}): Promise<string> {
  const id = randomBytes(32).toString('base64url');
  await stack.store.interactions.insert({
    id, user_id: null, session_id: sessionId, application_id: application.id, request: { email_auth_mode: 'enabled', ...request },
    expires_at: Date.now() + 600_000, consumed_at: null, created_at: Date.now(),
  });
  return id;
}

pages('every page carries no-store, no-referrer, frame-ancestors none and X-Frame-Options DENY', async (context) => {
  const { stack } = context;
  const anonymous = new CookieJar(stack.baseUrl);
  const interaction = await interactionFor(stack, context.application, null);
  const csrf = await anonymous.csrf();
  const responses: [string, Response][] = [
    ['GET /signin', await anonymous.get('/signin')],
    ['GET /signin branded', await anonymous.get(`/signin?interaction=${interaction}`)],
    ['GET /signup', await anonymous.get('/signup')],
    ['GET /signin/link unusable', await anonymous.get(`/signin/link?token=${'x'.repeat(43)}`)],
    ['POST /signin/password 401', await anonymous.post('/signin/password', { email: 'nobody@example.com', password: 'wrong one', csrf })],
    ['POST /signin/email', await anonymous.post('/signin/email', { email: 'nobody@example.com', csrf })],
    ['POST /signup 422', await anonymous.post('/signup', { email: 'not an email', password: 'x', csrf })],
    ['POST without CSRF 403', await anonymous.post('/signin/password', { email: 'nobody@example.com', password: 'x' })],
  ];
  const owner = await signIn(stack, context.email, context.password);
  responses.push(
    ['GET /account', await owner.get('/account')],
    ['GET /account/applications/:id', await owner.get(`/account/applications/${context.application.id}`)],
    ['GET /account/applications/unknown 404', await owner.get('/account/applications/0000000000000000')],
    ['POST secrets', await owner.post(`/account/applications/${context.application.id}/secrets`, { label: 'headers', csrf: await owner.csrf('/account') })],
  );
  for (const [label, response] of responses) {
    assertHeaders(response, label);
    await response.arrayBuffer();
  }
});

pages('escapes application and user names with markup and quotes, rendered directly', () => {
  const brand: Brand = { name: HOSTILE, image: `https://img.example/a.png" onerror="boom`, color: null };
  const account = { email: `"a"@example.com`, name: HOSTILE };
  const rendered: [string, PageOptions][] = [
    ['consent', consentPage({
      brand, account, lines: [{ title: HOSTILE, detail: HOSTILE, purpose: HOSTILE }], alreadyGranted: [HOSTILE], loopback: true,
      redirectOrigin: HOSTILE, interactionId: HOSTILE, csrfToken: HOSTILE,
    })],
    ['authorization error', authorizationErrorPage({ title: HOSTILE, message: HOSTILE })],
    ['private app', privateAppPage({ brand, account, missing: [HOSTILE] })],
    ['not ready', notReadyPage({ brand, missingPurposes: [HOSTILE] })],
    ['integration', integrationNotConfiguredPage({ brand, provider: HOSTILE })],
    ['sign in', signInPage({ brand, interactionId: HOSTILE, csrfToken: HOSTILE, providers: ['wahoo'], mode: 'enabled', email: HOSTILE, error: { form: 'password', message: HOSTILE } })],
    ['provider sign-in stopped', providerSignInStoppedPage({ title: HOSTILE, message: HOSTILE, interactionId: HOSTILE })],
    ['sign up', signUpPage({ brand, interactionId: HOSTILE, csrfToken: HOSTILE, values: { email: HOSTILE, first_name: HOSTILE, last_name: HOSTILE }, error: HOSTILE })],
    ['check email', checkEmailPage({ brand, interactionId: HOSTILE, email: HOSTILE, minutes: 15 })],
    ['account', accountPage({
      account, csrfToken: HOSTILE, notice: HOSTILE, error: HOSTILE, deletionConfirmation: HOSTILE,
      connected: [{ applicationId: HOSTILE, name: HOSTILE, scopes: [HOSTILE], since: 0 }], owned: [{ id: HOSTILE, name: HOSTILE, isPrivate: true }],
    })],
    ['application', applicationPage({
      application: { id: HOSTILE, name: HOSTILE, redirectUris: [HOSTILE], isPrivate: false }, csrfToken: HOSTILE,
      secrets: [{ id: HOSTILE, label: HOSTILE, hint: HOSTILE, createdAt: 0 }], error: HOSTILE,
    })],
    ['secret created', secretCreatedPage({ application: { id: HOSTILE, name: HOSTILE }, label: HOSTILE, secret: HOSTILE })],
  ];
  for (const [label, options] of rendered) {
    const { body } = renderPage(options);
    assertEscaped(body, label);
    assert.not.match(body, '" onerror="boom', `${label}: image URL attribute stays closed`);
  }
});

pages('escapes a branded application name through /signin?interaction=, and drops a hostile colour or image', async (context) => {
  const { stack } = context;
  const styled = await createApplication(stack.store, context.application.user_id, { name: HOSTILE });
  await stack.store.applications.updateOne({ id: styled.id }, {
    set: { brand_color: 'red}</style><script>alert(1)</script>', image: 'javascript:alert(1)' },
  });
  const interaction = await interactionFor(stack, styled, null);
  const response = await new CookieJar(stack.baseUrl).get(`/signin?interaction=${interaction}`);
  assert.is(response.status, 200);
  const body = await response.text();
  assertEscaped(body, '/signin');
  assert.match(body, 'to continue to &lt;script&gt;', 'branded for the application');
  assert.not.match(body, 'javascript:', 'only https images');
  assert.not.match(body, '</style><script>', 'only #rrggbb colours');

  const coloured = await createApplication(stack.store, context.application.user_id, { name: 'Coloured' });
  await stack.store.applications.updateOne({ id: coloured.id }, { set: { brand_color: '#ff6600' } });
  const colouredPage = await (await new CookieJar(stack.baseUrl).get(`/signin?interaction=${await interactionFor(stack, coloured, null)}`)).text();
  assert.match(colouredPage, ':root{--accent:#ff6600}');
});

pages('existing_only rewords the sign-in screen; an unknown or expired interaction is ignored', async (context) => {
  const { stack } = context;
  const jar = new CookieJar(stack.baseUrl);
  const existing = await interactionFor(stack, context.application, null, { email_auth_mode: 'existing_only' });
  const reworded = await (await jar.get(`/signin?interaction=${existing}`)).text();
  assert.match(reworded, 'Sign in to your existing Threshold account');
  assert.not.match(reworded, 'Sign in or create an account');
  assert.match(reworded, 'action="/signin/email"', 'both ways in remain');
  assert.match(reworded, 'action="/signin/password"');

  const plain = await (await jar.get(`/signin?interaction=${await interactionFor(stack, context.application, null)}`)).text();
  assert.match(plain, 'Sign in or create an account');

  const expired = await interactionFor(stack, context.application, null, { email_auth_mode: 'existing_only' });
  await stack.store.interactions.updateOne({ id: expired }, { set: { expires_at: Date.now() - 1 } });
  const unbranded = await (await jar.get(`/signin?interaction=${expired}`)).text();
  assert.match(unbranded, 'Sign in or create an account');
  assert.not.match(unbranded, 'name="interaction"');
});

pages('the consent page posts a CSRF-protected decision and offers another account', () => {
  const { body } = renderPage(consentPage({
    brand: { name: 'Pace Coach', image: null, color: null }, account: { email: 'ada@example.com', name: 'Ada' },
    lines: [{ title: 'Activities', detail: 'Read your activities', purpose: 'To plan your training.' }], alreadyGranted: ['Your name'],
    loopback: false, redirectOrigin: 'https://coach.example', interactionId: 'abc', csrfToken: 'TOKEN',
  }));
  assert.match(body, '<form method="post" action="/oauth/interaction/abc/decision">');
  assert.match(body, 'name="decision" value="approve"');
  assert.match(body, 'name="decision" value="deny"');
  assert.match(body, '<form method="post" action="/signout"');
  assert.match(body, '<input type="hidden" name="interaction" value="abc">');
  assert.is(body.match(/name="csrf" value="TOKEN"/g)?.length, 2, 'both forms carry the token');
  assert.match(body, 'Already allowed: Your name.');
  assert.not.match(body, 'runs on this device');
  const loopback = renderPage(consentPage({
    brand: { name: 'Local Tool', image: null, color: null }, account: { email: null, name: 'Ada' }, lines: [], alreadyGranted: [],
    loopback: true, redirectOrigin: 'http://127.0.0.1:8765', interactionId: 'abc', csrfToken: 'TOKEN',
  })).body;
  assert.match(loopback, 'This app runs on this device.');
  assert.match(loopback, 'access you already gave it');
  const error = renderPage(authorizationErrorPage({ title: 'Unknown application', message: 'Not registered.' })).body;
  assert.not.match(error, /<a /, 'the error page links nowhere');
});

pages('refuses every form post without the CSRF token or with another session\'s (403, nothing done)', async (context) => {
  const { stack } = context;
  const victim = await signIn(stack, context.email, context.password);
  const attacker = new CookieJar(stack.baseUrl);
  const foreign = await attacker.csrf();
  const app = context.application.id;
  const targets: [string, Record<string, string>][] = [
    ['/signin/password', { email: context.email, password: context.password }],
    ['/signin/email', { email: context.email }],
    ['/signin/link', { token: 'x'.repeat(43) }],
    ['/signup', { email: 'csrf-new@example.com', password: 'long enough password' }],
    ['/signout', {}],
    [`/account/apps/${app}/revoke`, {}],
    [`/account/applications/${app}/secrets`, { label: 'csrf' }],
    [`/account/applications/${app}/secrets/${context.secretId}/delete`, {}],
  ];
  for (const [path, fields] of targets) {
    const missing = await victim.post(path, fields);
    assert.is(missing.status, 403, `${path} without csrf`);
    assertHeaders(missing, path);
    assert.match(await missing.text(), 'This form has expired');
    const wrong = await victim.post(path, { ...fields, csrf: foreign });
    assert.is(wrong.status, 403, `${path} with another session's csrf`);
    await wrong.arrayBuffer();
  }
  assert.is(await stack.store.grants.count({ application_id: app }), 1, 'the grant is still there');
  assert.is(await stack.store.client_secrets.count({ id: context.secretId }), 1, 'the secret is still there');
  assert.is(await stack.store.users.count({ email: 'csrf-new@example.com' }), 0, 'no account was made');
  assert.is((await victim.get('/account')).status, 200, 'still signed in');
});

pages('POST-only actions refuse GET and do nothing', async (context) => {
  const { stack } = context;
  const owner = await signIn(stack, context.email, context.password);
  const app = context.application.id;
  for (const path of [
    '/signin/password', '/signin/email', '/signout', `/account/apps/${app}/revoke`, `/account/applications/${app}/secrets`,
    `/account/applications/${app}/secrets/${context.secretId}/delete`,
  ]) {
    const response = await owner.get(path);
    assert.ok([404, 405].includes(response.status), `GET ${path} got ${response.status}`);
    await response.arrayBuffer();
  }
  assert.is(await stack.store.grants.count({ application_id: app }), 1);
  assert.is(await stack.store.client_secrets.count({ id: context.secretId }), 1);
  assert.is((await owner.get('/account')).status, 200, 'GET /signout did not sign out');
});

pages('CSRF tokens and session ids are 256-bit and unique across many sessions', async ({ stack }) => {
  const tokens = new Set<string>();
  const cookies = new Set<string>();
  const count = 200;
  for (let index = 0; index < count; index++) {
    const jar = new CookieJar(stack.baseUrl);
    const token = await jar.csrf();
    const cookie = jar.cookie('threshold_session')!;
    for (const value of [token, cookie]) {
      assert.match(value, /^[A-Za-z0-9_-]{43}$/, '43 base64url characters = 256 bits');
      assert.is(Buffer.from(value, 'base64url').length, 32);
    }
    tokens.add(token);
    cookies.add(cookie);
  }
  assert.is(tokens.size, count);
  assert.is(cookies.size, count);
  for (const token of tokens) assert.not.ok(cookies.has(token), 'a CSRF token is never a session id');
  // The store holds only hashes of session ids.
  const some = [...cookies].slice(0, 5);
  for (const cookie of some) assert.is(await stack.store.sessions.count({ session_hash: hashSecret(cookie) }), 1);
});

pages('hostile form bodies never cause a 500 and never sign anyone in', async (context) => {
  const { stack } = context;
  const jar = new CookieJar(stack.baseUrl);
  const csrf = await jar.csrf();
  const huge = 'a'.repeat(200_000);
  const bodies: [string, string, string][] = [
    ['/signin/password', 'application/x-www-form-urlencoded', `csrf=${csrf}&email=${encodeURIComponent(context.email)}&email=x&password=${encodeURIComponent(context.password)}`],
    ['/signin/password', 'application/x-www-form-urlencoded', `csrf=${csrf}&email[$ne]=x&password[]=a`],
    ['/signin/password', 'application/x-www-form-urlencoded', `csrf=${csrf}&email=${huge}%40example.com&password=${huge}`],
    ['/signin/password', 'application/json', JSON.stringify({ csrf, email: { $ne: null }, password: ['x'] })],
    ['/signin/password', 'application/json', JSON.stringify([csrf])],
    ['/signin/password', 'application/json', '{"csrf":'],
    ['/signin/email', 'application/x-www-form-urlencoded', `csrf=${csrf}&email=${encodeURIComponent('a@b.co\r\nBcc: x@y.zz')}`],
    ['/signin/email', 'application/x-www-form-urlencoded', `csrf=${csrf}&email[]=a@b.co`],
    ['/signin/link', 'application/x-www-form-urlencoded', `csrf=${csrf}&token[]=x`],
    ['/signin/link', 'application/x-www-form-urlencoded', `csrf=${csrf}&token=${huge}`],
    ['/signup', 'application/x-www-form-urlencoded', `csrf=${csrf}&email=a@b.co&password[]=xxxxxxxxxx&first_name[a]=b`],
    ['/signup', 'application/x-www-form-urlencoded', `csrf=${csrf}&email=new-hostile@example.com&password=longenough&first_name=${huge}`],
    ['/signin/password', 'text/plain', 'csrf=x'],
    ['/signin/password', 'application/x-www-form-urlencoded', `csrf[]=${csrf}&csrf[]=${csrf}`],
  ];
  for (const [path, type, body] of bodies) {
    const response = await jar.fetch(path, { method: 'POST', headers: { 'content-type': type }, body });
    assert.ok(response.status >= 400 && response.status < 500, `${path} ${type} ${body.slice(0, 60)} got ${response.status}`);
    const text = await response.text();
    assert.not.match(text, context.password, 'never echoes the password');
  }
  for (const query of [`?interaction[]=x`, `?interaction=${'x'.repeat(5000)}`, `?token[]=a&token[]=b`]) {
    const response = await jar.get(`/signin${query}`);
    assert.ok(response.status < 500, `/signin${query}`);
    const link = await jar.get(`/signin/link${query}`);
    assert.ok(link.status < 500, `/signin/link${query}`);
  }
  assert.is((await jar.get('/account')).status, 303, 'nobody was signed in');
  assert.is(await stack.store.users.count({ email: 'new-hostile@example.com' }), 0);
});

pages.run();
