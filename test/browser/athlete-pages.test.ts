/**
 * The athlete's pages in a real browser (issue 16 item 4): a person signs in and lands on their training,
 * uploads the real ride sweatpy/4078723797.fit (by drag and drop at desktop size, through the
 * file input at phone size) and watches its status turn to Processed, then opens the activity list, the
 * activity page (hovering its charts for the read-out) and the season page with two fatigue states.
 * Screenshots at desktop (1280×800) and phone (390×844) size land in test-artifacts/screenshots/athlete-*.png;
 * no page may be wider than the phone. Without script, the plain file form uploads and its answer follows the
 * status by reloading itself. A real run (python-fitparse/2013-02-06-12-11-14.fit) shows pace, min:ss per km,
 * wherever the ride shows speed (athlete-*-run.png). The same pages over HTTP: test/gateway/athlete-pages.test.ts.
 */
import { skipUnless, suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startStack, type TestStack } from '../support/stack.js';
import { ARTIFACTS, chromiumMissing, launchChromium, signInWithPassword, VIEWPORTS } from '../support/chromium.js';
import { FIXTURES } from '../support/paths.js';
import { createUser } from '../../gateway/services/accounts.js';
import { settled, upload } from '../support/uploads.js';

interface Context {
  stack: TestStack;
  browser: Browser;
}

const pages = suite<Context>('browser athlete pages');
skipUnless(chromiumMissing(), pages);

const PASSWORD = 'correct horse battery';
const RIDE = path.join(FIXTURES, 'fit', 'sweatpy', '4078723797.fit');
/** Two more real rides, uploaded through the API, so the list and the season have company. */
const EARLIER = ['2020-06-01-16-52-40.fit', '4801048867.fit'].map((name) => path.join(FIXTURES, 'fit', 'sweatpy', name));
/** The ride is on 2019-09-20: the season's range holds it, and the body mass makes the metabolic map possible. */
const SEASON = '/training/season?sport=cycling&metric=power&start=2019-01-01&end=2019-09-30&after=500&after=1000';
/** A real run (running.road, 44 min, speed, heart rate, altitude and 5 laps). */
const RUN = path.join(FIXTURES, 'fit', 'python-fitparse', '2013-02-06-12-11-14.fit');
/** How long the ride may take to be processed. */
const PROCESSING_MS = 60_000;

pages.before(async (context) => {
  context.stack = await startStack();
  context.browser = await launchChromium();
});
pages.after(async (context) => {
  await context.browser?.close();
  await context.stack?.close();
});

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, `athlete-${name}.png`), fullPage: true });
}

/** Nothing sticks out sideways: the document is no wider than the viewport, and no table needs its scroller. */
async function assertNoOverflow(page: Page, what: string): Promise<void> {
  const widths = await page.evaluate<{ document: number; viewport: number; scrolled: number[] }>(
    '({ document: document.documentElement.scrollWidth, viewport: window.innerWidth, scrolled: [...document.querySelectorAll(".scroll")].filter((box) => box.scrollWidth > box.clientWidth + 1).map((box) => box.scrollWidth - box.clientWidth) })',
  );
  assert.ok(widths.document <= widths.viewport, `${what}: the page is ${widths.document}px wide in a ${widths.viewport}px viewport`);
  assert.equal(widths.scrolled, [], `${what}: a table is wider than its panel`);
}

/**
 * The athlete's navigation reads at a glance: one row on a desktop; on a phone a grid of equally wide links
 * in two rows, every label whole (none cut off or pushed out sideways).
 */
