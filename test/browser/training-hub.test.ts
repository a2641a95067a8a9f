/**
 * The training hub in a real browser (issue 28 "Done when"), at desktop (1280×800) and phone (390×844) size:
 * an athlete's season (60 days of CSV rides with power and heart rate, generated and uploaded through the API
 * once for the file) with CP and heart rates declared through the markers endpoint; the athlete follows Load
 * in the navigation and reads fitness, fatigue and form stated in words, and bars, with the numbers
 * `GET /api/v1/ext/training-load?format=json` returns; follows Calendar, which opens on the current week, and
 * every week's totals equal the sum of its activities; a coach follows the team page to the athletes and sees
 * the member's calendar, one of their activities, their load and season under the member's name, and gets the
 * 404 page for a non-member.
 * Screenshots land in test-artifacts/screenshots/hub-*.png; with SCREENS_DIR set (e.g. `SCREENS_DIR=docs/screens`,
 * relative to the repository) they are copied there too. The same pages over HTTP: test/gateway/training-hub-pages.test.ts.
 */
import { skipUnless, suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startStack, type TestStack } from '../support/stack.js';
import { chromiumMissing, launchChromium, screenshot, signInWithPassword, VIEWPORTS } from '../support/chromium.js';
import { declareThresholds, uploadSeason } from '../support/training-season.js';
import { createUser } from '../../gateway/services/accounts.js';
import { createTeam } from '../../gateway/services/teams.js';
import { authorizeTeam } from '../../gateway/services/team-access.js';

interface Context {
  stack: TestStack;
  browser: Browser;
  athlete: { id: string; email: string; token: string };
  coach: { email: string };
  teamId: string;
  /** A user who never authorized the team. */
  outsiderId: string;
}

const hub = suite<Context>('browser training hub');
skipUnless(chromiumMissing(), hub);

const PASSWORD = 'correct horse battery';
const LINKS = { url: 'https://rouleur.example.com', image: 'https://rouleur.example.com/logo.svg', privacy_statement: 'https://rouleur.example.com/privacy' };
const LOGO = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 48 48"><rect width="48" height="48" rx="10" fill="#0e7c66"/></svg>';

hub.before(async (context) => {
  context.stack = await startStack();
  context.browser = await launchChromium();
  const { store } = context.stack;
  const athlete = await createUser(store, { email: 'ada.rider@example.com', password: PASSWORD, first_name: 'Ada', last_name: 'Rider' });
  const { token } = await context.stack.userWithToken(['activities:read', 'activities:write', 'wellness:write'], { userId: athlete.id });
  context.athlete = { id: athlete.id, email: athlete.email!, token };
  await uploadSeason(context.stack, token);
  await declareThresholds(context.stack, token, '2000-01-01');
  const coach = await createUser(store, { email: 'cora.coach@example.com', password: PASSWORD, first_name: 'Cora', last_name: 'Coach' });
  context.coach = { email: coach.email! };
  const team = await createTeam(store, coach.id, { name: 'Club Rouleur', description: 'Saturday long rides', ...LINKS });
  context.teamId = team.id;
  await authorizeTeam(store, team.id, athlete.id, ['activities:read']);
  context.outsiderId = (await createUser(store, { email: 'outsider@example.com', first_name: 'Otto', last_name: 'Side' })).id;
});
hub.after(async (context) => {
  await context.browser?.close();
  await context.stack?.close();
});

async function shot(page: Page, name: string): Promise<void> {
  await screenshot(page, `hub-${name}`);
}

async function assertNoOverflow(page: Page, what: string): Promise<void> {
  const widths = await page.evaluate<{ document: number; viewport: number }>('({ document: document.documentElement.scrollWidth, viewport: window.innerWidth })');
  assert.ok(widths.document <= widths.viewport, `${what}: the page is ${widths.document}px wide in a ${widths.viewport}px viewport`);
}

async function signedIn(context: Context, viewport: (typeof VIEWPORTS)[number], email: string): Promise<{ browser: BrowserContext; page: Page; errors: string[] }> {
  const browser = await context.browser.newContext({ viewport: { width: viewport.width, height: viewport.height } });
  await browser.route(/^https:\/\/rouleur\.example\.com\//, (route) => route.fulfill({ status: 200, contentType: 'image/svg+xml', body: LOGO }));
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => { if (message.type() === 'error') errors.push(message.text()); });
  await signInWithPassword(page, context.stack.baseUrl, email, PASSWORD);
  return { browser, page, errors };
}

