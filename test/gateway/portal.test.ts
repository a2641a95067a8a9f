/**
 * The portal on the real stack (interface §4 "Portal", §7; gaps.md "Portal"; AUTH.md: the same matcher
 * for the portal's return_url, portal refusing delegated tokens): creating a link with every token kind
 * and every refusal the interface names, following it once and only once, the two destinations, the
 * revoke form and its CSRF token, and the headers every page carries.
 */
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { sendJson, validationIssueAt } from '../support/json-api.js';
import { CookieJar, csrfFrom, locationOf } from '../support/browser-session.js';
import { createApplication, createUser } from '../../gateway/services/accounts.js';
import { PORTAL_LINK_TTL_MS, PortalLinks } from '../../gateway/auth/portal-links.js';
import { newId } from '../../storage/ids.js';
import type { ApplicationRecord } from '../../storage/store.js';

let stack: TestStack;
let app: ApplicationRecord;

test.before(async () => {
  stack = await startStack();
  const owner = await createUser(stack.store, { email: 'portal-owner@example.com' });
  app = await createApplication(stack.store, owner.id, { name: 'Pacer <b>&', redirect_uris: ['https://pacer.example.com/app', 'com.pacer:/back'] });
  await stack.store.applications.updateOne({ id: app.id }, { set: { brand_color: '#0e7c66' } });
});
test.after(async () => {
  await stack.close();
});

function create(token: string, body: unknown) {
  return sendJson(stack, 'POST', '/api/v1/portal/sessions', token, body);
}

/** A user with an app token, and a portal link for them. */
async function linkFor(destination: string, returnUrl: string | null = null, scopes: string[] = []): Promise<{ userId: string; token: string; url: string }> {
  const user = await stack.userWithToken(scopes, { appId: app.id });
  const response = await create(user.token, { destination, return_url: returnUrl });
  assert.is(response.status, 200, JSON.stringify(response.body));
  return { ...user, url: response.body.url };
}

async function team(ownerId: string, name: string): Promise<string> {
  const id = newId();
  const now = Date.now();
  await stack.store.teams.insert({ id, user_id: ownerId, name, description: 'Tuesday intervals', url: '', image: '', privacy_statement: '', created_at: now });
  await stack.store.team_members.insert({ id: newId(), team_id: id, user_id: ownerId, role: 'owner', created_at: now });
  return id;
}

async function authorize(teamId: string, userId: string, scopes: string[]): Promise<void> {
  const now = Date.now();
  await stack.store.team_authorizations.insert({ id: newId(), team_id: teamId, user_id: userId, scopes, created_at: now, updated_at: now });
}

function assertPageHeaders(response: Response): void {
  assert.match(response.headers.get('content-security-policy') ?? '', "frame-ancestors 'none'");
  assert.match(response.headers.get('content-security-policy') ?? '', "default-src 'none'");
  assert.is(response.headers.get('x-frame-options'), 'DENY');
  assert.is(response.headers.get('cache-control'), 'no-store');
  assert.is(response.headers.get('referrer-policy'), 'no-referrer');
  assert.is(response.headers.get('access-control-allow-origin'), null);
}

test('an app token gets a single-use link on this server, expiring within five minutes', async () => {
  const before = Date.now();
  const { token } = await stack.userWithToken([], { appId: app.id });
  const response = await create(token, { destination: 'manage-integrations', return_url: null });
  assert.is(response.status, 200);
  assert.equal(Object.keys(response.body).sort(), ['expires_at', 'url']);
  assert.match(response.body.url, new RegExp(`^${stack.baseUrl}/portal/link/[A-Za-z0-9_-]{43}$`));
  const expires = Date.parse(response.body.expires_at);
  assert.ok(expires > before && expires <= Date.now() + PORTAL_LINK_TTL_MS, response.body.expires_at);
  assert.match(response.body.expires_at, /Z$/);
  const stored = await stack.store.portal_sessions.findOne({ application_id: app.id });
  assert.not.match(JSON.stringify(stored), response.body.url.split('/').pop(), 'only the hash of the link is stored');
});

test('a delegated token is refused with 403', async () => {
  const coach = await stack.userWithToken(['activities:read', 'sharing:read'], { appId: app.id });
  const athlete = await createUser(stack.store, { email: null, first_name: 'Managed', managed_by: coach.userId });
  const minted = await sendJson(stack, 'POST', '/api/v1/oauth/delegated-token', coach.token, { sub: athlete.id, team_id: null, scopes: null });
  assert.is(minted.status, 200);
  const response = await create(minted.body.access_token, { destination: 'manage-teams', return_url: null });
  assert.is(response.status, 403);
  assert.is(await stack.store.portal_sessions.count({ user_id: athlete.id }), 0);
});

test('a token that belongs to no application (a personal token) is refused with 400', async () => {
  const { userId, token } = await stack.userWithToken(['activities:read']);
  const response = await create(token, { destination: 'manage-teams', return_url: null });
  assert.is(response.status, 400);
  assert.type(response.body.detail, 'string');
  assert.is(await stack.store.portal_sessions.count({ user_id: userId }), 0);
});

