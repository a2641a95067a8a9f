/**
 * The front door (issue 26 item 6) over the real stack: `GET /` is a page for a browser (what this is, the
 * way in, the athlete's pages, /docs), a signed-in person's links to their training, and still the JSON 404
 * for a client that asks for JSON. Signing in or up lands on the training page unless a return address
 * (`next`, a path on this server only) or an authorization is carried; the emailed link carries it too.
 * The same door in Chromium: test/browser/front-door.test.ts.
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import type { SMTPServer } from 'smtp-server';
import { startStack, type TestStack } from '../support/stack.js';
import { mailTo, startMailCatcher } from '../support/mail-catcher.js';
import { CookieJar, csrfFrom, locationOf, signIn } from '../support/browser-session.js';
import { createUser } from '../../gateway/services/accounts.js';

interface Context {
  stack: TestStack;
  smtp: SMTPServer;
  smtpUrl: string;
  mails: string[];
}

const door = suite<Context>('front door');

door.before(async (context) => {
  Object.assign(context, await startMailCatcher());
  context.stack = await startStack({ SMTP_URL: context.smtpUrl });
});
door.after(async (context) => {
  await context.stack?.close();
  await new Promise<void>((resolve) => context.smtp.close(() => resolve()));
});

const PASSWORD = 'front door password';
let counter = 0;

async function person(stack: TestStack, first: string | null = 'Ada'): Promise<string> {
  counter += 1;
  const email = `door-${counter}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  await createUser(stack.store, { email, password: PASSWORD, first_name: first ?? undefined });
  return email;
}

function hrefs(html: string): string[] {
  return [...html.matchAll(/href="([^"]*)"/g)].map((match) => match[1]!);
}

door('answers a browser at / with a page: what this is, sign in or sign up, the training pages and /docs', async ({ stack }) => {
  for (const accept of ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', '*/*', null]) {
    const response = await fetch(`${stack.baseUrl}/`, { headers: accept === null ? {} : { accept } });
    assert.is(response.status, 200, `Accept: ${accept}`);
    assert.is(response.headers.get('content-type'), 'text/html; charset=utf-8');
    const body = await response.text();
    assert.not.match(body, '"detail"', 'not the JSON 404');
    assert.match(body, '<h1>Your training data, in one place</h1>');
    for (const link of ['/signin', '/signup', '/training', '/docs', '/openapi.json']) assert.ok(hrefs(body).includes(link), `links ${link}`);
    assert.ok(hrefs(body).every((href) => href.startsWith('/')), 'every link stays on this server');
    assert.match(response.headers.get('content-security-policy') ?? '', "frame-ancestors 'none'");
    assert.is(response.headers.get('cache-control'), 'no-store');
    assert.match(response.headers.get('vary') ?? '', /accept/i);
  }
  const head = await fetch(`${stack.baseUrl}/`, { method: 'HEAD', headers: { accept: 'text/html' } });
  assert.is(head.status, 200);
});

door('keeps the JSON 404 for a client that asks for JSON, and stays out of /openapi.json', async ({ stack }) => {
  for (const accept of ['application/json', 'application/json, text/plain, */*']) {
    const response = await fetch(`${stack.baseUrl}/`, { headers: { accept } });
    assert.is(response.status, 404, accept);
    assert.match(response.headers.get('content-type') ?? '', 'application/json');
    assert.equal(await response.json(), { detail: 'Not Found' });
  }
  const document = (await (await fetch(`${stack.baseUrl}/openapi.json`)).json()) as { paths: Record<string, unknown> };
  assert.not.ok('/' in document.paths, 'pages are not API operations');
  assert.is((await fetch(`${stack.baseUrl}/`, { method: 'POST', headers: { accept: 'text/html' } })).status, 405);
});

door('shows a signed-in person their name and the links to their training instead of the way in', async ({ stack }) => {
  const jar = await signIn(stack, await person(stack, '<b>Ada</b>'), PASSWORD);
  const response = await jar.get('/', { headers: { accept: 'text/html' } });
  assert.is(response.status, 200);
  const body = await response.text();
  assert.match(body, 'Signed in as <strong>&lt;b&gt;Ada&lt;/b&gt;</strong>', 'the name is escaped');
  for (const link of ['/training', '/training/upload', '/training/season', '/account', '/docs']) assert.ok(hrefs(body).includes(link), `links ${link}`);
  assert.not.ok(hrefs(body).includes('/signin'), 'no sign-in button for someone signed in');
});

