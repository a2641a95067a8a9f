/**
 * A hosted page end to end in Chromium (issue 14, Pages; issue 16 item 1, CORS): the owner edits the
 * application on its settings page, deploys a small static single-page app through the API, and the app
 * signs in with PKCE (S256) against this service, coming back to the page URL its slug registered, then
 * exchanges the code at the token endpoint and calls the API (userinfo and the activity list) with the
 * bearer token, all from the page's origin, and shows the answers. That works because the API and the token
 * endpoint answer the page's origin with CORS headers (gateway/middleware/cors.ts), never with
 * credentials. Security: the page reads none of the service's cookies, and neither the account page nor
 * a credentialed API call is readable from it. Screenshots at desktop and phone size land in
 * test-artifacts/screenshots/.
 */
import { skipUnless, suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startStack, type TestStack } from '../support/stack.js';
import { ARTIFACTS, chromiumMissing, launchChromium, signInWithPassword } from '../support/chromium.js';
import { okJson } from '../support/json-api.js';
import { deploy } from '../support/page-deploys.js';
import { createUser } from '../../gateway/services/accounts.js';

interface Context {
  stack: TestStack;
  browser: Browser;
}

const PASSWORD = 'correct horse battery staple';
const flow = suite<Context>('browser hosted page app');
skipUnless(chromiumMissing(), flow);

flow.before(async (context) => {
  context.stack = await startStack();
  context.browser = await launchChromium();
});
flow.after(async (context) => {
  await context.browser?.close();
  await context.stack?.close();
});

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

