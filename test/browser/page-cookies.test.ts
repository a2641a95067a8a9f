/**
 * Login forgery through a hosted page, in Chromium (issue 26 item 1). Any user can publish a page, and a
 * page runs its author's script. The author signs in, copies their own session cookie's value into a
 * page's script, and the script writes it into each visitor's cookie jar: once for the whole host
 * (`path=/`, and with `domain=` the service's host) and once under `path=/account` and `path=/signin`.
 * Cookies ignore ports, so with the pages on the service's host a signed-out visitor who opened the page
 * was then signed in as the author at /account, and a signed-in one was trapped between /account and
 * /signin (each cookie sent twice reads as signed out, gaps.md "Pages").
 *
 * - By default the pages live on the loopback twin of the service's host (127.0.0.1 beside localhost):
 *   the script's cookies land on the pages' host, never the service's, so the visitor is never the author
 *   and /account and /signin answer without a loop.
 * - With the pages on the service's own host name (the operator's explicit PAGES_SHARE_COOKIE_SCOPE), a
 *   signed-in visitor who opened a page planting a `path=/account` copy reaches /account and /signin
 *   without a loop and stays themselves; a `path=/signin` copy costs one sign-in. In that mode a copy
 *   planted in a signed-out visitor's browser is still honoured where it is sent (the browser sends no
 *   attributes, so nothing tells it from the service's own): that is the risk the setting accepts, and why
 *   start-up refuses such a pages origin unless the operator names it.
 *
 * On the code before this change the first suite fails at its first /account (the visitor sees the
 * author's account), and the second at `page.goto('/account')` (net::ERR_TOO_MANY_REDIRECTS).
 */
import { skipUnless, suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startStack, type TestStack } from '../support/stack.js';
import { chromiumMissing, launchChromium, signInWithPassword } from '../support/chromium.js';
import { okJson } from '../support/json-api.js';
import { deploy } from '../support/page-deploys.js';
import { signIn } from '../support/browser-session.js';
import { freePort } from '../support/free-port.js';
import { createUser } from '../../gateway/services/accounts.js';

interface Context {
  stack: TestStack;
  browser: Browser;
  /** Page URLs: `root` plants the author's session for the whole host, `account` under /account, `signin` under /signin. */
  pages: { root: string; account: string; signin: string };
  authorEmail: string;
  authorSession: string;
}

const PASSWORD = 'correct horse battery staple';

const INDEX = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Free training plan</title></head><body><h1>Free training plan</h1><script src="plant.js"></script></body></html>';

/** The author's script: writes each cookie, then says it ran. */
function plantScript(cookies: string[]): string {
  return `for (const cookie of ${JSON.stringify(cookies)}) document.cookie = cookie;\ndocument.body.dataset.planted = 'yes';\n`;
}

/** The stack, an author with a session of their own, and the author's two planting pages. */
async function setUp(context: Context, env: Record<string, string>, tag: string): Promise<void> {
  context.stack = await startStack(env);
  context.browser = await launchChromium();
  const { stack } = context;
  context.authorEmail = `author-${tag}@example.com`;
  const author = await createUser(stack.store, { email: context.authorEmail, password: PASSWORD, first_name: 'Mallory', last_name: 'Author' });
  context.authorSession = (await signIn(stack, context.authorEmail, PASSWORD)).cookie('threshold_session')!;
  const token = (await stack.userWithToken([], { userId: author.id })).token;
  const serviceHost = new URL(stack.baseUrl).hostname;
  const value = context.authorSession;
  const plans = {
    root: [`threshold_session=${value}; path=/`, `threshold_session=${value}; path=/; domain=${serviceHost}`],
    account: [`threshold_session=${value}; path=/account`],
    signin: [`threshold_session=${value}; path=/signin`],
  };
  const urls: Record<string, string> = {};
  for (const [name, cookies] of Object.entries(plans)) {
    const slug = `free-plan-${name}-${tag}`;
    await okJson(stack, 'POST', '/api/v1/applications', token, { name: `Free plan ${name}`, description: null, redirect_uris: null, page: slug, generate_secret: false });
    const deployed = await deploy(stack, slug, token, [{ path: 'index.html', content: INDEX }, { path: 'plant.js', content: plantScript(cookies) }]);
    assert.is(deployed.status, 200, JSON.stringify(deployed.body));
    urls[name] = deployed.body.url;
  }
  context.pages = urls as Context['pages'];
}

async function tearDown(context: Context): Promise<void> {
  await context.browser?.close();
  await context.stack?.close();
}

/** Opens a page of the author's and waits for its script to have run. */
async function visitPlantingPage(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.waitForSelector('body[data-planted="yes"]');
}

/** A visitor in a fresh browser, closed after `visit`. */
async function asVisitor(context: Context, visit: (page: Page, browserContext: BrowserContext) => Promise<void>): Promise<void> {
  const browserContext = await context.browser.newContext();
  try {
    await visit(await browserContext.newPage(), browserContext);
  } finally {
    await browserContext.close();
  }
}

/** A visitor with an account of their own, signed in through the form in a fresh browser. */
async function asSignedInVisitor(context: Context, tag: string, visit: (page: Page, email: string, browserContext: BrowserContext) => Promise<void>): Promise<void> {
  const email = `visitor-${tag}@example.com`;
  await createUser(context.stack.store, { email, password: PASSWORD, first_name: 'Vera', last_name: 'Visitor' });
  await asVisitor(context, async (page, browserContext) => {
    await signInWithPassword(page, context.stack.baseUrl, email, PASSWORD);
    await visit(page, email, browserContext);
  });
}

