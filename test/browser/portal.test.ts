/**
 * The portal in a real browser (issue 14: "the portal's two destinations with and without return_url";
 * "a portal link works once"): an app's back end asks for a link, Chromium follows it, the branded page
 * opens, "Back to <app>" returns to the app, a team is revoked through the form, and the same link
 * opened again shows "already used". Screenshots at desktop (1280×800) and phone (390×844) size land in
 * test-artifacts/screenshots/portal-*.png.
 */
import { skipUnless, suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import http from 'node:http';
import path from 'node:path';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { startStack, type TestStack } from '../support/stack.js';
import { ARTIFACTS, chromiumMissing, launchChromium, VIEWPORTS } from '../support/chromium.js';
import { sendJson } from '../support/json-api.js';
import { createApplication, createUser } from '../../gateway/services/accounts.js';
import { newId } from '../../storage/ids.js';
import type { ApplicationRecord } from '../../storage/store.js';

interface Context {
  stack: TestStack;
  browser: Browser;
  rp: http.Server;
  rpUrl: string;
  app: ApplicationRecord;
}

const portal = suite<Context>('browser portal');
skipUnless(chromiumMissing(), portal);


portal.before(async (context) => {
  context.stack = await startStack();
  context.browser = await launchChromium();
  // The app: a loopback server whose /app/back page the "Back to" link returns to.
  context.rp = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Pacer</title><h1>Back in Pacer</h1>');
  });
  context.rp.listen(0, '127.0.0.1');
  await once(context.rp, 'listening');
  context.rpUrl = `http://127.0.0.1:${(context.rp.address() as AddressInfo).port}`;
  const owner = await createUser(context.stack.store, { email: 'pacer-dev@example.com' });
  const app = await createApplication(context.stack.store, owner.id, { name: 'Pacer', redirect_uris: [`${context.rpUrl}/app`] });
  context.app = (await context.stack.store.applications.updateOne({ id: app.id }, {
    set: { description: 'Training charts', url: 'https://pacer.example.com', image: null, privacy_statement: 'https://pacer.example.com/privacy', brand_color: '#0e7c66' },
  }))!;
});
portal.after(async (context) => {
  await context.browser?.close();
  context.rp?.close();
  await context.stack?.close();
});

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, `portal-${name}.png`), fullPage: true });
}

/** An athlete with an app token, two authorized teams and a Garmin connection still importing. */
async function athlete(context: Context): Promise<{ userId: string; token: string }> {
  const { stack, app } = context;
  const user = await stack.userWithToken(['activities:read'], { appId: app.id });
  const now = Date.now();
  const coach = await createUser(stack.store, { email: `${newId()}@example.com` });
  for (const [name, description, scopes] of [
    ['Riverside Cycling Club', 'Tuesday intervals and the Sunday long ride', ['activities:read']],
    ['Coach Maren — Endurance Squad', 'Training plans for the spring marathon block', ['activities:read', 'wellness:read']],
  ] as const) {
    const teamId = newId();
    await stack.store.teams.insert({ id: teamId, user_id: coach.id, name, description, url: '', image: '', privacy_statement: '', created_at: now });
    await stack.store.team_authorizations.insert({ id: newId(), team_id: teamId, user_id: user.userId, scopes: [...scopes], created_at: now, updated_at: now });
  }
  await stack.store.connections.insert({
    id: newId(), user_id: user.userId, provider: 'garmin_connect', external_user_id: null, credentials: {}, status: 'connected',
    backfill_loaded_until: null, backfill_done: false, created_at: now, updated_at: now,
  });
  return user;
}

async function link(context: Context, token: string, destination: string, returnUrl: string | null): Promise<string> {
  const response = await sendJson(context.stack, 'POST', '/api/v1/portal/sessions', token, { destination, return_url: returnUrl });
  assert.is(response.status, 200, JSON.stringify(response.body));
  return response.body.url;
}

portal('opens both destinations with and without return_url, revokes a team, and returns to the app, in Chromium', async (context) => {
  for (const viewport of VIEWPORTS) {
    const { token } = await athlete(context);
    const page = await context.browser.newPage({ viewport: { width: viewport.width, height: viewport.height } });

    await page.goto(await link(context, token, 'manage-integrations', `${context.rpUrl}/app/back`));
    assert.is(new URL(page.url()).pathname, '/portal/manage-integrations');
    assert.is(await page.locator('h1').textContent(), 'Connected platforms');
    assert.ok(await page.getByText('Connected · importing your history').isVisible());
    await shot(page, `${viewport.name}-integrations-return`);

    await page.goto(await link(context, token, 'manage-integrations', null));
    assert.ok(await page.getByText('close this page to return to Pacer').isVisible());
    assert.is(await page.getByText('Back to Pacer').count(), 0);
    await shot(page, `${viewport.name}-integrations-no-return`);

    await page.goto(await link(context, token, 'manage-teams', null));
    assert.is(await page.locator('h1').textContent(), 'Teams with access');
    await shot(page, `${viewport.name}-teams-no-return`);

    const teamsLink = await link(context, token, 'manage-teams', `${context.rpUrl}/app/back`);
    await page.goto(teamsLink);
    assert.is(await page.getByRole('button', { name: 'Revoke' }).count(), 2);
    await shot(page, `${viewport.name}-teams-return`);
    await page.getByRole('button', { name: 'Revoke' }).first().click();
    await page.waitForURL(/notice=revoked/);
    assert.ok(await page.getByText('Access revoked').isVisible());
    assert.is(await page.getByRole('button', { name: 'Revoke' }).count(), 1);
    await shot(page, `${viewport.name}-teams-revoked`);

    await page.getByRole('link', { name: 'Back to Pacer' }).last().click();
    await page.waitForURL(`${context.rpUrl}/app/back`);
    assert.is(await page.locator('h1').textContent(), 'Back in Pacer');

    // "A portal link works once": the link just used, opened again.
    const again = await page.goto(teamsLink);
    assert.is(again?.status(), 410);
    assert.is(await page.locator('h1').textContent(), 'This link was already used');
    await shot(page, `${viewport.name}-link-used`);
    await page.close();
  }
});

portal.run();
