/**
 * POST/GET /api/v1/applications and PUT /api/v1/applications/{id}/page on the real stack (interface §2
 * "Application", §4 "Applications", §7): every rule of creation, the creation and list shapes, the
 * derived flags, webhook endpoints (AUTH.md "Server-side request forgery") and the write-only secret,
 * capabilities, the ensure-page 400/409 answers, and who may call: owner, stranger, the owner's own app,
 * another party's app and a delegated token.
 */
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { sendJson, validationIssueAt } from '../support/json-api.js';
import { createApplication, createUser, unionGrant } from '../../gateway/services/accounts.js';
import { mintAccessToken } from '../../gateway/auth/access-tokens.js';
import { SigningKeys } from '../../gateway/auth/signing-keys.js';
import { isRefusedAddress } from '../../domain/outbound-address.js';

let stack: TestStack;
let owner: { userId: string; token: string };
let stranger: { userId: string; token: string };

test.before(async () => {
  stack = await startStack({ WEBHOOK_ALLOWED_HOSTS: 'hooks.test,127.0.0.2' });
  owner = await stack.userWithToken([]);
  stranger = await stack.userWithToken([]);
});
test.after(async () => {
  await stack?.close();
});

const post = (token: string, body: unknown) => sendJson(stack, 'POST', '/api/v1/applications', token, body);

test('creates a private application with the creation response fields and localhost when no redirect URI is given', async () => {
  const created = await post(owner.token, { name: 'Pacer', description: null, redirect_uris: null, page: null, generate_secret: false });
  assert.is(created.status, 200, JSON.stringify(created.body));
  assert.equal(Object.keys(created.body).sort(), [
    'brand_color', 'client_secret', 'description', 'id', 'image', 'is_clientside_app', 'is_private', 'name', 'page', 'privacy_statement',
    'published', 'redirect_uris', 'url', 'webhook_endpoints', 'webhook_secret',
  ]);
  assert.is(created.body.name, 'Pacer');
  assert.equal(created.body.redirect_uris, ['http://localhost']);
  assert.is(created.body.client_secret, null);
  assert.is(created.body.webhook_secret, null);
  assert.is(created.body.page, null);
  assert.is(created.body.is_private, true);
  assert.is(created.body.is_clientside_app, false);
  assert.is(created.body.published, false);
  const stored = await stack.store.applications.get(created.body.id);
  assert.equal(stored!.capabilities, ['activities', 'activity_history']);
  assert.is(stored!.user_id, owner.userId);
});

test('keeps given redirect URIs without adding localhost and returns a working client secret once when asked', async () => {
  const created = await post(owner.token, { name: 'Server app', redirect_uris: ['https://app.example.com/callback'], generate_secret: true });
  assert.is(created.status, 200);
  assert.equal(created.body.redirect_uris, ['https://app.example.com/callback']);
  assert.type(created.body.client_secret, 'string');
  const secrets = await stack.store.client_secrets.find({ application_id: created.body.id });
  assert.is(secrets.length, 1);
  assert.not.ok(JSON.stringify(secrets).includes(created.body.client_secret), 'only a hash is stored');
});

test('adds the page URL to the redirect URIs (and localhost when none were given) when a page slug is given', async () => {
  const created = await post(owner.token, { name: 'Paged', page: 'My-Page' });
  assert.is(created.status, 200, JSON.stringify(created.body));
  const url = `${stack.pagesBase}/my-page/`;
  assert.equal(created.body.page, { slug: 'my-page', published: false, application: { id: created.body.id, name: 'Paged', is_private: true }, url });
  assert.equal(created.body.redirect_uris, ['http://localhost', url]);
  assert.not.equal(new URL(url).origin, new URL(stack.baseUrl).origin, 'pages live on an origin of their own');
});

