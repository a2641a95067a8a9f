/**
 * The team pages in a real browser (issue 14 item 2): an owner signs in, follows "Manage teams" from the
 * account page, creates a team through the form and invites a second user; with no mail server
 * configured the link is shown once on the page, the second user (another browser context) opens it,
 * joins, and sees the team read-only; the owner sees them among the members; and that user, as an
 * athlete, authorizes a club's team through the consent screen (the team variant) and revokes a team. Screenshots at desktop (1280×800) and phone (390×844) size land in
 * test-artifacts/screenshots/team-*.png. The same flows over HTTP: test/gateway/team-pages.test.ts.
 */
import { skipUnless, suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startStack, type TestStack } from '../support/stack.js';
import { ARTIFACTS, chromiumMissing, launchChromium, signInWithPassword, VIEWPORTS } from '../support/chromium.js';
import { createUser } from '../../gateway/services/accounts.js';
import { createTeam } from '../../gateway/services/teams.js';
import { authorizeTeam } from '../../gateway/services/team-access.js';
import { makeApp, pkcePair } from '../support/oauth.js';
import type { ApplicationRecord } from '../../storage/store.js';

interface Context {
  stack: TestStack;
  browser: Browser;
  /** A public coaching app whose consent screen carries the team variant. */
  app: ApplicationRecord;
}

const teams = suite<Context>('browser team pages');
skipUnless(chromiumMissing(), teams);

const PASSWORD = 'correct horse battery';
const CALLBACK = 'https://coachly.example.com/callback';
/** The app's logo (and the teams'), served by the test for its https URL. */
const LOGO = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 48 48"><rect width="48" height="48" rx="10" fill="#0e7c66"/><path d="M12 32l8-10 6 6 10-12" stroke="#fff" stroke-width="4" fill="none" stroke-linecap="round" stroke-linejoin="round"/></svg>';

teams.before(async (context) => {
  context.stack = await startStack();
  context.browser = await launchChromium();
  const { app } = await makeApp(context.stack, { redirectUris: [CALLBACK] });
  context.app = (await context.stack.store.applications.updateOne({ id: app.id }, {
    set: {
      name: 'Coachly', description: 'Coaching plans', url: 'https://coachly.example.com', image: `${CALLBACK.replace('/callback', '')}/logo.svg`, privacy_statement: 'https://coachly.example.com/privacy',
      purposes: { activities: 'Your coach reads your rides to plan the next week.', wellness: 'Your coach plans recovery from your sleep and resting heart rate.' },
    },
  }))!;
});
teams.after(async (context) => {
  await context.browser?.close();
  await context.stack?.close();
});

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, `team-${name}.png`), fullPage: true });
}