async function assertNavReads(page: Page, viewport: { name: string }): Promise<void> {
  const links = await page.evaluate<{ label: string; top: number; width: number; clipped: boolean }[]>(
    '[...document.querySelectorAll("nav.athlete a")].map((a) => { const box = a.getBoundingClientRect(); return { label: a.textContent, top: Math.round(box.top), width: box.width, clipped: a.scrollWidth > a.clientWidth || box.right > window.innerWidth }; })',
  );
  assert.is(links.length, 7, 'seven links');
  assert.equal(links.filter((link) => link.clipped).map((link) => link.label), [], `${viewport.name}: nav labels cut off`);
  const rows = new Set(links.map((link) => link.top)).size;
  if (viewport.name === 'desktop') {
    assert.is(rows, 1, 'desktop: the nav is one row');
    return;
  }
  assert.is(rows, 2, 'phone: the nav is two rows');
  const widths = links.map((link) => link.width);
  assert.ok(Math.max(...widths) - Math.min(...widths) < 1, `phone: the nav's links are equally wide (${widths.map(Math.round).join(', ')} px)`);
}

/** Drops `file` on the drop zone as a browser does for a file dragged from the desktop. */
async function dropFile(page: Page, file: string): Promise<void> {
  const bytes = fs.readFileSync(file).toString('base64');
  // A string expression: the test build has no DOM types.
  const transfer = await page.evaluateHandle(`(() => {
    const raw = atob(${JSON.stringify(bytes)});
    const data = new Uint8Array(raw.length);
    for (let i = 0; i < raw.length; i++) data[i] = raw.charCodeAt(i);
    const transfer = new DataTransfer();
    transfer.items.add(new File([data], ${JSON.stringify(path.basename(file))}, { type: 'application/octet-stream' }));
    return transfer;
  })()`);
  await page.dispatchEvent('.drop', 'dragenter', { dataTransfer: transfer });
  await page.dispatchEvent('.drop', 'drop', { dataTransfer: transfer });
}