/** Where a navigation ends and what it shows; a redirect loop throws (net::ERR_TOO_MANY_REDIRECTS). */
async function open(page: Page, url: string): Promise<{ path: string; status: number; text: string }> {
  const response = await page.goto(url);
  return { path: new URL(page.url()).pathname, status: response?.status() ?? 0, text: await page.content() };
}

/** Opens `url` on the service and expects the sign-in screen, with no cookie of the author's left for the service. */
async function expectSignInScreen(context: Context, page: Page, browserContext: BrowserContext, url: string): Promise<void> {
  const landed = await open(page, `${context.stack.baseUrl}${url}`);
  assert.is(landed.path, '/signin', `${url} ends at the sign-in screen`);
  assert.is(landed.status, 200);
  assert.not.match(landed.text, context.authorEmail);
  assert.equal(await authorCookies(browserContext, context.stack, context.authorSession), [], 'no cookie of the service carries the author\'s session');
}

/** The browser's cookies that carry the author's session value and reach the service's host (any path), as `domain/path`. */
async function authorCookies(browserContext: BrowserContext, stack: TestStack, value: string): Promise<string[]> {
  const host = new URL(stack.baseUrl).hostname;
  return (await browserContext.cookies())
    .filter((cookie) => cookie.value === value && cookie.domain.replace(/^\./, '') === host)
    .map((cookie) => `${cookie.domain}${cookie.path}`);
}

const byDefault = suite<Context>('browser: a hosted page cannot sign its visitors in (default pages origin)');
skipUnless(chromiumMissing(), byDefault);
byDefault.before((context) => setUp(context, {}, 'default'));
byDefault.after(tearDown);

byDefault('the pages live on a host of their own: the loopback twin of the service\'s', ({ stack, pages }) => {
  assert.is(new URL(stack.baseUrl).hostname, 'localhost');
  for (const url of Object.values(pages)) assert.is(new URL(url).hostname, '127.0.0.1');
});

byDefault('a signed-out visitor who opened the author\'s page is not signed in as the author at /account, and /signin answers', (context) => asVisitor(context, async (page, browserContext) => {
  for (const url of [context.pages.root, context.pages.account, context.pages.signin]) {
    await visitPlantingPage(page, url);
    await expectSignInScreen(context, page, browserContext, '/account');
    assert.not.match(await page.content(), 'Mallory');
    await expectSignInScreen(context, page, browserContext, '/signin');
  }
}));

byDefault('a signed-in visitor who opened the author\'s pages stays themselves at /account and /signin, without a redirect loop', (context) => asSignedInVisitor(context, 'default', async (page, email) => {
  const { stack, pages, authorEmail } = context;
  for (const url of [pages.root, pages.account, pages.signin]) {
    await visitPlantingPage(page, url);
    const account = await open(page, `${stack.baseUrl}/account`);
    assert.is(account.path, '/account');
    assert.is(account.status, 200);
    assert.match(account.text, email);
    assert.not.match(account.text, authorEmail);
    assert.is((await open(page, `${stack.baseUrl}/signin`)).path, '/training', 'signed in: /signin leads to the training pages');
  }
}));

byDefault.run();

const shared = suite<Context>('browser: pages on the service\'s host name (PAGES_SHARE_COOKIE_SCOPE) cannot trap /account and /signin');
skipUnless(chromiumMissing(), shared);
shared.before(async (context) => {
  const pagesPort = await freePort();
  await setUp(context, { PAGES_PORT: String(pagesPort), PAGES_BASE: `http://localhost:${pagesPort}`, PAGES_SHARE_COOKIE_SCOPE: 'yes' }, 'shared');
});
shared.after(tearDown);

shared('a copy planted under /account beside a signed-in visitor\'s cookie is expired on the way: no loop, and never the author', (context) => asSignedInVisitor(context, 'shared-account', async (page, email, browserContext) => {
  const { stack, pages, authorEmail, authorSession } = context;
  assert.is(new URL(pages.account).hostname, new URL(stack.baseUrl).hostname, 'the same host name, by the operator\'s choice');
  await visitPlantingPage(page, pages.account);
  assert.equal(await authorCookies(browserContext, stack, authorSession), ['localhost/account'], 'the script did plant its copy');
  // /account sees the name twice (signed out), expires the copy and sends the browser to /signin, which finds the visitor's own cookie alone.
  const account = await open(page, `${stack.baseUrl}/account`);
  assert.is(account.path, '/account');
  assert.is(account.status, 200);
  assert.match(account.text, email);
  assert.not.match(account.text, authorEmail);
  assert.equal(await authorCookies(browserContext, stack, authorSession), [], 'the planted copy is gone');
  assert.is((await open(page, `${stack.baseUrl}/signin`)).path, '/training');
}));

shared('a copy planted under /signin beside a signed-in visitor\'s cookie costs one sign-in, never a loop or the author\'s account', (context) => asSignedInVisitor(context, 'shared-signin', async (page, email, browserContext) => {
  const { stack, pages } = context;
  await visitPlantingPage(page, pages.signin);
  // /signin sees the name twice: it cannot tell which is the visitor's, so it expires the copy and starts a fresh session.
  await expectSignInScreen(context, page, browserContext, '/signin');
  await signInWithPassword(page, stack.baseUrl, email, PASSWORD);
  const account = await open(page, `${stack.baseUrl}/account`);
  assert.is(account.path, '/account');
  assert.match(account.text, email);
}));

shared('a signed-out visitor who opened a page planting a copy under /signin reaches /account and /signin without a loop, signed out', (context) => asVisitor(context, async (page, browserContext) => {
  await visitPlantingPage(page, context.pages.signin);
  // /account (no cookie) → /signin (the copy alone: the author) → expired on the way to /account → /signin, signed out.
  await expectSignInScreen(context, page, browserContext, '/account');
  await expectSignInScreen(context, page, browserContext, '/signin');
}));

shared.run();