const INDEX = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Cadence · training notes</title><link rel="stylesheet" href="style.css"></head>
<body><main><h1>Cadence</h1><p class="lead">Your rides, in one quiet page.</p>
<button id="signin" type="button">Sign in with Threshold</button>
<p id="status" role="status">Not signed in.</p><dl id="result" hidden><dt>Athlete id</dt><dd id="sub"></dd><dt>Activities</dt><dd id="activities"></dd></dl></main>
<script type="module" src="app.js"></script></body></html>`;

const STYLE = `body{margin:0;font:16px/1.5 system-ui,sans-serif;background:#0f172a;color:#e2e8f0}
main{max-width:34rem;margin:0 auto;padding:3rem 1.25rem}h1{font-size:2rem;margin:0}
.lead{color:#94a3b8}button{padding:.75rem 1.25rem;border:0;border-radius:8px;background:#38bdf8;color:#0f172a;font:inherit;font-weight:600}
#status{margin-top:1.5rem;padding:.75rem;border-radius:8px;background:#1e293b}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.5rem 1rem;margin:1rem 0 0;padding:1rem;border:1px solid #1e293b;border-radius:8px}
dt{color:#94a3b8}dd{margin:0;overflow-wrap:anywhere}`;

/** The single-page app: PKCE S256 with Web Crypto, the verifier in sessionStorage, the code exchanged by fetch. */
function appScript(service: string, clientId: string): string {
  return `const service = ${JSON.stringify(service)};
const clientId = ${JSON.stringify(clientId)};
const redirectUri = location.origin + location.pathname.replace(/[^/]*$/, '');
const status = document.getElementById('status');
const b64url = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes))).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
document.getElementById('signin').addEventListener('click', async () => {
  const verifier = b64url(crypto.getRandomValues(new Uint8Array(32)));
  const state = b64url(crypto.getRandomValues(new Uint8Array(16)));
  sessionStorage.setItem('pkce', JSON.stringify({ verifier, state }));
  const challenge = b64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
  const url = new URL('/oauth/authorize', service);
  for (const [k, v] of Object.entries({ response_type: 'code', client_id: clientId, redirect_uri: redirectUri, scope: 'openid profile activities:read', state, code_challenge: challenge, code_challenge_method: 'S256' })) url.searchParams.set(k, v);
  location.assign(url.href);
});
const params = new URLSearchParams(location.search);
if (params.has('code')) {
  const saved = JSON.parse(sessionStorage.getItem('pkce') || '{}');
  document.body.dataset.code = 'received';
  document.body.dataset.stateMatches = String(params.get('state') === saved.state);
  status.textContent = 'Signing in…';
  try {
    const response = await fetch(new URL('/api/v1/oauth/token', service), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: params.get('code'), redirect_uri: redirectUri, client_id: clientId, code_verifier: saved.verifier }) });
    const tokens = await response.json();
    if (!response.ok) throw new Error('token endpoint: ' + (tokens.error_description || tokens.error));
    history.replaceState(null, '', redirectUri);
    const bearer = { authorization: 'Bearer ' + tokens.access_token };
    const me = await (await fetch(new URL('/api/v1/oauth/userinfo', service), { headers: bearer })).json();
    const activities = await fetch(new URL('/api/v1/activities/?limit=5', service), { headers: bearer });
    const list = await activities.json();
    const items = Array.isArray(list) ? list : (list.items || list.data || []);
    status.textContent = 'Signed in as ' + me.name + '.';
    document.getElementById('sub').textContent = me.sub;
    document.getElementById('activities').textContent = activities.ok ? (items.length === 0 ? 'None yet: upload a ride to see it here.' : items.length + ' recent') : 'HTTP ' + activities.status;
    document.getElementById('result').hidden = false;
    document.getElementById('signin').hidden = true;
    document.body.dataset.activitiesStatus = String(activities.status);
    document.body.dataset.outcome = 'signed-in';
  } catch (error) {
    status.textContent = 'Signing in failed: ' + error.message;
    document.body.dataset.outcome = 'failed';
  }
}
try { document.body.dataset.cookies = document.cookie; } catch { document.body.dataset.cookies = 'unreadable'; }
`;
}

flow('deploys a single-page app that signs in with PKCE against the service, at desktop and phone size', async (context) => {
  const { stack, browser } = context;
  for (const viewport of [{ name: 'desktop', width: 1280, height: 800 }, { name: 'phone', width: 390, height: 844 }]) {
    const email = `page-owner-${viewport.name}@example.com`;
    const owner = await createUser(stack.store, { email, password: PASSWORD, first_name: 'Ada', last_name: 'Lovelace' });
    const token = (await stack.userWithToken([], { userId: owner.id })).token;
    const slug = `cadence-${viewport.name}`;
    const app = await okJson(stack, 'POST', '/api/v1/applications', token, { name: 'Cadence', description: null, redirect_uris: null, page: slug, generate_secret: false });

    const browserContext = await browser.newContext({ viewport: { width: viewport.width, height: viewport.height } });
    const page = await browserContext.newPage();
    await signInWithPassword(page, stack.baseUrl, email, PASSWORD);

    // The owner edits the application: one form, an inline error first, then saved.
    await page.goto(`${stack.baseUrl}/account/applications/${app.id}`);
    await page.fill('#description', 'Training notes for riders who like quiet pages.');
    await page.fill('#url', 'http://cadence.example.com');
    await page.fill('#webhook_endpoints', 'https://10.0.0.8/hook');
    await Promise.all([page.waitForLoadState(), page.click('form.settings button[type="submit"]')]);
    assert.match(await page.content(), 'id="url-error"');
    await shot(page, `${viewport.name}-app-settings-errors`);
    await page.fill('#url', 'https://cadence.example.com');
    await page.fill('#image', 'https://cadence.example.com/logo.png');
    // No privacy statement yet: the app stays private, so only its owner connects and needs no purpose sentences.
    await page.fill('#webhook_endpoints', '');
    await page.fill('#webhook_secret', 'whsec-cadence-0123456789');
    await shot(page, `${viewport.name}-app-settings-editing`);
    await Promise.all([page.waitForURL(/notice=settings_saved/), page.click('form.settings button[type="submit"]')]);
    assert.match(await page.content(), 'Settings saved');
    assert.not.ok((await page.content()).includes('whsec-cadence-0123456789'));
    await shot(page, `${viewport.name}-app-settings-saved`);

    // Deploy the app and open it on the pages origin.
    const deployed = await deploy(stack, slug, token, [
      { path: 'index.html', content: INDEX }, { path: 'style.css', content: STYLE }, { path: 'app.js', content: appScript(stack.baseUrl, app.id) },
    ]);
    assert.is(deployed.status, 200, JSON.stringify(deployed.body));
    const pageUrl: string = deployed.body.url;
    assert.not.equal(new URL(pageUrl).origin, new URL(stack.baseUrl).origin);
    await page.goto(pageUrl);
    await shot(page, `${viewport.name}-page-app`);

    // Security: the page reads none of the service's cookies and no credentialed answer of the service.
    assert.not.match(await page.getAttribute('body', 'data-cookies') ?? '', /threshold_session/);
    const credentialed = await page.evaluate(async (service) => {
      try {
        const response = await fetch(`${service}/account`, { credentials: 'include' });
        return `read ${response.status}: ${(await response.text()).slice(0, 40)}`;
      } catch (error) {
        return `blocked: ${(error as Error).message}`;
      }
    }, stack.baseUrl);
    assert.match(credentialed, /^blocked/, credentialed);

    // Sign in through the page: authorize (PKCE S256) → consent → back to the page URL with a code.
    await page.click('#signin');
    await page.waitForSelector('button[name="decision"][value="approve"]');
    assert.match(await page.content(), 'Cadence wants to use your Threshold account');
    await shot(page, `${viewport.name}-page-app-consent`);
    await Promise.all([page.waitForURL(`${pageUrl}?**`), page.click('button[name="decision"][value="approve"]')]);
    await page.waitForSelector('body[data-outcome]');
    assert.is(await page.getAttribute('body', 'data-code'), 'received');
    assert.is(await page.getAttribute('body', 'data-state-matches'), 'true');
    assert.is(await page.getAttribute('body', 'data-outcome'), 'signed-in', await page.textContent('#status') ?? '');
    assert.match(await page.textContent('#status') ?? '', 'Signed in as Ada Lovelace');
    assert.is(await page.textContent('#sub'), owner.id);
    assert.is(await page.getAttribute('body', 'data-activities-status'), '200');
    const codes = await stack.store.authorization_codes.find({ application_id: app.id });
    assert.ok(codes.length === 1 && codes[0]!.consumed_at != null, 'the page redeemed its code');
    // Never with credentials: a cookie-carrying API call from the page stays unreadable.
    const credentialedApi = await page.evaluate(async (service) => {
      try {
        const response = await fetch(`${service}/api/v1/activities/`, { credentials: 'include' });
        return `read ${response.status}`;
      } catch (error) {
        return `blocked: ${(error as Error).message}`;
      }
    }, stack.baseUrl);
    assert.match(credentialedApi, /^blocked/, credentialedApi);
    await shot(page, `${viewport.name}-page-app-after-sign-in`);
    await browserContext.close();
  }
});

flow.run();