pages('uploads a real ride by drag and drop or file input, watches it become processed, and shows the list, the activity and the season, in Chromium', async (context) => {
  for (const viewport of VIEWPORTS) {
    const email = `rider-${viewport.name}-${Math.random().toString(36).slice(2, 8)}@example.com`;
    const user = await createUser(context.stack.store, { email, password: PASSWORD, first_name: 'Ada', last_name: 'Rider' });
    const { token } = await context.stack.userWithToken(['wellness:write', 'activities:read', 'activities:write'], { userId: user.id });
    const mass = await fetch(`${context.stack.baseUrl}/api/v1/dailies/body_mass`, {
      method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ date: '2019-09-01', value: 72.5 }),
    });
    assert.ok(mass.ok, `body mass: ${mass.status}`);

    const browser = await context.browser.newContext({ viewport: { width: viewport.width, height: viewport.height } });
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => { if (message.type() === 'error') errors.push(message.text()); });
    await signInWithPassword(page, context.stack.baseUrl, email, PASSWORD);
    assert.ok(await page.getByText('No activities yet.').isVisible());
    await shot(page, `${viewport.name}-list-empty`);
    await assertNavReads(page, viewport);

    await Promise.all([page.waitForURL(/\/training\/upload$/), page.getByRole('navigation', { name: 'Training' }).getByRole('link', { name: 'Upload' }).click()]);
    assert.ok(await page.locator('html.js').count(), 'the enhancement script ran');
    // The script sends any number of files in batches; only the plain form keeps the per-request limit.
    assert.ok(await page.getByText(/^or choose as many files as you like, [\d.]+ MiB each$/).isVisible(), 'with script: any number of files');
    assert.not.ok(await page.getByText(/up to \d+ files/).isVisible(), 'with script: no file limit is stated');
    if (viewport.name === 'desktop') await dropFile(page, RIDE);
    else await page.setInputFiles('#files', RIDE);
    const row = page.locator('#live li', { hasText: '4078723797.fit' });
    await row.waitFor();
    await row.locator('.badge.processed').waitFor({ timeout: PROCESSING_MS });
    assert.match((await row.textContent())!, /1 activity/);
    await shot(page, `${viewport.name}-upload`);
    await assertNoOverflow(page, 'upload');

    await Promise.all([page.waitForURL(/\/training\/activities\/[^/]+$/), row.getByRole('link', { name: 'Open' }).click()]);
    assert.is(await page.locator('h1').textContent(), 'Road cycling');
    for (const label of ['Duration', 'Distance', 'Avg power', 'Avg heart rate']) assert.ok(await page.locator('.stat .label', { hasText: label }).first().isVisible(), label);
    const series = page.locator('figure.series svg.chart:visible');
    assert.is(await series.count(), 1);
    assert.ok(await series.locator('g.panel[data-metric=power]').count());
    assert.ok(await series.locator('g.panel[data-metric=heart_rate]').count());
    const box = (await series.boundingBox())!;
    await series.hover({ position: { x: box.width * 0.5, y: 60 } });
    const readout = await page.locator('figure.series .readout').textContent();
    assert.match(readout!, /\d:\d\d:\d\d.*Power \d+ W/, `read-out: ${readout}`);
    assert.ok(await page.locator('figure.mean-max svg.chart:visible').count());
    assert.is(await page.locator('#laps').count(), 0, 'the ride\'s one lap is the summary again, so no laps table');
    for (const tick of ['5 s', '1 min', '5 min', '20 min', '1 h']) assert.ok(await page.locator('figure.mean-max svg.chart:visible text', { hasText: new RegExp(`^${tick}$`) }).count(), `tick ${tick}`);
    await page.mouse.move(0, 0);
    await shot(page, `${viewport.name}-activity`);
    await assertNoOverflow(page, 'activity');

    for (const file of EARLIER) {
      const sent = (await (await upload(context.stack, token, [{ name: path.basename(file), bytes: fs.readFileSync(file) }])).json()) as { sources: { id: string }[] };
      assert.is((await settled(context.stack, token, sent.sources[0]!.id, PROCESSING_MS)).status, 'processed');
    }
    await Promise.all([page.waitForURL(/\/training$/), page.getByRole('navigation', { name: 'Training' }).getByRole('link', { name: 'Activities' }).click()]);
    assert.is(await page.locator('.activities li').count(), 1 + EARLIER.length);
    await shot(page, `${viewport.name}-list`);
    await assertNoOverflow(page, 'list');

    await page.goto(`${context.stack.baseUrl}${SEASON}`);
    assert.is(await page.locator('h1').textContent(), 'Season');
    const legend = await page.locator('ul.legend').textContent();
    assert.match(legend!, /Best/);
    assert.match(legend!, /after 500 kJ/);
    assert.ok(await page.locator('#model').isVisible());
    assert.ok(await page.locator('#map').isVisible());
    await shot(page, `${viewport.name}-season`);
    await assertNoOverflow(page, 'season');

    assert.equal(errors, [], 'no script or CSP error in the console');
    await browser.close();
  }
});