test('without a token: 401', async () => {
  const response = await fetch(`${stack.baseUrl}/api/v1/portal/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"destination":"manage-teams"}' });
  assert.is(response.status, 401);
});

test('an unknown destination is a 422', async () => {
  const { token } = await stack.userWithToken([], { appId: app.id });
  validationIssueAt(await create(token, { destination: 'settings', return_url: null }), ['body', 'destination']);
  validationIssueAt(await create(token, { return_url: null }), ['body', 'destination']);
});

test('return_url must equal or sit under a registered redirect URI, by the redirect matcher [traversal, look-alikes, length]', async () => {
  const { token } = await stack.userWithToken([], { appId: app.id });
  for (const accepted of ['https://pacer.example.com/app', 'https://pacer.example.com/app/settings/sync', 'com.pacer:/back']) {
    assert.is((await create(token, { destination: 'manage-teams', return_url: accepted })).status, 200, accepted);
  }
  for (const refused of [
    'https://pacer.example.com/apple', 'https://pacer.example.com/app/../admin', 'https://pacer.example.com/app/%2e%2e/admin',
    'https://pacer.example.com.evil.com/app', 'https://pacer.example.com@evil.com/app', 'http://pacer.example.com/app',
    'javascript:alert(1)', 'https://pacer.example.com/app#x', 'com.pacer:/back/more', 'https://evil.com/',
    // As for redirect URIs, a query the registration does not carry is refused.
    'https://pacer.example.com/app/settings?tab=sync',
  ]) {
    validationIssueAt(await create(token, { destination: 'manage-teams', return_url: refused }), ['body', 'return_url']);
  }
  const long = `https://pacer.example.com/app/${'a'.repeat(2049 - 'https://pacer.example.com/app/'.length)}`;
  assert.is(long.length, 2049);
  validationIssueAt(await create(token, { destination: 'manage-teams', return_url: long }), ['body', 'return_url']);
  assert.is((await create(token, { destination: 'manage-teams', return_url: long.slice(0, 2048) })).status, 200, '2048 characters are allowed');
});

test('a portal link works once: the second use answers 410 "already used", in this browser or another', async () => {
  const { url } = await linkFor('manage-teams');
  const jar = new CookieJar(stack.baseUrl);
  const first = await jar.get(url);
  assert.is(first.status, 303);
  assert.is(locationOf(first, stack.baseUrl), '/portal/manage-teams');
  const cookie = first.headers.getSetCookie().find((line) => line.startsWith('threshold_portal='))!;
  assert.match(cookie, /Path=\/;/, 'Path=/ (the `__Host-` prefix on https requires it; only the portal reads it)');
  assert.match(cookie, /HttpOnly/);
  assert.match(cookie, /SameSite=Lax/);
  for (const again of [jar, new CookieJar(stack.baseUrl)]) {
    const second = await again.get(url);
    assert.is(second.status, 410);
    assertPageHeaders(second);
    const text = await second.text();
    assert.match(text, 'This link was already used');
    assert.match(text, 'Pacer &lt;b&gt;&amp;', 'branded, escaped');
  }
  assert.is((await jar.get('/portal/manage-teams')).status, 200, 'the visit the first use opened goes on');
});

test('of concurrent uses of one link exactly one opens the portal', async () => {
  const { url } = await linkFor('manage-integrations');
  const answers = await Promise.all(Array.from({ length: 6 }, () => new CookieJar(stack.baseUrl).get(url)));
  assert.equal(answers.map((answer) => answer.status).sort(), [303, 410, 410, 410, 410, 410]);
});

test('an expired link answers 410, an unknown or malformed one 404, and neither opens anything', async () => {
  const { userId } = await stack.userWithToken([], { appId: app.id });
  const { token } = await new PortalLinks(stack.store, stack.baseUrl).create(
    { userId, applicationId: app.id, destination: 'manage-teams', returnUrl: null }, Date.now() - PORTAL_LINK_TTL_MS - 1000,
  );
  const jar = new CookieJar(stack.baseUrl);
  const expired = await jar.get(`/portal/link/${token}`);
  assert.is(expired.status, 410);
  assert.match(await expired.text(), 'This link has expired');
  for (const unknown of ['A'.repeat(43), 'short', `${token}x`]) {
    const response = await jar.get(`/portal/link/${unknown}`);
    assert.is(response.status, 404, unknown);
    assert.match(await response.text(), 'This link is not valid');
  }
  assert.equal([...jar.cookies.keys()], []);
  assert.is((await jar.get('/portal/manage-teams')).status, 403);
});

test('manage-teams lists the authorized teams, branded, with the way back to return_url', async () => {
  const { userId, url } = await linkFor('manage-teams', 'https://pacer.example.com/app/done&next');
  const owner = await createUser(stack.store, { email: `${newId()}@example.com` });
  await authorize(await team(owner.id, 'Riverside <Cycling> Club'), userId, ['activities:read', 'wellness:read']);
  const jar = new CookieJar(stack.baseUrl);
  await jar.get(url);
  const page = await jar.get('/portal/manage-teams');
  assert.is(page.status, 200);
  assertPageHeaders(page);
  const text = await page.text();
  assert.match(text, 'Riverside &lt;Cycling&gt; Club');
  assert.match(text, 'Pacer &lt;b&gt;&amp;');
  assert.match(text, '--accent:#0e7c66', 'the app\'s brand colour');
  assert.match(text, 'href="https://pacer.example.com/app/done&amp;next"');
  assert.match(text, 'Back to Pacer &lt;b&gt;&amp;');
  assert.not.match(text, '<script');
});

test('without return_url the page tells the user to close it, and links nowhere else', async () => {
  const { url } = await linkFor('manage-integrations');
  const jar = new CookieJar(stack.baseUrl);
  await jar.get(url);
  const text = await (await jar.get('/portal/manage-integrations')).text();
  assert.match(text, 'close this page to return to Pacer');
  assert.not.match(text, 'Back to');
  assert.equal([...text.matchAll(/href="([^"]*)"/g)].map((match) => match[1]!).filter((href) => !href.startsWith('/')), []);
});

test('manage-integrations shows each platform with its connection and sync state', async () => {
  const { userId, url } = await linkFor('manage-integrations');
  const now = Date.now();
  await stack.store.connections.insert({
    id: newId(), user_id: userId, provider: 'intervals_icu', external_user_id: null, credentials: {}, status: 'connected',
    backfill_loaded_until: null, backfill_done: false, created_at: now, updated_at: now,
  });
  const jar = new CookieJar(stack.baseUrl);
  await jar.get(url);
  const text = await (await jar.get('/portal/manage-integrations')).text();
  for (const name of ['Garmin Connect', 'intervals.icu', 'Wahoo']) assert.match(text, name);
  assert.match(text, 'Connected · importing your history');
  assert.match(text, 'not available on this server');
});

test('a visit opens only its own destination, and never signs in to the account pages', async () => {
  const { url } = await linkFor('manage-teams');
  const jar = new CookieJar(stack.baseUrl);
  await jar.get(url);
  assert.is((await jar.get('/portal/manage-integrations')).status, 403);
  assert.is(locationOf(await jar.get('/account'), stack.baseUrl), '/signin?next=%2Faccount');
  const stranger = await new CookieJar(stack.baseUrl).get('/portal/manage-teams');
  assert.is(stranger.status, 403);
  assertPageHeaders(stranger);
});

test('revoking a team needs the visit\'s CSRF token, and kills the team\'s delegated tokens at once', async () => {
  const coach = await stack.userWithToken(['activities:read', 'sharing:read'], { appId: app.id });
  const teamId = await team(coach.userId, 'Coached');
  const { userId, url } = await linkFor('manage-teams');
  await authorize(teamId, userId, ['activities:read']);
  const minted = await sendJson(stack, 'POST', '/api/v1/oauth/delegated-token', coach.token, { sub: userId, team_id: teamId, scopes: null });
  assert.is(minted.status, 200, JSON.stringify(minted.body));
  assert.is((await sendJson(stack, 'GET', '/api/v1/profile/status', minted.body.access_token)).status, 200);

  const jar = new CookieJar(stack.baseUrl);
  await jar.get(url);
  const csrf = csrfFrom(await (await jar.get('/portal/manage-teams')).text());
  const action = `/portal/manage-teams/${teamId}/revoke`;
  for (const fields of [{}, { csrf: 'x'.repeat(csrf.length) }] as Record<string, string>[]) {
    const refused = await jar.post(action, fields);
    assert.is(refused.status, 403);
    assertPageHeaders(refused);
  }
  assert.is((await new CookieJar(stack.baseUrl).post(action, { csrf })).status, 403, 'the token without the visit');
  assert.is(await stack.store.team_authorizations.count({ user_id: userId }), 1, 'nothing revoked yet');

  const revoked = await jar.post(action, { csrf });
  assert.is(revoked.status, 303);
  assert.is(locationOf(revoked, stack.baseUrl), '/portal/manage-teams?notice=revoked');
  assert.is(await stack.store.team_authorizations.count({ user_id: userId }), 0);
  assert.is((await sendJson(stack, 'GET', '/api/v1/profile/status', minted.body.access_token)).status, 401, 'the delegated token died');
  const after = await (await jar.get('/portal/manage-teams?notice=revoked')).text();
  assert.match(after, 'Access revoked');
  assert.match(after, 'No team can see your data');
});

test('the OpenAPI document describes the portal session and account status endpoints with their errors', async () => {
  const document = (await (await stack.get('/openapi.json')).json()) as { paths: Record<string, Record<string, { responses: Record<string, unknown>; requestBody?: unknown }>> };
  const portal = document.paths['/api/v1/portal/sessions']?.post;
  assert.ok(portal?.requestBody, 'request body');
  assert.equal(Object.keys(portal!.responses).sort(), ['200', '400', '401', '403', '422']);
  assert.ok(document.paths['/api/v1/profile/status']?.get?.responses['200']);
});

test.run();