door('lands on the training page after signing in or signing up', async ({ stack }) => {
  const email = await person(stack);
  const jar = new CookieJar(stack.baseUrl);
  const signedIn = await jar.post('/signin/password', { email, password: PASSWORD, csrf: await jar.csrf('/signin') });
  assert.is(signedIn.status, 303);
  assert.is(locationOf(signedIn, stack.baseUrl), '/training');
  assert.is((await jar.get('/training')).status, 200);
  assert.is(locationOf(await jar.get('/signin'), stack.baseUrl), '/training', 'the sign-in page sends a signed-in person on');

  const fresh = new CookieJar(stack.baseUrl);
  const created = await fresh.post('/signup', { email: `new-${email}`, password: PASSWORD, first_name: '', last_name: '', csrf: await fresh.csrf('/signup') });
  assert.is(created.status, 303);
  assert.is(locationOf(created, stack.baseUrl), '/training');
});

door('returns to the page that asked for sign-in, carried through the sign-in and sign-up forms', async ({ stack }) => {
  const jar = new CookieJar(stack.baseUrl);
  const asked = await jar.get('/training/season?sport=running&metric=speed');
  assert.is(locationOf(asked, stack.baseUrl), '/signin?next=%2Ftraining%2Fseason%3Fsport%3Drunning%26metric%3Dspeed');
  const page = await (await jar.get(locationOf(asked, stack.baseUrl)!)).text();
  assert.match(page, '<input type="hidden" name="next" value="/training/season?sport=running&amp;metric=speed">');
  assert.ok(hrefs(page).includes('/signup?next=%2Ftraining%2Fseason%3Fsport%3Drunning%26metric%3Dspeed'), 'the sign-up link carries it');
  const email = await person(stack);
  const signedIn = await jar.post('/signin/password', { email, password: PASSWORD, csrf: csrfFrom(page), next: '/training/season?sport=running&metric=speed' });
  assert.is(locationOf(signedIn, stack.baseUrl), '/training/season?sport=running&metric=speed');

  const fresh = new CookieJar(stack.baseUrl);
  const form = await (await fresh.get('/signup?next=%2Faccount')).text();
  assert.match(form, '<input type="hidden" name="next" value="/account">');
  const created = await fresh.post('/signup', { email: `new-${email}`, password: PASSWORD, csrf: csrfFrom(form), next: '/account' });
  assert.is(locationOf(created, stack.baseUrl), '/account');
});

door('never returns to another origin or back into sign-in [open redirect]', async ({ stack }) => {
  const hostile = [
    'https://evil.example/', '//evil.example/', '/\\evil.example/', ' /training', 'javascript:alert(1)', '/training\r\nSet-Cookie: a=b',
    '/signin', '/signout', '/signup?next=/signin', `/${'a'.repeat(3000)}`,
  ];
  for (const next of hostile) {
    const jar = new CookieJar(stack.baseUrl);
    const page = await (await jar.get(`/signin?next=${encodeURIComponent(next)}`)).text();
    const signedIn = await jar.post('/signin/password', { email: await person(stack), password: PASSWORD, csrf: csrfFrom(page), next });
    assert.is(signedIn.status, 303, next);
    const location = locationOf(signedIn, stack.baseUrl);
    assert.is(location, '/training', JSON.stringify(next));
  }
});

door('carries the return address through an emailed sign-in link', async (context) => {
  const { stack } = context;
  const email = await person(stack);
  const jar = new CookieJar(stack.baseUrl);
  const page = await (await jar.get('/signin?next=%2Ftraining%2Fupload')).text();
  const sent = await jar.post('/signin/email', { email, csrf: csrfFrom(page), next: '/training/upload' });
  assert.is(sent.status, 200);
  const mail = await mailTo(context, email);
  const link = /(\/signin\/link\?token=[A-Za-z0-9_-]{43}[^\s"<]*)/.exec(mail ?? '')?.[1]?.replaceAll('&amp;', '&');
  assert.ok(link, 'the mail has a link');
  assert.match(link!, '&next=%2Ftraining%2Fupload');
  const browser = new CookieJar(stack.baseUrl);
  const continued = await (await browser.get(link!)).text();
  const used = await browser.post('/signin/link', { token: /name="token" value="([^"]+)"/.exec(continued)![1]!, next: /name="next" value="([^"]+)"/.exec(continued)![1]!, csrf: csrfFrom(continued) });
  assert.is(used.status, 303);
  assert.is(locationOf(used, stack.baseUrl), '/training/upload');
});

door.run();