pages('shows a real run\'s pace (min:ss per km) in the list, the summary, the laps, the chart with its read-out and the mean-max, in Chromium', async (context) => {
  const email = `runner-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const user = await createUser(context.stack.store, { email, password: PASSWORD, first_name: 'Emil', last_name: 'Runner' });
  const { token } = await context.stack.userWithToken(['activities:read', 'activities:write'], { userId: user.id });
  const sent = (await (await upload(context.stack, token, [{ name: path.basename(RUN), bytes: fs.readFileSync(RUN) }])).json()) as { sources: { id: string }[] };
  const source = await settled(context.stack, token, sent.sources[0]!.id, PROCESSING_MS);
  assert.is(source.status, 'processed', JSON.stringify(source.error));
  for (const viewport of VIEWPORTS) {
    const browser = await context.browser.newContext({ viewport: { width: viewport.width, height: viewport.height } });
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await signInWithPassword(page, context.stack.baseUrl, email, PASSWORD);
    await page.goto(`${context.stack.baseUrl}/training`);
    assert.match((await page.locator('.activities li .spd').first().textContent())!, /^\d{1,2}:\d\d\/km$/);

    await Promise.all([page.waitForURL(/\/training\/activities\//), page.locator('.activities li a').first().click()]);
    assert.is(await page.locator('h1').textContent(), 'Road running');
    const pace = page.locator('.stat', { has: page.locator('.label', { hasText: 'Avg pace' }) });
    assert.match((await pace.locator('.value').textContent())!, /^\d{1,2}:\d\d\/km$/);
    assert.is(await page.locator('.stat .label', { hasText: 'Avg speed' }).count(), 0);
    assert.ok(await page.locator('#laps ~ .scroll th', { hasText: 'Avg pace' }).isVisible(), 'the laps show pace');
    const series = page.locator('figure.series svg.chart:visible');
    const panel = series.locator('g.panel[data-label=Pace]');
    assert.is(await panel.getAttribute('data-unit'), '/km');
    const ticks = await panel.locator('text[text-anchor=end]').allTextContents();
    assert.ok(ticks.filter((tick) => /^\d{1,2}:\d\d$/.test(tick)).length >= 2, `pace ticks: ${ticks.join(', ')}`);
    const box = (await series.boundingBox())!;
    await series.hover({ position: { x: box.width * 0.4, y: 60 } });
    assert.match((await page.locator('figure.series .readout').textContent())!, /Pace \d{1,2}:\d\d \/km/);
    assert.is(await page.locator('#mean-max').textContent(), 'Mean-max pace');
    const curve = page.locator('figure.mean-max svg.chart:visible');
    const curveBox = (await curve.boundingBox())!;
    await curve.hover({ position: { x: curveBox.width * 0.6, y: 80 } });
    assert.match((await page.locator('figure.mean-max .readout').textContent())!, /: \d{1,2}:\d\d \/km$/);
    await page.mouse.move(0, 0);
    await shot(page, `${viewport.name}-run`);
    await assertNoOverflow(page, 'run');
    assert.equal(errors, [], 'no script error');
    await browser.close();
  }
});

pages('uploads through the plain file form without script and follows the status by reloading itself, in Chromium', async (context) => {
  const email = `no-script-${Math.random().toString(36).slice(2, 8)}@example.com`;
  await createUser(context.stack.store, { email, password: PASSWORD, first_name: 'Noor', last_name: 'Plain' });
  const browser = await context.browser.newContext({ viewport: { width: 1280, height: 800 }, javaScriptEnabled: false });
  const page = await browser.newPage();
  await signInWithPassword(page, context.stack.baseUrl, email, PASSWORD);
  await page.goto(`${context.stack.baseUrl}/training/upload`);
  assert.is(await page.locator('html.js').count(), 0);
  assert.ok(await page.getByText(/^or choose up to 10 files at a time, [\d.]+ MiB each$/).isVisible(), 'without script: the per-request limit');
  assert.not.ok(await page.getByText('as many files as you like').isVisible(), 'without script: no promise of any number');
  await page.setInputFiles('#files', RIDE);
  await Promise.all([page.waitForURL(/notice=uploaded/), page.getByRole('button', { name: 'Upload' }).click()]);
  // The answer reloads itself (Refresh: 2) while its source is processing.
  await page.locator('#live li', { hasText: '4078723797.fit' }).locator('.badge.processed').waitFor({ timeout: PROCESSING_MS });
  assert.ok(await page.getByText('Upload received.').isVisible());
  await shot(page, 'desktop-upload-no-script');
  await Promise.all([page.waitForURL(/\/training\/activities\//), page.getByRole('link', { name: 'Open' }).click()]);
  assert.is(await page.locator('h1').textContent(), 'Road cycling');
  assert.ok(await page.locator('figure.series svg.chart').first().isVisible(), 'the charts need no script');
  await browser.close();
});

pages.run();
