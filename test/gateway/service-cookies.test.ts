/**
 * The service's own cookies (issue 26 item 1; gateway/auth/credential-cookies.ts): `__Host-`, Secure and
 * Path=/ on https, Path=/ and HttpOnly always; a name that arrives twice is not honoured and the answer
 * expires the stray copies, never the service's own. On the real stack: the session and portal cookies as
 * the sign-in page and a portal link set them, and the planted `path=/account` copy that used to trap
 * /account and /signin in a redirect loop.
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { matchingPaths, ServiceCookie } from '../../gateway/auth/credential-cookies.js';
import { PortalLinks } from '../../gateway/auth/portal-links.js';
import { startStack, type TestStack } from '../support/stack.js';
import { freePort } from '../support/free-port.js';
import { sessionFor } from '../support/sessions.js';
import { makeApp, makeUser } from '../support/oauth.js';
import { locationOf } from '../support/browser-session.js';
import { REPO_ROOT } from '../support/paths.js';

/** A Koa app on port 0 that reads the cookie (answering its value) and sets it when asked. */
async function cookieServer(baseUrl: string): Promise<{ url: string; close(): Promise<void> }> {
  const cookie = new ServiceCookie('probe', baseUrl);
  const app = new Koa();
  app.use((ctx) => {
    if (ctx.query.set) cookie.write(ctx, String(ctx.query.set), 60_000);
    if (ctx.query.clear) cookie.clear(ctx);
    ctx.body = { name: cookie.name, value: cookie.read(ctx) };
  });
  const server = http.createServer(app.callback()).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const unit = suite('service cookies');

unit('on https every cookie is __Host-, Secure, HttpOnly, SameSite=Lax and Path=/; on http the same without the prefix and Secure', async () => {
  for (const [base, expected] of [
    ['https://threshold.example.com', '__Host-probe=v1; Path=/; HttpOnly; SameSite=Lax; Max-Age=60; Secure'],
    ['http://localhost:8080', 'probe=v1; Path=/; HttpOnly; SameSite=Lax; Max-Age=60'],
  ] as const) {
    const server = await cookieServer(base);
    try {
      const response = await fetch(`${server.url}/account?set=v1`);
      assert.equal(response.headers.getSetCookie(), [expected], base);
      const cleared = await fetch(`${server.url}/?clear=1`);
      assert.match(cleared.headers.getSetCookie()[0]!, /^(__Host-)?probe=; Path=\/; HttpOnly; SameSite=Lax; Max-Age=0/);
    } finally {
      await server.close();
    }
  }
});

unit('a cookie sent twice reads as absent and the answer expires every stray copy the path could carry, never the service\'s own', async () => {
  const server = await cookieServer('http://app.example.com:8080');
  try {
    const once = await fetch(`${server.url}/account`, { headers: { cookie: 'probe=mine' } });
    assert.is(((await once.json()) as { value: string | null }).value, 'mine');
    assert.equal(once.headers.getSetCookie(), [], 'nothing to expire');
    const twice = await fetch(`${server.url}/account/apps`, { headers: { cookie: 'probe=planted; other=1; probe=mine' } });
    assert.is(((await twice.json()) as { value: string | null }).value, null);
    const expired = twice.headers.getSetCookie();
    for (const line of expired) assert.match(line, /^probe=; Path=\/[^;]*; Max-Age=0/);
    for (const cookiePath of ['/account', '/account/', '/account/apps']) {
      assert.ok(expired.includes(`probe=; Path=${cookiePath}; Max-Age=0`), `host-only ${cookiePath}`);
      for (const domain of ['app.example.com', 'example.com']) assert.ok(expired.includes(`probe=; Path=${cookiePath}; Max-Age=0; Domain=${domain}`), `${domain} ${cookiePath}`);
    }
    assert.ok(expired.includes('probe=; Path=/; Max-Age=0; Domain=example.com'), 'a parent-domain copy at /');
    assert.not.ok(expired.includes('probe=; Path=/; Max-Age=0'), 'the service\'s own cookie (host-only, Path=/) stays');
    assert.not.ok(expired.some((line) => /Domain=com(;|$)/.test(line)), 'no single-label domain');
  } finally {
    await server.close();
  }
});

unit('on localhost or an IP address no Domain copy is expired: Chromium reads Domain=localhost as the host-only cookie, the service\'s own', async () => {
  for (const base of ['http://localhost:8080', 'http://127.0.0.1:8080']) {
    const server = await cookieServer(base);
    try {
      const twice = await fetch(`${server.url}/account`, { headers: { cookie: 'probe=planted; probe=mine' } });
      assert.equal(twice.headers.getSetCookie(), ['probe=; Path=/account; Max-Age=0'], base);
    } finally {
      await server.close();
    }
  }
});

unit('on https a __Host- name sent twice reads as absent and nothing is expired: the browser holds no other copy', async () => {
  const server = await cookieServer('https://threshold.example.com');
  try {
    const twice = await fetch(`${server.url}/account`, { headers: { cookie: '__Host-probe=a; __Host-probe=b; probe=c' } });
    assert.is(((await twice.json()) as { value: string | null }).value, null);
    assert.equal(twice.headers.getSetCookie(), []);
  } finally {
    await server.close();
  }
});

unit('matchingPaths lists the cookie paths a request path matches (RFC 6265 §5.1.4), and stops at a `;`', () => {
  assert.equal(matchingPaths('/'), ['/']);
  assert.equal(matchingPaths('/account'), ['/', '/account']);
  assert.equal(matchingPaths('/account/'), ['/', '/account', '/account/']);
  assert.equal(matchingPaths('/a/b/c'), ['/', '/a', '/a/', '/a/b', '/a/b/', '/a/b/c']);
  assert.equal(matchingPaths('/a;Domain=evil/b'), ['/']);
  assert.is(matchingPaths(`/${'x/'.repeat(50)}`).length <= 13, true, 'bounded');
});

unit('no part of the gateway writes a Set-Cookie header except credential-cookies.ts (every cookie gets the same attributes)', () => {
  const writers: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts') && /Set-Cookie|cookies\.set\(/i.test(fs.readFileSync(full, 'utf8'))) writers.push(path.relative(REPO_ROOT, full));
    }
  };
  walk(path.join(REPO_ROOT, 'gateway'));
  assert.equal(writers, ['gateway/auth/credential-cookies.ts']);
});

