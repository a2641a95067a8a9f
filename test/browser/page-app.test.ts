/**
 * A hosted page end to end in Chromium (issue 14, Pages): the owner edits the application on its settings
 * page, deploys a small static single-page app through the API, and the app signs in with PKCE (S256)
 * against this service, coming back to the page URL its slug registered, then exchanges the code and
 * calls the API from the page's origin.
 *
 * The exchange from the page's origin is where CORS decides. The token endpoint and the API send no CORS
 * headers yet (issue 16 adds them, never with credentials), so the browser sends the form POST (a simple
 * request: the code is redeemed) but withholds the answer from the page. The test accepts either outcome
 * and checks which one it got: signed in and the API answered, or exactly that block (no
 * Access-Control-Allow-Origin on the token endpoint's answer). Security: the page reads none of the
 * service's cookies and cannot read a credentialed answer of the service. Screenshots at desktop and
 * phone size land in test-artifacts/screenshots/.
 */
import { skipUnless, suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startStack, type TestStack } from '../support/stack.js';
import { ARTIFACTS, chromiumMissing, launchChromium } from '../support/chromium.js';
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
<p id="status" role="status">Not signed in.</p><pre id="result"></pre></main>
<script type="module" src="app.js"></script></body></html>`;

const STYLE = `body{margin:0;font:16px/1.5 system-ui,sans-serif;background:#0f172a;color:#e2e8f0}
main{max-width:34rem;margin:0 auto;padding:3rem 1.25rem}h1{font-size:2rem;margin:0}
.lead{color:#94a3b8}button{padding:.75rem 1.25rem;border:0;border-radius:8px;background:#38bdf8;color:#0f172a;font:inherit;font-weight:600}
#status{margin-top:1.5rem;padding:.75rem;border-radius:8px;background:#1e293b}pre{white-space:pre-wrap;color:#94a3b8}`;

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
    const me = await (await fetch(new URL('/api/v1/oauth/userinfo', service), { headers: { authorization: 'Bearer ' + tokens.access_token } })).json();
    status.textContent = 'Signed in as ' + me.name;
    document.body.dataset.outcome = 'signed-in';
  } catch (error) {
    status.textContent = 'The browser withheld the token endpoint\\'s answer from this page (' + error.message + '): the service sends no CORS headers yet.';
    document.body.dataset.outcome = 'blocked';
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
    await page.goto(`${stack.baseUrl}/signin`);
    await page.fill('form[action="/signin/password"] input[name="email"]', email);
    await page.fill('form[action="/signin/password"] input[name="password"]', PASSWORD);
    await Promise.all([page.waitForURL(/\/account/), page.click('form[action="/signin/password"] button[type="submit"]')]);

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
    const outcome = await page.getAttribute('body', 'data-outcome');
    if (outcome === 'signed-in') {
      assert.match(await page.textContent('#status') ?? '', 'Signed in as Ada Lovelace');
    } else {
      // The one thing missing is CORS on the token endpoint (issue 16): its answer has no Access-Control-Allow-Origin.
      const probe = await fetch(`${stack.baseUrl}/api/v1/oauth/token`, { method: 'POST', headers: { origin: new URL(pageUrl).origin, 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=authorization_code&code=x' });
      assert.is(probe.headers.get('access-control-allow-origin'), null);
      const codes = await stack.store.authorization_codes.find({ application_id: app.id });
      assert.ok(codes.length === 1 && codes[0]!.consumed_at != null, 'the page\'s exchange reached the token endpoint and redeemed the code');
    }
    await shot(page, `${viewport.name}-page-app-after-sign-in`);
    await browserContext.close();
  }
});

flow.run();
