/**
 * The whole flow in a real browser (AUTH.md: pages are tested in headless Chromium): sign up, authorize,
 * consent, code, token, refresh, userinfo, revoke. The relying party is a small HTTP server on
 * loopback that receives the callback; the test plays its back end against the token endpoint.
 * Screenshots of every screen, on a desktop and a phone viewport, land in test-artifacts/screenshots/.
 */
import { skipUnless, suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import http from 'node:http';
import path from 'node:path';
import { once } from 'node:events';
import { createHash, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { startStack, type TestStack } from '../support/stack.js';
import { ARTIFACTS, chromiumMissing, launchChromium } from '../support/chromium.js';
import { createApplication, createUser } from '../../gateway/services/accounts.js';

interface Context {
  stack: TestStack;
  browser: Browser;
  rp: http.Server;
  rpUrl: string;
  callbacks: URL[];
}

const flow = suite<Context>('browser oauth flow');
skipUnless(chromiumMissing(), flow);

flow.before(async (context) => {
  context.stack = await startStack();
  context.browser = await launchChromium();
  context.callbacks = [];
  context.rp = http.createServer((request, response) => {
    const url = new URL(request.url!, context.rpUrl);
    if (url.pathname === '/callback') context.callbacks.push(url); // not the browser's /favicon.ico
    response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Pacer</title><h1>Connected</h1>');
  });
  context.rp.listen(0, '127.0.0.1');
  await once(context.rp, 'listening');
  context.rpUrl = `http://127.0.0.1:${(context.rp.address() as AddressInfo).port}`;
});
flow.after(async (context) => {
  await context.browser?.close();
  context.rp?.close();
  await context.stack?.close();
});

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

async function publicApp(stack: TestStack, redirectUri: string) {
  const owner = await createUser(stack.store, { email: `dev-${randomBytes(4).toString('hex')}@example.com` });
  const app = await createApplication(stack.store, owner.id, { name: 'Pacer <Training>', redirect_uris: [redirectUri] });
  return (await stack.store.applications.updateOne({ id: app.id }, {
    set: {
      description: 'Training charts', url: 'https://pacer.example.com', image: 'https://pacer.example.com/logo.png',
      privacy_statement: 'https://pacer.example.com/privacy', brand_color: '#0e7c66',
      purposes: { activities: 'We chart your rides and show how your fitness develops over the season.', wellness: 'We use resting heart rate and sleep to suggest easier days.' },
    },
  }))!;
}

async function exchange(stack: TestStack, form: Record<string, string>): Promise<Response> {
  return fetch(`${stack.baseUrl}/api/v1/oauth/token`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString(),
  });
}

flow('signs up, consents, gets a code, exchanges, refreshes, reads userinfo and revokes, in Chromium', async (context) => {
  const { stack } = context;
  const redirectUri = `${context.rpUrl}/callback`;
  const app = await publicApp(stack, redirectUri);
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const state = `st-${randomBytes(8).toString('hex')}`;
  const nonce = `n-${randomBytes(8).toString('hex')}`;
  const authorize = new URL(`${stack.baseUrl}/oauth/authorize`);
  for (const [name, value] of Object.entries({
    response_type: 'code', client_id: app.id, redirect_uri: redirectUri, scope: 'activities:read wellness:read offline_access',
    state, nonce, code_challenge: challenge, code_challenge_method: 'S256',
  })) authorize.searchParams.set(name, value);

  for (const viewport of [{ name: 'desktop', width: 1280, height: 900 }, { name: 'phone', width: 390, height: 844 }]) {
    const page = await context.browser.newPage({ viewport: { width: viewport.width, height: viewport.height } });
    const email = `athlete-${viewport.name}-${randomBytes(4).toString('hex')}@example.com`;

    await page.goto(authorize.href);
    assert.match(page.url(), /\/signin\?interaction=/);
    assert.match(await page.content(), 'Pacer &lt;Training&gt;', 'the app name is shown, escaped');
    await shot(page, `${viewport.name}-1-sign-in`);

    await page.click('a[href^="/signup"]');
    await shot(page, `${viewport.name}-2-sign-up`);
    await page.fill('form[action="/signup"] input[name="email"]', email);
    await page.fill('form[action="/signup"] input[name="password"]', 'correct horse battery staple');
    const firstName = page.locator('form[action="/signup"] input[name="first_name"]');
    if (await firstName.count()) await firstName.fill('Ada');
    await Promise.all([page.waitForURL(/\/oauth\/interaction\//), page.click('form[action="/signup"] button[type="submit"]')]);

    const consent = await page.content();
    assert.match(consent, 'We chart your rides', 'the purpose sentence is shown');
    assert.match(consent, 'We use resting heart rate');
    await shot(page, `${viewport.name}-3-consent`);

    const callbacksBefore = context.callbacks.length;
    await Promise.all([page.waitForURL(`${redirectUri}**`), page.click('button[name="decision"][value="approve"]')]);
    assert.is(context.callbacks.length, callbacksBefore + 1);
    const callback = context.callbacks.at(-1)!;
    assert.is(callback.searchParams.get('state'), state);
    assert.is(callback.searchParams.get('iss'), stack.baseUrl);
    const code = callback.searchParams.get('code')!;
    assert.ok(code);

    const tokens = (await (await exchange(stack, {
      grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: app.id, code_verifier: verifier,
    })).json()) as { access_token: string; refresh_token: string; id_token: string; scope: string };
    assert.ok(tokens.access_token && tokens.refresh_token && tokens.id_token, JSON.stringify(tokens));
    for (let round = 0; round < 2; round++) {
      const refreshed = await exchange(stack, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: app.id });
      assert.is(refreshed.status, 200, 'the same refresh token works again');
    }
    const userinfo = (await (await stack.get('/api/v1/oauth/userinfo', tokens.access_token)).json()) as { sub: string; email?: string };
    assert.ok(userinfo.sub);
    assert.is(userinfo.email, undefined, 'no email scope, no email');

    await page.goto(`${stack.baseUrl}/account`);
    assert.match(await page.content(), 'Pacer &lt;Training&gt;');
    await shot(page, `${viewport.name}-4-account`);
    await Promise.all([page.waitForURL(/\/account/), page.click(`form[action="/account/apps/${app.id}/revoke"] button`)]);
    await shot(page, `${viewport.name}-5-revoked`);

    const afterRevoke = await exchange(stack, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: app.id });
    assert.is(afterRevoke.status, 400);
    assert.is(((await afterRevoke.json()) as { error: string }).error, 'invalid_grant');
    assert.is((await stack.get('/api/v1/oauth/userinfo', tokens.access_token)).status, 401);
    await page.close();
  }
});

flow('renders the error, private-app and not-ready pages in Chromium', async (context) => {
  const { stack } = context;
  const page = await context.browser.newPage({ viewport: { width: 390, height: 844 } });
  await page.goto(`${stack.baseUrl}/oauth/authorize?client_id=nope&redirect_uri=https://evil.example.com/&scope=activities:read`);
  assert.match(await page.content(), 'Unknown application');
  await shot(page, 'phone-error-unknown-client');
  await page.close();
});

flow.run();