const num = (text: string | null): number => Number((text ?? '').replace('−', '-'));

hub('the athlete sees load, fitness, fatigue and form with the numbers of the extension API, in Chromium', async (context) => {
  const today = new Date().toISOString().slice(0, 10);
  const start = new Date(Date.now() - 41 * 86_400_000).toISOString().slice(0, 10);
  const response = await context.stack.get(`/api/v1/ext/training-load?start=${start}&end=${today}&format=json`, context.athlete.token);
  const rows = (await response.json()) as { date: string; load: number; fitness: number; fatigue: number; form: number }[];
  const last = rows.at(-1)!;
  for (const viewport of VIEWPORTS) {
    const { browser, page, errors } = await signedIn(context, viewport, context.athlete.email);
    await Promise.all([page.waitForURL(/\/training\/load$/), page.getByRole('navigation', { name: 'Training' }).getByRole('link', { name: 'Load', exact: true }).click()]);
    assert.match((await page.locator('h1').textContent())!, /^Training load$/);
    const words = page.locator('#current');
    assert.ok(await words.isVisible());
    assert.is(await words.getAttribute('data-date'), last.date);
    for (const key of ['fitness', 'fatigue', 'form'] as const) {
      assert.is(num(await words.locator(`[data-value=${key}]`).textContent()), Math.round(last[key]), `${key} in words`);
      assert.is(Number(await words.getAttribute(`data-${key}`)), last[key]);
    }
    assert.match((await words.textContent())!, /fitness \S+, fatigue \S+, form \S+: \w+/);
    const bars = page.locator('figure.load svg.chart:visible rect.day');
    assert.is(await bars.count(), rows.length);
    for (const index of [0, Math.floor(rows.length / 2), rows.length - 2, rows.length - 1]) {
      const bar = bars.nth(index);
      assert.is(await bar.getAttribute('data-date'), rows[index]!.date);
      assert.is(Number(await bar.getAttribute('data-load')), rows[index]!.load, `bar ${rows[index]!.date}`);
    }
    assert.ok(rows.some((row) => row.load > 0));
    assert.is(await page.locator('figure.load svg.chart:visible path[data-line]').count(), 3, 'fitness, fatigue and form lines');
    await shot(page, `${viewport.name}-load`);
    await assertNoOverflow(page, 'load');

    await Promise.all([page.waitForURL(/range=3m/), page.getByRole('link', { name: '3 months' }).click()]);
    assert.is(await page.locator('figure.load svg.chart:visible rect.day').count(), 91);
    assert.equal(errors, [], 'no script or CSP error');
    await browser.close();
  }
});