/** A new account, signed in through the sign-in page of a fresh browser context. */
async function signedIn(context: Context, viewport: (typeof VIEWPORTS)[number], first: string, last: string): Promise<{ id: string; email: string; browser: BrowserContext; page: Page }> {
  const email = `${first.toLowerCase()}-${viewport.name}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const user = await createUser(context.stack.store, { email, password: PASSWORD, first_name: first, last_name: last });
  const browser = await context.browser.newContext({ viewport: { width: viewport.width, height: viewport.height } });
  // The teams' logos (a team is created with one), served by the test for their https URLs.
  await browser.route(/^https:\/\/(squad|riverside)\.example\.com\//, (route) => route.fulfill({ status: 200, contentType: 'image/svg+xml', body: LOGO }));
  const page = await browser.newPage();
  await signInWithPassword(page, context.stack.baseUrl, email, PASSWORD);
  await page.goto(`${context.stack.baseUrl}/account`);
  return { id: user.id, email, browser, page };
}

teams('creates a team, invites a second user who joins, authorizes a team on the consent screen and revokes it, in Chromium', async (context) => {
  for (const viewport of VIEWPORTS) {
    const owner = await signedIn(context, viewport, 'Maren', 'Holt');
    const { page } = owner;
    await shot(page, `${viewport.name}-account`);
    await Promise.all([page.waitForURL(/\/account\/teams$/), page.getByRole('link', { name: 'Manage teams' }).click()]);
    assert.is(await page.locator('h1').textContent(), 'Teams');
    await shot(page, `${viewport.name}-empty`);

    await page.getByText('Create a team').click();
    await page.fill('#name', 'Endurance Squad');
    await page.fill('#description', 'Training plans for the spring marathon block');
    await page.fill('#url', 'https://squad.example.com');
    await page.fill('#image', 'https://squad.example.com/logo.png');
    await page.fill('#privacy_statement', 'https://squad.example.com/privacy');
    await shot(page, `${viewport.name}-create-form`);
    await Promise.all([page.waitForURL(/notice=created/), page.getByRole('button', { name: 'Create team' }).click()]);
    assert.ok(await page.getByText('Team created.').isVisible());
    await shot(page, `${viewport.name}-created`);

    assert.ok(await page.getByText('You get a link to pass on (this server sends no email)').isVisible());
    const member = await signedIn(context, viewport, 'Jonas', 'Berg');
    await page.fill('#email', member.email);
    await Promise.all([page.waitForURL(/\/invitations$/), page.getByRole('button', { name: 'Send invitation' }).click()]);
    assert.is(await page.locator('h1').textContent(), 'Invitation created');
    const link = (await page.locator('code.secret').textContent())!.trim();
    assert.match(link, /\/teams\/invitations\/[A-Za-z0-9_-]{43}$/);
    await shot(page, `${viewport.name}-invitation-created`);

    await member.page.goto(link);
    assert.ok(await member.page.getByRole('button', { name: 'Join Endurance Squad' }).isVisible());
    assert.is(await member.page.locator('h1').textContent(), 'Endurance Squad');
    await shot(member.page, `${viewport.name}-invitation`);
    await Promise.all([member.page.waitForURL(/notice=joined/), member.page.getByRole('button', { name: 'Join Endurance Squad' }).click()]);
    assert.ok(await member.page.getByText('You joined the team.').isVisible());
    assert.is(await member.page.getByRole('button', { name: 'Save changes' }).count(), 0);
    await shot(member.page, `${viewport.name}-member-view`);

    const used = await member.page.goto(link);
    assert.is(used?.status(), 410);
    await shot(member.page, `${viewport.name}-invitation-used`);

    await page.getByRole('link', { name: 'Back to the team' }).click();
    await page.waitForURL(/\/account\/teams\/[^/]+$/);
    assert.ok(await page.getByText('Jonas Berg').isVisible());
    await shot(page, `${viewport.name}-owner-members`);

    // The member, as an athlete, lets a club's team see their data through the consent screen (another
    // team was allowed before), then revokes one.
    const coach = await createUser(context.stack.store, { email: null, first_name: 'Club', last_name: 'Coach' });
    const links = { url: 'https://riverside.example.com', image: 'https://riverside.example.com/logo.png', privacy_statement: 'https://riverside.example.com/privacy' };
    const club = await createTeam(context.stack.store, coach.id, { name: 'Riverside Cycling Club', description: 'Tuesday intervals and the Sunday long ride', ...links });
    const earlier = await createTeam(context.stack.store, coach.id, { name: 'Track Tuesdays', description: 'Club sessions', ...links });
    await authorizeTeam(context.stack.store, earlier.id, member.id, ['activities:read', 'wellness:read']);
    await member.page.route('https://coachly.example.com/logo.svg', (route) => route.fulfill({ status: 200, contentType: 'image/svg+xml', body: LOGO }));
    const authorize = new URL('/oauth/authorize', context.stack.baseUrl);
    for (const [key, value] of Object.entries({
      response_type: 'code', client_id: context.app.id, redirect_uri: CALLBACK, scope: 'openid activities:read wellness:read', team_id: club.id,
      code_challenge: pkcePair().challenge, code_challenge_method: 'S256', state: 'st',
    })) authorize.searchParams.set(key, value);
    await member.page.goto(authorize.href);
    await shot(member.page, `${viewport.name}-team-consent`);
    assert.ok(await member.page.getByText('Also share with the team “Riverside Cycling Club”').isVisible());
    // The browser is sent back to the app with a code (the app's host does not exist here, so only the request is observed).
    const [back] = await Promise.all([member.page.waitForRequest((request) => request.url().startsWith(CALLBACK)), member.page.getByRole('button', { name: 'Allow' }).click()]);
    assert.ok(new URL(back.url()).searchParams.get('code'));
    await member.page.close();
    member.page = await member.browser.newPage();
    await member.page.goto(`${context.stack.baseUrl}/account/teams`);
    assert.is(await member.page.getByRole('button', { name: 'Revoke' }).count(), 2);
    await shot(member.page, `${viewport.name}-authorized`);
    await Promise.all([member.page.waitForURL(/notice=revoked/), member.page.getByRole('button', { name: 'Revoke' }).first().click()]);
    assert.ok(await member.page.getByText('Access revoked').isVisible());
    assert.is(await member.page.getByRole('button', { name: 'Revoke' }).count(), 1);
    assert.is(await member.page.getByText('Riverside Cycling Club').count(), 0, 'the team allowed on the consent screen is gone');
    await shot(member.page, `${viewport.name}-revoked`);

    await owner.browser.close();
    await member.browser.close();
  }
});

teams.run();
