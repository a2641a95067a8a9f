/**
 * Correcting and deleting an activity in a real browser (issue 28 item 5), at desktop size (1280×800): a
 * person signs in, opens an uploaded ride, changes its sport and tags and writes notes, saves, and sees them
 * on the page and in the API's `tags` and `sport`; then deletes it through the confirmation step, lands on the
 * list, and the activity is gone there and from the API. The form and the confirmation are also checked at
 * phone size (390×844) for sideways overflow. Screenshots at both sizes: test-artifacts/screenshots/corrections-*.png
 * (with SCREENS_DIR=docs/screens copied there for the README). The same forms over HTTP:
 * test/gateway/activity-correction-pages.test.ts.
 */
import { skipUnless, suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { startStack, type TestStack } from '../support/stack.js';
import { chromiumMissing, launchChromium, screenshot, signInWithPassword } from '../support/chromium.js';
import { createUser } from '../../gateway/services/accounts.js';
import { csvActivity, uploadProcessed } from '../support/uploads.js';

interface Context {
  stack: TestStack;
  browser: Browser;
}

const corrections = suite<Context>('browser activity corrections');
skipUnless(chromiumMissing(), corrections);

const PASSWORD = 'correct horse battery';

corrections.before(async (context) => {
  context.stack = await startStack();
  context.browser = await launchChromium();
});
corrections.after(async (context) => {
  await context.browser?.close();
  await context.stack?.close();
});

/** At phone size (390×844): nothing sticks out sideways; the screenshot `corrections-<name>-phone`; back to desktop. */
async function checkPhone(page: Page, name: string): Promise<void> {
  await page.setViewportSize({ width: 390, height: 844 });
  const widths = await page.evaluate<{ document: number; viewport: number }>('({ document: document.documentElement.scrollWidth, viewport: window.innerWidth })');
  assert.ok(widths.document <= widths.viewport, `phone, ${name}: the page is ${widths.document}px wide in a ${widths.viewport}px viewport`);
  await screenshot(page, `corrections-${name}-phone`);
  await page.setViewportSize({ width: 1280, height: 800 });
}

async function api(stack: TestStack, token: string, urlPath: string): Promise<{ status: number; body: any }> {
  const response = await stack.get(urlPath, token);
  return { status: response.status, body: response.status === 200 ? await response.json() : null };
}

corrections('changes sport, tags and notes, sees them on the page and in the API, then deletes the activity and lands on the list', async ({ stack, browser }) => {
  const email = `corrections-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const user = await createUser(stack.store, { email, password: PASSWORD, first_name: 'Ada', last_name: 'Rider' });
  const { token } = await stack.userWithToken(['activities:read', 'activities:write'], { userId: user.id });
  const kept = (await uploadProcessed(stack, token, 'kept.csv', csvActivity({ start: '2024-05-01T05:00:00Z' }))).activity_ids[0]!;
  const id = (await uploadProcessed(stack, token, 'ride.csv', csvActivity({ start: '2024-05-02T05:00:00Z', rows: 600 }))).activity_ids[0]!;

  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  try {
    await signInWithPassword(page, stack.baseUrl, email, PASSWORD);
    await page.goto(`${stack.baseUrl}/training/activities/${id}`);
    assert.is(await page.textContent('h1'), 'Road cycling');
    await page.selectOption('select#sport', 'cycling.gravel');
    await page.fill('input#tags', 'race, gravel worlds');
    await page.fill('textarea#notes', 'Dusty.\nTwo flats.');
    await Promise.all([page.waitForURL(/\?notice=saved$/), page.click('form.corrections button[type="submit"]')]);
    assert.is(await page.textContent('h1'), 'Gravel cycling', 'the new sport heads the page');
    assert.equal(await page.$$eval('.page-head .chip', (chips) => chips.map((chip) => chip.textContent)), ['race', 'gravel worlds']);
    assert.is(await page.textContent('p.notes'), 'Dusty.\nTwo flats.');
    assert.is(await page.textContent('[role=status]'), 'Saved.');
    assert.is(await page.inputValue('input#tags'), 'race, gravel worlds', 'the form shows what is stored');
    await screenshot(page, 'corrections-form-desktop');

    const details = await api(stack, token, `/api/v1/activities/${id}`);
    assert.is(details.body.sport, 'cycling.gravel');
    assert.equal(details.body.tags, ['race', 'gravel worlds']);
    assert.equal((await api(stack, token, `/api/v1/ext/activities/${id}`)).body.notes, 'Dusty.\nTwo flats.');

    await checkPhone(page, 'form');

    await Promise.all([page.waitForURL(/\/delete$/), page.click('a.danger-link')]);
    assert.is(await page.textContent('h1'), 'Delete this activity?');
    await screenshot(page, 'corrections-delete-desktop');
    await checkPhone(page, 'delete');
    await Promise.all([page.waitForURL(/\/training\?notice=deleted$/), page.click('button.danger')]);
    assert.is(await page.textContent('[role=status]'), 'The activity was deleted.');
    const links = await page.$$eval('a.activity-row', (rows) => rows.map((row) => row.getAttribute('href')));
    assert.equal(links, [`/training/activities/${kept}`], 'only the other activity is listed');
    assert.is((await api(stack, token, `/api/v1/activities/${id}`)).status, 404);
    assert.is((await page.goto(`${stack.baseUrl}/training/activities/${id}`))?.status(), 404);
  } finally {
    await context.close();
  }
});

corrections.run();