test('refuses a name outside 1 to 100 characters and a description over 500 with 422', async () => {
  for (const name of ['', '   ', 'x'.repeat(101)]) {
    const answer = await post(owner.token, { name });
    assert.is(answer.status, 422, name);
    assert.ok(validationIssueAt(answer, ['body', 'name']));
  }
  assert.is((await post(owner.token, { name: 'x'.repeat(100) })).status, 200);
  const long = await post(owner.token, { name: 'Wordy', description: 'd'.repeat(501) });
  assert.is(long.status, 422);
  assert.ok(validationIssueAt(long, ['body', 'description']));
  assert.is((await post(owner.token, { name: 'Wordy', description: 'd'.repeat(500) })).status, 200);
  assert.is((await post(owner.token, {})).status, 422);
});

test('refuses a bad redirect URI and a redirect URI on the pages origin with 422', async () => {
  const plain = await post(owner.token, { name: 'Bad', redirect_uris: ['http://app.example.com/cb'] });
  assert.is(plain.status, 422);
  assert.ok(validationIssueAt(plain, ['body', 'redirect_uris', 0]));
  const onPages = await post(owner.token, { name: 'Sneaky', redirect_uris: [`${stack.pagesBase}/someone-else/`] });
  assert.is(onPages.status, 422);
  assert.match(validationIssueAt(onPages, ['body', 'redirect_uris', 0]), /pages origin/);
});

test('refuses an invalid, reserved or taken page slug with 400 and creates no application', async () => {
  const before = await stack.store.applications.count({ user_id: owner.userId });
  for (const page of ['a', 'has space', '-lead', 'trail-', 'dou--ble', 'api', 'x'.repeat(64)]) {
    assert.is((await post(owner.token, { name: 'Slugged', page })).status, 400, page);
  }
  assert.is((await post(owner.token, { name: 'First', page: 'taken-slug' })).status, 200);
  const second = await post(stranger.token, { name: 'Second', page: 'Taken-Slug' });
  assert.is(second.status, 400);
  assert.is(await stack.store.applications.count({ user_id: owner.userId }), before + 1);
  assert.is(await stack.store.applications.count({ user_id: stranger.userId }), 0);
});

test('accepts public https webhook endpoints and allowed hosts, refuses loopback, private, link-local and plain http with 422', async () => {
  const ok = await post(owner.token, { name: 'Hooks', webhook_endpoints: ['https://hooks.test/threshold', 'http://127.0.0.2:9000/hook', 'https://93.184.216.34/hook'], webhook_secret: 'a-long-enough-secret' });
  assert.is(ok.status, 200, JSON.stringify(ok.body));
  assert.equal(ok.body.webhook_endpoints, ['https://hooks.test/threshold', 'http://127.0.0.2:9000/hook', 'https://93.184.216.34/hook']);
  assert.is(ok.body.webhook_secret, null, 'write-only');
  assert.not.ok(JSON.stringify(ok.body).includes('a-long-enough-secret'));
  assert.is((await stack.store.applications.get(ok.body.id))!.webhook_secret, 'a-long-enough-secret', 'kept to sign deliveries');
  for (const endpoint of [
    'https://127.0.0.1/hook', 'https://localhost/hook', 'https://10.1.2.3/hook', 'https://192.168.1.1/hook', 'https://169.254.169.254/latest',
    'https://[::1]/hook', 'https://[fd00::1]/hook', 'https://[::ffff:127.0.0.1]/hook', 'https://0.0.0.0/hook', 'https://224.0.0.1/hook',
    'http://93.184.216.34/hook', 'https://user:pw@93.184.216.34/hook', 'https://93.184.216.34/hook#frag', 'ftp://93.184.216.34/', 'not a url',
    'https://unresolvable.invalid/hook',
  ]) {
    const refused = await post(owner.token, { name: 'Hooks', webhook_endpoints: [endpoint] });
    assert.is(refused.status, 422, endpoint);
    assert.ok(validationIssueAt(refused, ['body', 'webhook_endpoints', 0]), endpoint);
  }
  assert.is((await post(owner.token, { name: 'Hooks', webhook_secret: 'short' })).status, 422);
});

