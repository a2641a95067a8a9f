/**
 * An app taken public by its owner in a real browser (interface §5 "Consent": "the app writes one
 * purpose sentence in its settings"; §2: is_clientside_app "set when the app went live through the
 * one-click page path"): the owner signs in, writes the purposes on the settings page and takes the app
 * live through the one-click page path; another person then opens the app's authorization link, signs
 * in and sees the consent screen with those purpose lines, and Allow sends them to the app's page with
 * a code. Screenshots land in test-artifacts/screenshots/ (go-live-*.png).
 */
import { skipUnless, suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { startStack, type TestStack } from '../support/stack.js';
import { ARTIFACTS, chromiumMissing, launchChromium, submitPasswordForm } from '../support/chromium.js';
import { pkcePair } from '../support/oauth.js';
import { createApplication, createUser } from '../../gateway/services/accounts.js';
import { isPrivate, presentApplication } from '../../gateway/presenters/application.js';

const PASSWORD = 'correct horse battery staple';
const ACTIVITIES = 'We chart your rides and show how your fitness develops over the season.';
const WELLNESS = 'We use your resting heart rate and sleep to suggest easier days.';

const goLive = suite<{ stack: TestStack; browser: Browser }>('browser go live');
skipUnless(chromiumMissing(), goLive);

goLive.before(async (context) => {
  context.stack = await startStack();
  context.browser = await launchChromium();
});
goLive.after(async (context) => {
  await context.browser?.close();
  await context.stack?.close();
});

goLive('an owner writes the purposes and goes live in one click; another person then sees them on the consent screen', async ({ stack, browser }) => {
  await createUser(stack.store, { email: 'go-live-owner@example.com', password: PASSWORD });
  const ownerId = (await stack.store.users.findOne({ email: 'go-live-owner@example.com' }))!.id;
  const app = await createApplication(stack.store, ownerId, { name: 'Pacer' });
  await createUser(stack.store, { email: 'go-live-athlete@example.com', password: PASSWORD });

  const owner = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const settings = await owner.newPage();
  await settings.goto(`${stack.baseUrl}/signin`);
  await submitPasswordForm(settings, 'go-live-owner@example.com', PASSWORD);
  await settings.waitForURL(/\/training$/);
  await settings.goto(`${stack.baseUrl}/account/applications/${app.id}`);
  await settings.getByLabel('Your activities').fill(ACTIVITIES);
  await settings.getByLabel('Your daily wellness measures').fill(WELLNESS);
  await Promise.all([settings.waitForURL(/notice=settings_saved/), settings.getByRole('button', { name: 'Save settings' }).click()]);
  assert.is(await settings.getByLabel('Your activities').inputValue(), ACTIVITIES, 'the saved purpose is shown again');

  await settings.getByLabel('Page address').fill('pacer');
  await settings.locator('#live_description').fill('Training charts that run in your browser');
  await settings.locator('#live_image').fill('https://pacer.example.com/logo.png');
  await settings.screenshot({ path: path.join(ARTIFACTS, 'go-live-1-settings.png'), fullPage: true });
  await Promise.all([settings.waitForURL(/notice=went_live/), settings.getByRole('button', { name: 'Create the page and go live' }).click()]);
  assert.ok(await settings.getByText('This app is live as a client-side app').isVisible());
  await settings.screenshot({ path: path.join(ARTIFACTS, 'go-live-2-live.png'), fullPage: true });
  await owner.close();

  const stored = (await stack.store.applications.get(app.id))!;
  const pageUrl = `${stack.pagesBase}/pacer/`;
  assert.is(isPrivate(stored), false, 'the app is public');
  assert.ok(stored.redirect_uris.includes(pageUrl));
  assert.is(presentApplication(stored, null, { pagesBase: stack.pagesBase, baseUrl: stack.baseUrl }).is_clientside_app, true);

  const athlete = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await athlete.newPage();
  const authorize = new URL(`${stack.baseUrl}/oauth/authorize`);
  for (const [name, value] of Object.entries({
    response_type: 'code', client_id: app.id, redirect_uri: pageUrl, scope: 'activities:read wellness:read', state: 'st', code_challenge: pkcePair().challenge, code_challenge_method: 'S256',
  })) authorize.searchParams.set(name, value);
  await page.goto(authorize.href);
  await Promise.all([page.waitForURL(/\/oauth\/interaction\//), submitPasswordForm(page, 'go-live-athlete@example.com', PASSWORD)]);
  assert.is(await page.locator('h1').textContent(), 'Pacer wants to use your Threshold account', 'the consent screen, not the not-ready page');
  assert.ok(await page.getByText(ACTIVITIES).isVisible());
  assert.ok(await page.getByText(WELLNESS).isVisible());
  await page.screenshot({ path: path.join(ARTIFACTS, 'go-live-3-consent.png'), fullPage: true });
  await Promise.all([page.waitForURL(`${pageUrl}**`), page.click('button[name="decision"][value="approve"]')]);
  const callback = new URL(page.url());
  assert.ok(callback.searchParams.get('code'), 'the page receives a code');
  assert.is(callback.searchParams.get('state'), 'st');
  await athlete.close();
});

goLive.run();