hub('the calendar opens on the current week and its week totals are the sums of its activities, in Chromium', async (context) => {
  for (const viewport of VIEWPORTS) {
    const { browser, page, errors } = await signedIn(context, viewport, context.athlete.email);
    await Promise.all([page.waitForURL(/\/training\/calendar$/), page.getByRole('navigation', { name: 'Training' }).getByRole('link', { name: 'Calendar' }).click()]);
    assert.is(await page.locator('h1').textContent(), 'Calendar');
    const current = page.locator('tr.current');
    assert.is(await current.count(), 1, 'the current week is marked');
    assert.ok(await current.locator('td.today').count(), 'today is in it');
    const weeks = page.locator('table.calendar tbody tr');
    let activities = 0;
    for (let index = 0; index < (await weeks.count()); index++) {
      const week = weeks.nth(index);
      const each: { seconds: number; metres: number; load: number }[] = [];
      for (const item of await week.locator('.cal-act').all()) {
        each.push({ seconds: Number(await item.getAttribute('data-seconds')), metres: Number(await item.getAttribute('data-metres')), load: Number(await item.getAttribute('data-load')) });
      }
      const total = week.locator('[data-week-total]');
      const sum = (key: 'seconds' | 'metres' | 'load') => each.reduce((acc, item) => acc + item[key], 0);
      for (const key of ['seconds', 'metres', 'load'] as const) {
        assert.ok(Math.abs(Number(await total.getAttribute(`data-${key}`)) - sum(key)) < 1e-6, `week ${index} ${key}`);
      }
      activities += each.length;
    }
    assert.ok(activities >= 10, `activities on the calendar: ${activities}`);
    const first = page.locator('a.cal-act').first();
    assert.match((await first.textContent())!, /Road cycling.*\d+:\d\d.*km.*Load \d+/);
    await shot(page, `${viewport.name}-calendar`);
    await assertNoOverflow(page, 'calendar');
    await Promise.all([page.waitForURL(/week=/), page.getByRole('link', { name: '← Earlier' }).first().click()]);
    assert.ok(await page.locator('a.cal-act').count(), 'earlier weeks hold the season too');
    assert.is(await page.locator('tr.current').count(), 0);
    await Promise.all([page.waitForURL(/\/training\/activities\//), page.locator('a.cal-act').first().click()]);
    assert.equal(errors, [], 'no script or CSP error');
    await browser.close();
  }
});

hub('a coach sees a member\'s calendar, load and season under the member\'s name, and not a non-member\'s, in Chromium', async (context) => {
  for (const viewport of VIEWPORTS) {
    const { browser, page, errors } = await signedIn(context, viewport, context.coach.email);
    await page.goto(`${context.stack.baseUrl}/account/teams/${context.teamId}`);
    await Promise.all([page.waitForURL(/\/athletes$/), page.getByRole('link', { name: 'The athletes’ training' }).click()]);
    await shot(page, `${viewport.name}-team-athletes`);
    await Promise.all([page.waitForURL(/\/calendar$/), page.getByRole('link', { name: 'Calendar' }).last().click()]);
    assert.is(await page.locator('h1').textContent(), 'Calendar — Ada Rider');
    assert.ok(await page.locator('.cal-act').count());
    await shot(page, `${viewport.name}-member-calendar`);
    await assertNoOverflow(page, 'member calendar');
    await Promise.all([page.waitForURL(/\/members\/[^/]+\/activities\/[^/]+$/), page.locator('a.cal-act').last().click()]);
    assert.match((await page.locator('h1').textContent())!, / — Ada Rider$/, 'the member activity page carries the member\'s name');
    assert.ok(await page.locator('section[aria-labelledby="numbers"]').count(), 'the training numbers');
    assert.is(await page.locator('form.corrections').count(), 0, 'no corrections form for a coach');
    await shot(page, `${viewport.name}-member-activity`);
    await assertNoOverflow(page, 'member activity');
    await Promise.all([page.waitForURL(/\/calendar$/), page.getByRole('link', { name: '← Calendar — Ada Rider' }).click()]);
    await Promise.all([page.waitForURL(/\/load$/), page.locator('nav.member-pages').getByRole('link', { name: 'Load' }).click()]);
    assert.is(await page.locator('h1').textContent(), 'Training load — Ada Rider');
    assert.ok(await page.locator('figure.load svg.chart:visible rect.day').count());
    await shot(page, `${viewport.name}-member-load`);
    await Promise.all([page.waitForURL(/\/season$/), page.locator('nav.member-pages').getByRole('link', { name: 'Season' }).click()]);
    assert.is(await page.locator('h1').textContent(), 'Season — Ada Rider');
    await shot(page, `${viewport.name}-member-season`);
    await assertNoOverflow(page, 'member season');

    assert.equal(errors, [], 'no script or CSP error');
    const denied = await page.goto(`${context.stack.baseUrl}/teams/${context.teamId}/members/${context.outsiderId}/calendar`);
    assert.is(denied!.status(), 404);
    assert.is(await page.locator('.cal-act').count(), 0);
    await browser.close();
  }
});

hub('a new athlete\'s load page says to upload, in Chromium', async (context) => {
  const email = `new-${Math.random().toString(36).slice(2, 8)}@example.com`;
  await createUser(context.stack.store, { email, password: PASSWORD, first_name: 'Nia', last_name: 'New' });
  for (const viewport of VIEWPORTS) {
    const { browser, page } = await signedIn(context, viewport, email);
    await page.goto(`${context.stack.baseUrl}/training/load`);
    assert.ok(await page.getByText('No activities yet.').isVisible());
    await Promise.all([page.waitForURL(/\/training\/upload$/), page.getByRole('link', { name: 'Upload activities' }).click()]);
    await page.goto(`${context.stack.baseUrl}/training/load`);
    await shot(page, `${viewport.name}-load-empty`);
    await browser.close();
  }
});

hub.run();
