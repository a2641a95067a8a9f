/**
 * An activity's training numbers, time in zones and route in a real browser (issue 28 item 3), at desktop
 * (1280×800) and phone (390×844) size: a person with declared thresholds uploads a real ride with power and
 * GPS (fit-file-parser/road-with-power.fit) and a real run (python-fitparse/2013-02-06-12-11-14.fit), opens
 * each, and sees the load, weighted power or pace and zones the numbers endpoint answers, the route drawn as
 * an SVG track with nothing fetched from another origin, and no page wider than the phone; without a threshold the
 * load is a dash and the reason links the settings. Screenshots:
 * test-artifacts/screenshots/activity-*.png (with SCREENS_DIR=docs/screens the full pages are copied there). The same page over HTTP:
 * test/gateway/activity-numbers-page.test.ts.
 */
import { skipUnless, suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startStack, type TestStack } from '../support/stack.js';
import { ARTIFACTS, chromiumMissing, launchChromium, screenshot, signInWithPassword, VIEWPORTS } from '../support/chromium.js';
import { FIXTURES } from '../support/paths.js';
import { jsonClient, okJson } from '../support/json-api.js';
import { uploadProcessed } from '../support/uploads.js';
import { createUser } from '../../gateway/services/accounts.js';

interface Context {
  stack: TestStack;
  browser: Browser;
}

const numbers = suite<Context>('browser activity numbers');
skipUnless(chromiumMissing(), numbers);

const PASSWORD = 'correct horse battery';
const RIDE = path.join(FIXTURES, 'fit', 'fit-file-parser', 'road-with-power.fit');
const RUN = path.join(FIXTURES, 'fit', 'python-fitparse', '2013-02-06-12-11-14.fit');

numbers.before(async (context) => {
  [context.stack, context.browser] = await Promise.all([startStack(), launchChromium()]);
});
numbers.after(async (context) => {
  await Promise.all([context.browser?.close(), context.stack?.close()]);
});

/** The stat `label`'s value text as shown (number and unit). */
async function statText(page: Page, label: string): Promise<string> {
  return page.evaluate<string>(`[...document.querySelectorAll('section[aria-labelledby="numbers"] .stat')].find((s) => s.querySelector('.label')?.textContent === ${JSON.stringify(label)})?.querySelector('.value')?.textContent ?? ''`);
}