test('webhook endpoints: whitespace around one is dropped; a space, tab or CR LF inside is a 422 at its index naming the character [paste]', async () => {
  const trimmed = await post(owner.token, { name: 'Hooks', webhook_endpoints: ['  https://hooks.test/a  ', '\thttps://hooks.test/b\r\n', 'https://hooks.test/a'] });
  assert.is(trimmed.status, 200, JSON.stringify(trimmed.body));
  assert.equal(trimmed.body.webhook_endpoints, ['https://hooks.test/a', 'https://hooks.test/b'], 'trimmed, then the same endpoint once');
  assert.equal((await stack.store.applications.get(trimmed.body.id))!.webhook_endpoints, ['https://hooks.test/a', 'https://hooks.test/b']);
  const cases: [string, RegExp][] = [
    ['https://hooks.test/a b', /^https:\/\/hooks\.test\/a b: must not contain a space \(at character 21\); a space inside a URL is written %20$/],
    ['https://hooks.test/a\r\nX-Injected: 1', /must not contain a line break \(CR\) \(at character 21\)$/],
    ['https://hooks.test/a\nb', /must not contain a line break \(LF\) \(at character 21\)$/],
    ['https://hooks.\ttest/a', /must not contain a tab \(at character 15\)$/],
    ['https://hooks.test/\u0000a', /must not contain the character U\+0000 \(at character 20\)$/],
  ];
  for (const [endpoint, message] of cases) {
    const refused = await post(owner.token, { name: 'Hooks', webhook_endpoints: ['https://hooks.test/ok', endpoint] });
    assert.is(refused.status, 422, JSON.stringify(endpoint));
    assert.match(validationIssueAt(refused, ['body', 'webhook_endpoints', 1]), message);
  }
});

test('classifies addresses a webhook may never reach', () => {
  for (const address of ['127.0.0.1', '10.0.0.1', '172.16.0.1', '192.168.0.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fe80::1', 'fc00::1', 'ff02::1', '::ffff:10.0.0.1', '::ffff:7f00:1']) {
    assert.ok(isRefusedAddress(address), address);
  }
  for (const address of ['93.184.216.34', '1.1.1.1', '2606:4700:4700::1111']) assert.not.ok(isRefusedAddress(address), address);
});

test('stores declared capabilities and refuses malformed keys', async () => {
  const declared = await post(owner.token, { name: 'Caps', capabilities: ['activities', 'dailies', 'dailies'] });
  assert.is(declared.status, 200);
  assert.equal((await stack.store.applications.get(declared.body.id))!.capabilities, ['activities', 'dailies']);
  assert.is((await post(owner.token, { name: 'Caps', capabilities: ['Not A Key'] })).status, 422);
});

test('derives is_private from the four public fields', async () => {
  const created = await post(owner.token, { name: 'Going public', description: 'Charts' });
  assert.is(created.body.is_private, true);
  await stack.store.applications.updateOne({ id: created.body.id }, { set: { url: 'https://a.example', image: 'https://a.example/i.png', privacy_statement: 'https://a.example/p' } });
  const ensured = await sendJson(stack, 'PUT', `/api/v1/applications/${created.body.id}/page`, owner.token, { slug: 'going-public' });
  assert.is(ensured.status, 200);
  assert.is(ensured.body.application.is_private, false);
});

test('lists only the caller\'s applications, newest first, as list items', async () => {
  const mine = await stack.userWithToken([]);
  const first = await post(mine.token, { name: 'Older' });
  const second = await post(mine.token, { name: 'Newer', page: 'newer-app' });
  const listed = await sendJson(stack, 'GET', '/api/v1/applications', mine.token);
  assert.is(listed.status, 200);
  assert.equal(listed.body, [{ id: second.body.id, name: 'Newer', page_slug: 'newer-app' }, { id: first.body.id, name: 'Older', page_slug: null }]);
  const other = await sendJson(stack, 'GET', '/api/v1/applications', stranger.token);
  assert.not.ok(other.body.some((item: { id: string }) => item.id === first.body.id));
});