unit.run();

const onHttps = suite<{ stack: TestStack; port: number }>('service cookies on an https service');

onHttps.before(async (context) => {
  context.port = await freePort();
  context.stack = await startStack({ PORT: String(context.port), BASE_URL: 'https://threshold.example.com', PAGES_BASE: 'https://{slug}.pages.example.net' });
});
onHttps.after(async (context) => {
  await context.stack?.close();
});

onHttps('the session and portal cookies are __Host-, Secure and Path=/ when BASE_URL is https', async ({ stack, port }) => {
  const local = `http://127.0.0.1:${port}`;
  const signIn = await fetch(`${local}/signin`);
  assert.is(signIn.status, 200);
  const session = signIn.headers.getSetCookie();
  assert.is(session.length, 1);
  assert.match(session[0]!, /^__Host-threshold_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=3600; Secure$/);

  const { app, owner } = await makeApp(stack);
  const { token } = await new PortalLinks(stack.store, stack.baseUrl).create({ userId: owner.id, applicationId: app.id, destination: 'manage-teams', returnUrl: null });
  const visit = await fetch(`${local}/portal/link/${token}`, { redirect: 'manual' });
  assert.is(visit.status, 303);
  const portal = visit.headers.getSetCookie();
  assert.is(portal.length, 1);
  assert.match(portal[0]!, /^__Host-threshold_portal=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=1800; Secure$/);
});

onHttps.run();

const planted = suite<{ stack: TestStack }>('a planted path=/account session cookie');

planted.before(async (context) => {
  context.stack = await startStack();
});
planted.after(async (context) => {
  await context.stack?.close();
});

planted('a session cookie planted at path=/account beside the real one: /account bounces to /signin once, expiring the copy, and the person stays signed in', async ({ stack }) => {
  const author = await sessionFor(stack.store, (await makeUser(stack, { first_name: 'Author' })).id);
  const visitor = await sessionFor(stack.store, (await makeUser(stack, { first_name: 'Visitor' })).id);
  const authorValue = author.cookie.split('=')[1]!;
  // What the browser sends under /account: the longer path first (RFC 6265 §5.4), then the service's own.
  const account = await fetch(`${stack.baseUrl}/account`, { headers: { cookie: `threshold_session=${authorValue}; ${visitor.cookie}` }, redirect: 'manual' });
  assert.is(account.status, 303);
  assert.is(locationOf(account, stack.baseUrl), '/signin?next=%2Faccount');
  const expired = account.headers.getSetCookie();
  assert.ok(expired.includes('threshold_session=; Path=/account; Max-Age=0'), expired.join('\n'));
  assert.not.ok(expired.some((line) => /^threshold_session=[^;]*; Path=\/;(?!.*Domain)/.test(line)), 'the service\'s own cookie is neither expired nor replaced');
  // The browser, having dropped the copy, carries the visitor's cookie alone: /signin → /account → the visitor's page.
  const alone = (url: string) => fetch(`${stack.baseUrl}${url}`, { headers: { cookie: visitor.cookie }, redirect: 'manual' });
  const signIn = await alone('/signin?next=%2Faccount');
  assert.is(signIn.status, 303);
  assert.is(locationOf(signIn, stack.baseUrl), '/account');
  assert.ok(signIn.headers.getSetCookie().every((line) => line.startsWith('threshold_session=; Path=/signin')), 'only a copy under /signin is expired');
  const page = await alone('/account');
  assert.is(page.status, 200);
  const text = await page.text();
  assert.match(text, 'Visitor');
  assert.not.match(text, 'Author');
});

planted.run();
