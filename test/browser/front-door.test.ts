/**
 * The front door in a real browser (issue 26 item 6): a person opens the service's address, meets a page
 * (not a JSON 404), follows "Create an account" and lands on their training; signed out, they open the
 * address again, follow "Sign in" and land on their training again, where the front door now links their
 * pages. Screenshots at desktop (1280×800) and phone (390×844) size land in
 * test-artifacts/screenshots/front-door-*.png; the page is never wider than the phone. Over HTTP:
 * test/gateway/front-door.test.ts.
 */
import { skipUnless, suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startStack, type TestStack } from '../support/stack.js';
import { ARTIFACTS, chromiumMissing, launchChromium, submitPasswordForm, VIEWPORTS } from '../support/chromium.js';

interface Context {
  stack: TestStack;
  browser: Browser;
}

const door = suite<Context>('browser front door');
skipUnless(chromiumMissing(), door);

const PASSWORD = 'front door password';

door.before(async (context) => {
  context.stack = await startStack();
  context.browser = await launchChromium();
});
door.after(async (context) => {
  await context.browser?.close();
  await context.stack?.close();
});

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, `front-door-${name}.png`), fullPage: true });
}

async function assertFits(page: Page, what: string): Promise<void> {
  const widths = await page.evaluate<{ document: number; viewport: number }>('({ document: document.documentElement.scrollWidth, viewport: window.innerWidth })');
  assert.ok(widths.document <= widths.viewport, `${what}: the page is ${widths.document}px wide in a ${widths.viewport}px viewport`);
}

door('opens the address, signs up and lands on the training page, then signs out and back in through the front door, in Chromium', async ({ stack, browser }) => {
  for (const viewport of VIEWPORTS) {
    const email = `door-${viewport.name}-${Math.random().toString(36).slice(2, 8)}@example.com`;
    const context = await browser.newContext({ viewport: { width: viewport.width, height: viewport.height } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => { if (message.type() === 'error') errors.push(message.text()); });

    const opened = await page.goto(`${stack.baseUrl}/`);
    assert.is(opened?.status(), 200);
    assert.match(opened?.headers()['content-type'] ?? '', 'text/html');
    assert.is(await page.locator('h1').textContent(), 'Your training data, in one place');
    assert.ok(await page.getByRole('link', { name: 'API reference' }).isVisible(), 'developers find /docs');
    await assertFits(page, `${viewport.name} front door`);
    await shot(page, `${viewport.name}-visitor`);

    await Promise.all([page.waitForURL(/\/signup$/), page.getByRole('link', { name: 'Create an account' }).click()]);
    await page.fill('#email', email);
    await page.fill('#new-password', PASSWORD);
    await page.fill('#first-name', 'Ada');
    await Promise.all([page.waitForURL(/\/training$/), page.getByRole('button', { name: 'Create account' }).click()]);
    assert.ok(await page.getByText('No activities yet.').isVisible(), 'the new account lands on its (empty) training');

    await page.goto(`${stack.baseUrl}/`);
    assert.ok(await page.getByText('Signed in as Ada').isVisible());
    assert.is(await page.getByRole('link', { name: 'Sign in' }).count(), 0, 'no way in for someone signed in');
    await assertFits(page, `${viewport.name} front door, signed in`);
    await shot(page, `${viewport.name}-signed-in`);

    await page.goto(`${stack.baseUrl}/account`);
    await Promise.all([page.waitForURL(/\/signin$/), page.getByRole('button', { name: 'Sign out' }).first().click()]);
    await page.goto(`${stack.baseUrl}/`);
    await Promise.all([page.waitForURL(/\/signin$/), page.getByRole('link', { name: 'Sign in', exact: true }).click()]);
    await Promise.all([page.waitForURL(/\/training$/), submitPasswordForm(page, email, PASSWORD)]);
    assert.ok(await page.getByText('No activities yet.').isVisible(), 'signing in lands on the training page');
    assert.equal(errors, []);
    await context.close();
  }
});

door.run();