test('ensure-page: creates, repeats as a no-op, 409 for another slug or a slug of another application, 400 on validation, 404 for a stranger', async () => {
  const app = (await post(owner.token, { name: 'Ensure' })).body;
  const path = `/api/v1/applications/${app.id}/page`;
  const first = await sendJson(stack, 'PUT', path, owner.token, { slug: 'ensure-me' });
  assert.is(first.status, 200);
  assert.equal(first.body, { slug: 'ensure-me', published: false, application: { id: app.id, name: 'Ensure', is_private: true }, url: `${stack.pagesBase}/ensure-me/` });
  const again = await sendJson(stack, 'PUT', path, owner.token, { slug: 'Ensure-Me' });
  assert.is(again.status, 200);
  assert.equal(again.body, first.body);
  const stored = await stack.store.applications.get(app.id);
  assert.equal(stored!.redirect_uris, ['http://localhost', `${stack.pagesBase}/ensure-me/`], 'the URL is added once');
  assert.is((await sendJson(stack, 'PUT', path, owner.token, { slug: 'another-slug' })).status, 409);
  const otherApp = (await post(owner.token, { name: 'Other' })).body;
  assert.is((await sendJson(stack, 'PUT', `/api/v1/applications/${otherApp.id}/page`, owner.token, { slug: 'ensure-me' })).status, 409);
  assert.is((await sendJson(stack, 'PUT', `/api/v1/applications/${otherApp.id}/page`, owner.token, {})).status, 400);
  assert.is((await sendJson(stack, 'PUT', `/api/v1/applications/${otherApp.id}/page`, owner.token, { slug: 'no' })).status, 400);
  assert.is((await sendJson(stack, 'PUT', `/api/v1/applications/${otherApp.id}/page`, owner.token, { slug: 'www' })).status, 400);
  assert.is((await sendJson(stack, 'PUT', `/api/v1/applications/${otherApp.id}/page`, stranger.token, { slug: 'strangers-page' })).status, 404);
  assert.is((await sendJson(stack, 'PUT', '/api/v1/applications/nope/page', owner.token, { slug: 'nobodys-page' })).status, 404);
});

test('accepts the owner\'s own app token, refuses another party\'s app token and a delegated token with 403, and no token with 401', async () => {
  const own = await createApplication(stack.store, owner.userId, { name: 'Own tool' });
  const ownToken = (await stack.userWithToken([], { appId: own.id, userId: owner.userId })).token;
  assert.is((await post(ownToken, { name: 'Via own app' })).status, 200);
  assert.is((await sendJson(stack, 'GET', '/api/v1/applications', ownToken)).status, 200);

  const foreign = await createApplication(stack.store, stranger.userId, { name: 'Someone else' });
  const foreignToken = (await stack.userWithToken(['activities:read'], { appId: foreign.id, userId: owner.userId })).token;
  assert.is((await post(foreignToken, { name: 'Via foreign app' })).status, 403);
  assert.is((await sendJson(stack, 'GET', '/api/v1/applications', foreignToken)).status, 403);
  await stack.store.applications.updateOne({ id: foreign.id }, { set: { first_party: true } });
  assert.is((await sendJson(stack, 'GET', '/api/v1/applications', foreignToken)).status, 200, 'a first-party app acts for the person');

  const managed = await createUser(stack.store, { email: null, first_name: 'Kid', managed_by: owner.userId });
  const grant = await unionGrant(stack.store, owner.userId, own.id, ['sharing:read']);
  const keys = await SigningKeys.open(stack.store);
  const delegated = (await mintAccessToken(keys, { issuer: stack.baseUrl, userId: managed.id, applicationId: own.id, grantId: grant.id, scopes: ['activities:read'], actorId: owner.userId })).access_token;
  assert.is((await post(delegated, { name: 'Via delegation' })).status, 403);
  assert.is((await sendJson(stack, 'GET', '/api/v1/applications', delegated)).status, 403);
  assert.is((await sendJson(stack, 'PUT', `/api/v1/applications/${own.id}/page`, delegated, { slug: 'delegated-page' })).status, 403);

  assert.is((await fetch(`${stack.baseUrl}/api/v1/applications`)).status, 401);
});

test('documents the three endpoints in the OpenAPI document', async () => {
  const document = await (await stack.get('/openapi.json')).json() as { paths: Record<string, Record<string, unknown>> };
  assert.ok(document.paths['/api/v1/applications']?.post);
  assert.ok(document.paths['/api/v1/applications']?.get);
  assert.ok(document.paths['/api/v1/applications/{application_id}/page']?.put);
});

test.run();
