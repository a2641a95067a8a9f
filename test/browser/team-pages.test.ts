/**
 * The team pages in a real browser (issue 14 item 2): an owner signs in, follows "Manage teams" from the
 * account page, creates a team through the form and invites a second user; with no mail server
 * configured the link is shown once on the page, the second user (another browser context) opens it,
 * joins, and sees the team read-only; the owner sees them among the members; and an athlete revokes a
 * team they authorized. Screenshots at desktop (1280×800) and phone (390×844) size land in
 * test-artifacts/screenshots/team-*.png. The same flows over HTTP: test/gateway/team-pages.test.ts.
 */
import { skipUnless, suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startStack, type TestStack } from '../support/stack.js';
import { ARTIFACTS, chromiumMissing, launchChromium } from '../support/chromium.js';
import { createUser } from '../../gateway/services/accounts.js';
import { createTeam } from '../../gateway/services/teams.js';
import { authorizeTeam } from '../../gateway/services/team-access.js';

interface Context {
  stack: TestStack;
  browser: Browser;
}

const teams = suite<Context>('browser team pages');
skipUnless(chromiumMissing(), teams);

const VIEWPORTS = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;
const PASSWORD = 'correct horse battery';

teams.before(async (context) => {
  context.stack = await startStack();
  context.browser = await launchChromium();
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
  const page = await browser.newPage();
  await page.goto(`${context.stack.baseUrl}/signin`);
  await page.fill('form[action="/signin/password"] input[name="email"]', email);
  await page.fill('form[action="/signin/password"] input[name="password"]', PASSWORD);
  await Promise.all([page.waitForURL(/\/account$/), page.click('form[action="/signin/password"] button[type="submit"]')]);
  return { id: user.id, email, browser, page };
}

teams('creates a team, invites a second user who joins, and revokes an authorized team, in Chromium', async (context) => {
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
    await page.fill('#privacy_statement', 'https://squad.example.com/privacy');
    await shot(page, `${viewport.name}-create-form`);
    await Promise.all([page.waitForURL(/notice=created/), page.getByRole('button', { name: 'Create team' }).click()]);
    assert.ok(await page.getByText('Team created.').isVisible());
    await shot(page, `${viewport.name}-created`);

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

    // The member, as an athlete, lets two teams see their data and revokes one.
    const coach = await createUser(context.stack.store, { email: null, first_name: 'Club', last_name: 'Coach' });
    for (const [name, scopes] of [['Riverside Cycling Club', ['activities:read']], ['Track Tuesdays', ['activities:read', 'wellness:read']]] as const) {
      const team = await createTeam(context.stack.store, coach.id, { name, description: 'Club sessions' });
      await authorizeTeam(context.stack.store, team.id, member.id, scopes);
    }
    await member.page.goto(`${context.stack.baseUrl}/account/teams`);
    assert.is(await member.page.getByRole('button', { name: 'Revoke' }).count(), 2);
    await shot(member.page, `${viewport.name}-authorized`);
    await Promise.all([member.page.waitForURL(/notice=revoked/), member.page.getByRole('button', { name: 'Revoke' }).first().click()]);
    assert.ok(await member.page.getByText('Access revoked').isVisible());
    assert.is(await member.page.getByRole('button', { name: 'Revoke' }).count(), 1);
    await shot(member.page, `${viewport.name}-revoked`);

    await owner.browser.close();
    await member.browser.close();
  }
});

teams.run();
