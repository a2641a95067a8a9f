/**
 * The webhook page in a real browser at 1280×800 and 390×844: a failing endpoint and a healthy one, the
 * attempt log, and the Redeliver button submitting its form. Screenshots land in
 * test-artifacts/screenshots/ (webhooks-desktop-*.png, webhooks-phone-*.png).
 */
import { skipUnless, suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { startStack, type TestStack } from '../support/stack.js';
import { ARTIFACTS, chromiumMissing, launchChromium } from '../support/chromium.js';
import { sessionFor } from '../support/sessions.js';
import { startReceiver, subscribe, webhooksPageUntil, type Receiver } from '../support/webhook-receiver.js';
import { jsonClient } from '../support/json-api.js';

const browserPage = suite<{ stack: TestStack; browser: Browser; receiver: Receiver }>('browser webhooks page');
skipUnless(chromiumMissing(), browserPage);

browserPage.before(async (context) => {
  context.stack = await startStack({ WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_RETRY_BASE_MS: '20', WEBHOOK_POLL_MS: '50' });
  context.receiver = await startReceiver();
  context.browser = await launchChromium();
});
browserPage.after(async (context) => {
  await context.browser?.close();
  await context.receiver?.close();
  await context.stack?.close();
});

browserPage('shows failing endpoints and the attempt log, and redelivers from the log, on a desktop and a phone', async ({ stack, browser, receiver }) => {
  receiver.answer = (request) => (request.path === '/failing' ? 500 : 200);
  const subscriber = await subscribe(stack, [receiver.url, receiver.url.replace('/hooks', '/failing')]);
  await stack.store.applications.updateOne({ id: subscriber.appId }, { set: { name: 'Pacer' } });
  const api = jsonClient(stack, subscriber.token);
  for (const day of ['01', '02']) await api.post('/api/v1/tests/', { title: null, sport: 'cycling', start: `2024-04-${day}T09:00:00+02:00`, end: null, results: null, tags: null });
  await receiver.waitFor((all) => all.filter((request) => request.path === '/failing').length >= 4);
  const owner = (await stack.store.applications.get(subscriber.appId))!.user_id;
  await webhooksPageUntil(stack, (await sessionFor(stack.store, owner)).cookie, /failing: \d+\+? attempts in a row/);
  for (const viewport of [{ name: 'desktop', width: 1280, height: 800 }, { name: 'phone', width: 390, height: 844 }]) {
    const session = await sessionFor(stack.store, owner);
    const context = await browser.newContext({ viewport: { width: viewport.width, height: viewport.height } });
    await context.addCookies([{ name: 'threshold_session', value: session.cookie.split('=')[1]!, url: stack.baseUrl }]);
    const page = await context.newPage();
    await page.goto(`${stack.baseUrl}/account/webhooks`);
    assert.is(await page.locator('h1').textContent(), 'Webhook deliveries');
    assert.ok(await page.getByText(/failing: \d+\+? attempts in a row/).isVisible());
    const scrollWidth = await page.evaluate('document.documentElement.scrollWidth') as number;
    assert.ok(scrollWidth <= viewport.width, `no sideways scrolling of the page (${scrollWidth} px)`);
    await page.screenshot({ path: path.join(ARTIFACTS, `webhooks-${viewport.name}-1-log.png`), fullPage: true });
    await page.getByRole('button', { name: 'Redeliver' }).first().click();
    await page.waitForURL(/notice=redelivered/);
    assert.ok(await page.getByRole('status').isVisible());
    await page.screenshot({ path: path.join(ARTIFACTS, `webhooks-${viewport.name}-2-redelivered.png`), fullPage: false });
    await context.close();
  }
});

browserPage.run();