numbers('shows a ride\'s and a run\'s numbers, zones and route as the API answers them, at desktop and phone size without overflow', async ({ stack, browser }) => {
  const email = `numbers-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const user = await createUser(stack.store, { email, password: PASSWORD, first_name: 'Ada', last_name: 'Rider' });
  const { token } = await stack.userWithToken(['activities:read', 'activities:write', 'wellness:write'], { userId: user.id });
  const api = jsonClient(stack, token);
  const declared: [string, string, string, number][] = [
    ['cycling', 'second_threshold', 'power', 260], ['cycling', 'first_threshold', 'power', 200], ['cycling', 'heart_rate_max', 'heart_rate', 188],
    ['running', 'second_threshold', 'speed', 3.4], ['running', 'heart_rate_max', 'heart_rate', 192],
  ];
  for (const [sport, marker, metric, value] of declared) {
    const response = await api.post('/api/v1/profile/markers', { sport, marker, metric, value, date: '2010-01-01', provenance: 'declared', pinned: null });
    assert.is(response.status, 200, JSON.stringify(response.body));
  }
  const ride = (await uploadProcessed(stack, token, 'road-with-power.fit', fs.readFileSync(RIDE), 120_000)).activity_ids[0]!;
  const run = (await uploadProcessed(stack, token, 'run.fit', fs.readFileSync(RUN), 120_000)).activity_ids[0]!;
  const rideNumbers = await okJson(stack, 'GET', `/api/v1/ext/activities/${ride}/numbers`, token);
  const runNumbers = await okJson(stack, 'GET', `/api/v1/ext/activities/${run}/numbers`, token);
  assert.is(rideNumbers.intensity_quantity, 'power');
  assert.is(runNumbers.intensity_quantity, 'speed');

  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const foreign: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(stack.baseUrl)) foreign.push(request.url());
  });
  try {
    await signInWithPassword(page, stack.baseUrl, email, PASSWORD);
    for (const [name, id, body] of [['ride', ride, rideNumbers], ['run', run, runNumbers]] as const) {
      await page.goto(`${stack.baseUrl}/training/activities/${id}`);
      assert.is(await statText(page, 'Load'), Math.round(body.load).toLocaleString('en-GB'), `${name}: the load the API answers`);
      assert.is(await statText(page, 'Intensity factor'), body.intensity_factor.toFixed(2), `${name}: intensity factor`);
      if (name === 'ride') assert.is(await statText(page, 'Weighted power'), `${Math.round(body.weighted_intensity)}W`);
      else assert.match(await statText(page, 'Weighted pace'), /^\d+:\d\d\/km$/);
      const route = await page.$('svg.route-track');
      assert.ok(route && (await route.isVisible()), `${name}: the route is drawn`);
      const box = (await route!.boundingBox())!;
      assert.ok(box.width > 200 && box.height > 100, `${name}: the route has room (${box.width}×${box.height})`);
      const seconds = await page.$$eval('.zone-chart svg.chart-wide rect.zone-bar', (bars) => bars.map((bar) => Number(bar.getAttribute('data-seconds'))));
      const expected = body.zones.flatMap((entry: any) => entry.zones.map((zone: any) => zone.duration_s));
      assert.equal(seconds, expected, `${name}: the bars hold the API's seconds`);
      assert.ok(expected.length > 0, `${name}: some zones`);
      for (const viewport of VIEWPORTS) {
        await page.setViewportSize({ width: viewport.width, height: viewport.height });
        const widths = await page.evaluate<{ document: number; viewport: number; wide: string[] }>(
          '({ document: document.documentElement.scrollWidth, viewport: window.innerWidth, wide: [...document.querySelectorAll("body *")].filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1).slice(-3).map((e) => e.tagName + "." + e.className) })',
        );
        assert.ok(widths.document <= widths.viewport, `${name} ${viewport.name}: the page is ${widths.document}px wide in a ${widths.viewport}px viewport (${widths.wide.join(', ')})`);
        const narrowShown = await page.evaluate<boolean>('getComputedStyle(document.querySelector(".zone-chart svg.chart-narrow")).display !== "none"');
        assert.is(narrowShown, viewport.name === 'phone', `${name} ${viewport.name}: the zone chart drawn for the size`);
        await screenshot(page, `activity-${name}-numbers-${viewport.name}`);
      }
      await page.setViewportSize({ width: 1280, height: 800 });
    }
    assert.equal(foreign, [], 'nothing is fetched from another origin (no map tiles)');
  } finally {
    await context.close();
  }
});

numbers('says why a ride has no load, with the link to the settings, at phone size', async ({ stack, browser }) => {
  const email = `no-load-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const user = await createUser(stack.store, { email, password: PASSWORD, first_name: 'Bea' });
  const { token } = await stack.userWithToken(['activities:read', 'activities:write'], { userId: user.id });
  const ride = (await uploadProcessed(stack, token, 'road-with-power.fit', fs.readFileSync(RIDE), 120_000)).activity_ids[0]!;
  const body = await okJson(stack, 'GET', `/api/v1/ext/activities/${ride}/numbers`, token);
  assert.is(body.load_problem?.code, 'no_threshold');
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  try {
    await signInWithPassword(page, stack.baseUrl, email, PASSWORD);
    await page.goto(`${stack.baseUrl}/training/activities/${ride}`);
    assert.is(await statText(page, 'Load'), '–');
    const link = page.locator('.load-problem a');
    assert.ok(await link.isVisible(), 'the way to the settings is shown');
    assert.is(await link.getAttribute('href'), '/training/settings');
    const widths = await page.evaluate<{ document: number; viewport: number }>('({ document: document.documentElement.scrollWidth, viewport: window.innerWidth })');
    assert.ok(widths.document <= widths.viewport, `the page is ${widths.document}px wide in a ${widths.viewport}px viewport`);
    await page.locator('section[aria-labelledby="numbers"]').screenshot({ path: path.join(ARTIFACTS, 'activity-no-load-phone.png') });
  } finally {
    await context.close();
  }
});

numbers.run();
