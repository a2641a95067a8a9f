/**
 * The pages endpoints on the real stack (interface §4 "Pages", gaps.md "Pages"): create (JSON and
 * multipart), get, delete with a retired slug, deploy with its path rules, limits and atomic replace, and
 * who may call. Serving the deployed files is test/gateway/pages-serving.test.ts.
 */
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { sendJson } from '../support/json-api.js';
import { deploy, multipartBody } from '../support/page-deploys.js';
import { createApplication, createUser, unionGrant } from '../../gateway/services/accounts.js';
import { mintAccessToken } from '../../gateway/auth/access-tokens.js';
import { SigningKeys } from '../../gateway/auth/signing-keys.js';
import { countDelimiters } from '../../gateway/multipart.js';

let stack: TestStack;
let owner: { userId: string; token: string };
let stranger: { userId: string; token: string };

test.before(async () => {
  stack = await startStack({ PAGE_MAX_FILES: '5', PAGE_MAX_BYTES: '4096' });
  owner = await stack.userWithToken([]);
  stranger = await stack.userWithToken([]);
});
test.after(async () => {
  await stack?.close();
});

async function appOf(user: { userId: string }, name = 'Paged app') {
  return createApplication(stack.store, user.userId, { name });
}

async function fetchPage(slug: string, file = ''): Promise<Response> {
  return fetch(`${stack.pagesBase}/${slug}/${file}`);
}

test('creates a page from JSON and from multipart form data, and returns it to its owner only', async () => {
  const app = await appOf(owner);
  const created = await sendJson(stack, 'POST', '/api/v1/pages', owner.token, { application_id: app.id, slug: 'Json-Page' });
  assert.is(created.status, 200, JSON.stringify(created.body));
  assert.equal(created.body, { slug: 'json-page', published: false, application: { id: app.id, name: 'Paged app', is_private: true }, url: `${stack.pagesBase}/json-page/` });
  assert.ok((await stack.store.applications.get(app.id))!.redirect_uris.includes(`${stack.pagesBase}/json-page/`));
  assert.equal((await sendJson(stack, 'GET', '/api/v1/pages/json-page', owner.token)).body, created.body);
  assert.is((await sendJson(stack, 'GET', '/api/v1/pages/json-page', stranger.token)).status, 404);

  const other = await appOf(owner, 'Form app');
  const form = new FormData();
  form.set('application_id', other.id);
  form.set('slug', 'form-page');
  const multipart = await fetch(`${stack.baseUrl}/api/v1/pages`, { method: 'POST', headers: { authorization: `Bearer ${owner.token}` }, body: form });
  assert.is(multipart.status, 200);
  assert.is(((await multipart.json()) as { slug: string }).slug, 'form-page');
});

test('refuses a taken or invalid slug and a second page of one application with 400, missing fields with 422, a stranger\'s application with 404', async () => {
  const app = await appOf(owner);
  assert.is((await sendJson(stack, 'POST', '/api/v1/pages', owner.token, { application_id: app.id, slug: 'json-page' })).status, 400);
  assert.is((await sendJson(stack, 'POST', '/api/v1/pages', owner.token, { application_id: app.id, slug: 'x' })).status, 400);
  assert.is((await sendJson(stack, 'POST', '/api/v1/pages', owner.token, { application_id: app.id, slug: 'oauth' })).status, 400);
  assert.is((await sendJson(stack, 'POST', '/api/v1/pages', owner.token, { application_id: app.id, slug: 'first-of-two' })).status, 200);
  assert.is((await sendJson(stack, 'POST', '/api/v1/pages', owner.token, { application_id: app.id, slug: 'second-of-two' })).status, 400);
  assert.is((await sendJson(stack, 'POST', '/api/v1/pages', owner.token, { slug: 'no-app' })).status, 422);
  assert.is((await sendJson(stack, 'POST', '/api/v1/pages', stranger.token, { application_id: app.id, slug: 'not-mine' })).status, 404);
});

test('deploys files, publishes the page and serves them on the pages origin', async () => {
  const app = await appOf(owner);
  await sendJson(stack, 'POST', '/api/v1/pages', owner.token, { application_id: app.id, slug: 'deployed' });
  assert.is((await fetchPage('deployed')).status, 404, 'nothing is served before the first deploy');
  const answer = await deploy(stack, 'deployed', owner.token, [
    { path: 'index.html', content: '<!doctype html><title>v1</title>' },
    { path: 'assets/app.js', content: 'console.log(1)' },
  ]);
  assert.is(answer.status, 200, JSON.stringify(answer.body));
  assert.is(answer.body.published, true);
  assert.is((await stack.store.applications.get(app.id))!.page_published, true);
  assert.is(await (await fetchPage('deployed')).text(), '<!doctype html><title>v1</title>');
  assert.is(await (await fetchPage('deployed', 'assets/app.js')).text(), 'console.log(1)');
});

test('refuses ../, absolute, backslash, NUL, empty-segment and duplicate paths with 422 and keeps every file of the previous deploy', async () => {
  const app = await appOf(owner);
  await sendJson(stack, 'POST', '/api/v1/pages', owner.token, { application_id: app.id, slug: 'kept' });
  assert.is((await deploy(stack, 'kept', owner.token, [{ path: 'index.html', content: 'old index' }, { path: 'a/b.txt', content: 'old b' }])).status, 200);
  const blobsBefore = (await stack.store.pages.get('kept'))!.blob_prefix;
  for (const path of ['../escape.txt', 'a/../../escape.txt', '/etc/passwd', 'C:/windows.txt', 'a\\b.txt', 'a\u0000b.txt', 'a//b.txt', 'a/', './a.txt', '']) {
    const refused = await deploy(stack, 'kept', owner.token, [{ path: 'index.html', content: 'new index' }, { path, content: 'evil' }]);
    assert.is(refused.status, 422, JSON.stringify(path));
  }
  assert.is((await deploy(stack, 'kept', owner.token, [{ path: 'x.txt', content: '1' }, { path: 'x.txt', content: '2' }])).status, 422);
  assert.is((await stack.store.pages.get('kept'))!.blob_prefix, blobsBefore);
  assert.is(await (await fetchPage('kept')).text(), 'old index');
  assert.is(await (await fetchPage('kept', 'a/b.txt')).text(), 'old b');
});

test('refuses empty, blank, CR LF, percent-encoded .. (double-encoded too), too deep and too long names with 422 naming the problem, and keeps the previous deploy [issue 26 item 8]', async () => {
  const app = await appOf(owner);
  await sendJson(stack, 'POST', '/api/v1/pages', owner.token, { application_id: app.id, slug: 'hostile-names' });
  assert.is((await deploy(stack, 'hostile-names', owner.token, [{ path: 'index.html', content: 'old index' }])).status, 200);
  const deep = `${Array.from({ length: 200 }, () => 'a').join('/')}/x.txt`;
  const cases: { part: { path: string; disposition?: string }; problem: string; loc?: string[] }[] = [
    { part: { path: '', disposition: 'filename=""' }, problem: 'needs a filename' },
    { part: { path: '', disposition: "filename*=UTF-8''" }, problem: 'needs a filename' },
    { part: { path: ' ' }, problem: 'needs a filename' },
    { part: { path: 'a/ /b.txt' }, problem: 'blank segments' },
    { part: { path: '', disposition: "filename*=UTF-8''a%0D%0Ab.txt" }, problem: 'control characters (CR, LF' },
    { part: { path: 'a\rb.txt' }, problem: 'malformed multipart request', loc: ['body'] },
    { part: { path: 'a%0D%0Ab.txt' }, problem: 'percent-encoded' },
    { part: { path: '%2e%2e/escape.txt' }, problem: 'percent-encoded' },
    { part: { path: '%2E%2e/escape.txt' }, problem: 'percent-encoded' },
    { part: { path: 'a/%2e%2e/%2e%2e/escape.txt' }, problem: 'percent-encoded' },
    { part: { path: '%252e%252e/escape.txt' }, problem: 'percent-encoded' },
    { part: { path: '..%2fescape.txt' }, problem: 'percent-encoded' },
    { part: { path: '', disposition: "filename*=UTF-8''%252e%252e%252fescape.txt" }, problem: 'percent-encoded' },
    { part: { path: deep }, problem: 'at most 32 folders and file deep, this one 201' },
    { part: { path: `${'a/'.repeat(20)}${'b'.repeat(500)}.txt` }, problem: 'at most 512 characters' },
  ];
  for (const { part, problem, loc = ['body', 'files'] } of cases) {
    const refused = await deploy(stack, 'hostile-names', owner.token, [{ path: 'index.html', content: 'new index' }, { ...part, content: 'evil' }]);
    const label = JSON.stringify(part.disposition ?? part.path).slice(0, 60);
    assert.is(refused.status, 422, label);
    assert.equal(refused.body.detail[0].loc.slice(0, loc.length), loc, label);
    assert.match(refused.body.detail[0].msg, problem, label);
  }
  assert.equal(Object.keys((await stack.store.pages.get('hostile-names'))!.files), ['index.html'], 'nothing of a refused deploy was kept');
  assert.is(await (await fetchPage('hostile-names')).text(), 'old index');
  const depthLimit = `${Array.from({ length: 31 }, () => 'a').join('/')}/x.txt`;
  assert.is((await deploy(stack, 'hostile-names', owner.token, [{ path: depthLimit, content: 'deep enough' }])).status, 200, '32 segments are fine');
});

test('counts a multipart body\'s parts however its bytes are split into chunks', () => {
  const { body, contentType } = multipartBody([{ path: 'a.txt', content: 'one' }, { path: 'b.txt', content: 'two' }, { path: 'c.txt', content: 'three' }]);
  for (const size of [1, 2, 3, 7, 40, body.length]) {
    const counter = countDelimiters(contentType)!;
    for (let at = 0; at < body.length; at += size) counter.feed(body.subarray(at, at + size));
    assert.is(counter.parts(), 3, `chunks of ${size} bytes`);
  }
  assert.is(countDelimiters('multipart/form-data'), null, 'no boundary, nothing to count');
});

test('reads deployed names as UTF-8, quoted or in filename*= form', async () => {
  const app = await appOf(owner);
  await sendJson(stack, 'POST', '/api/v1/pages', owner.token, { application_id: app.id, slug: 'utf8-names' });
  const answer = await deploy(stack, 'utf8-names', owner.token, [
    { path: 'café.html', content: 'quoted' }, { path: '', disposition: "filename*=UTF-8''%C3%A9t%C3%A9%2Fr%C3%A9sum%C3%A9.html", content: 'extended' },
  ]);
  assert.is(answer.status, 200, JSON.stringify(answer.body));
  assert.equal(Object.keys((await stack.store.pages.get('utf8-names'))!.files).sort(), ['café.html', 'été/résumé.html']);
  assert.is(await (await fetchPage('utf8-names', encodeURIComponent('café.html'))).text(), 'quoted');
});

test('reserves healthz, readyz and the first segment of every path the service answers as slugs', async () => {
  const app = await appOf(owner, 'Squatter');
  const document = await (await stack.get('/openapi.json')).json() as { paths: Record<string, unknown> };
  const apiSegments = Object.keys(document.paths).map((path) => path.split('/')[1]!).filter((segment) => /^[a-z0-9-]{3,63}$/.test(segment));
  const pageSegments = ['training', 'signin', 'signup', 'signout', 'account', 'docs', 'oauth', 'portal', 'integrations', 'changelog'];
  for (const slug of new Set(['healthz', 'readyz', 'metrics', ...apiSegments, ...pageSegments])) {
    const refused = await sendJson(stack, 'POST', '/api/v1/pages', owner.token, { application_id: app.id, slug });
    assert.is(refused.status, 400, slug);
    assert.match(JSON.stringify(refused.body), 'reserved', slug);
  }
  const ensured = await sendJson(stack, 'PUT', `/api/v1/applications/${app.id}/page`, owner.token, { slug: 'HealthZ' });
  assert.is(ensured.status, 400, 'ensure-page refuses it too, whatever the case');
});

test('refuses more files or bytes than the limits with 413 and keeps the previous deploy', async () => {
  const app = await appOf(owner);
  await sendJson(stack, 'POST', '/api/v1/pages', owner.token, { application_id: app.id, slug: 'limited' });
  assert.is((await deploy(stack, 'limited', owner.token, [{ path: 'index.html', content: 'small' }])).status, 200);
  const many = Array.from({ length: 6 }, (_, index) => ({ path: `f${index}.txt`, content: 'x' }));
  assert.is((await deploy(stack, 'limited', owner.token, many)).status, 413);
  assert.is((await deploy(stack, 'limited', owner.token, [{ path: 'index.html', content: 'x'.repeat(3000) }, { path: 'b.txt', content: 'y'.repeat(3000) }])).status, 413);
  assert.is((await deploy(stack, 'limited', owner.token, [{ path: 'index.html', content: 'x'.repeat(5000) }])).status, 413);
  assert.is(await (await fetchPage('limited')).text(), 'small');
});

test('a new deploy replaces every file: files absent from it are gone', async () => {
  const app = await appOf(owner);
  await sendJson(stack, 'POST', '/api/v1/pages', owner.token, { application_id: app.id, slug: 'replaced' });
  await deploy(stack, 'replaced', owner.token, [{ path: 'index.html', content: 'one' }, { path: 'old.txt', content: 'old' }]);
  const oldPrefix = (await stack.store.pages.get('replaced'))!.blob_prefix!;
  await deploy(stack, 'replaced', owner.token, [{ path: 'index.html', content: 'two' }]);
  assert.is(await (await fetchPage('replaced')).text(), 'two');
  assert.is((await fetchPage('replaced', 'old.txt')).status, 404);
  assert.is(await stack.store.blobs.get(`${oldPrefix}old.txt`), null, 'the previous deploy\'s blobs are removed');
});

test('deletes a page and its files, retires the slug for everyone else, and lets its own application take it back', async () => {
  const app = await appOf(owner);
  await sendJson(stack, 'POST', '/api/v1/pages', owner.token, { application_id: app.id, slug: 'retired' });
  await deploy(stack, 'retired', owner.token, [{ path: 'index.html', content: 'bye' }]);
  const prefix = (await stack.store.pages.get('retired'))!.blob_prefix!;
  assert.is((await sendJson(stack, 'DELETE', '/api/v1/pages/retired', stranger.token)).status, 404);
  assert.is((await sendJson(stack, 'DELETE', '/api/v1/pages/retired', owner.token)).status, 204);
  assert.is(await stack.store.blobs.get(`${prefix}index.html`), null);
  assert.is((await fetchPage('retired')).status, 404);
  assert.is((await sendJson(stack, 'GET', '/api/v1/pages/retired', owner.token)).status, 404);
  assert.is((await stack.store.applications.get(app.id))!.page_slug, null);
  const strangerApp = await appOf(stranger);
  assert.is((await sendJson(stack, 'POST', '/api/v1/pages', stranger.token, { application_id: strangerApp.id, slug: 'retired' })).status, 400);
  assert.is((await sendJson(stack, 'PUT', `/api/v1/applications/${strangerApp.id}/page`, stranger.token, { slug: 'retired' })).status, 409);
  const back = await sendJson(stack, 'PUT', `/api/v1/applications/${app.id}/page`, owner.token, { slug: 'retired' });
  assert.is(back.status, 200);
  assert.is(back.body.published, false);
});

test('deploy and delete refuse a stranger (404), a delegated token and another party\'s app token (403), and no token (401)', async () => {
  const app = await appOf(owner);
  await sendJson(stack, 'POST', '/api/v1/pages', owner.token, { application_id: app.id, slug: 'guarded' });
  assert.is((await deploy(stack, 'guarded', stranger.token, [{ path: 'index.html', content: 'x' }])).status, 404);
  const foreign = await createApplication(stack.store, stranger.userId, { name: 'Foreign' });
  const foreignToken = (await stack.userWithToken(['activities:read'], { appId: foreign.id, userId: owner.userId })).token;
  assert.is((await deploy(stack, 'guarded', foreignToken, [{ path: 'index.html', content: 'x' }])).status, 403);
  assert.is((await sendJson(stack, 'DELETE', '/api/v1/pages/guarded', foreignToken)).status, 403);
  const managed = await createUser(stack.store, { email: null, first_name: 'Kid', managed_by: owner.userId });
  const grant = await unionGrant(stack.store, owner.userId, app.id, ['sharing:read']);
  const keys = await SigningKeys.open(stack.store);
  const delegated = (await mintAccessToken(keys, { issuer: stack.baseUrl, userId: managed.id, applicationId: app.id, grantId: grant.id, scopes: [], actorId: owner.userId })).access_token;
  assert.is((await sendJson(stack, 'GET', '/api/v1/pages/guarded', delegated)).status, 403);
  const { body, contentType } = multipartBody([{ path: 'index.html', content: 'x' }]);
  assert.is((await fetch(`${stack.baseUrl}/api/v1/pages/guarded/deploy`, { method: 'PUT', headers: { 'content-type': contentType }, body })).status, 401);
  const ownToken = (await stack.userWithToken([], { appId: app.id, userId: owner.userId })).token;
  assert.is((await deploy(stack, 'guarded', ownToken, [{ path: 'index.html', content: 'mine' }])).status, 200);
});

test('a redirect to the pages origin matches only the exact page URL of that application: localhost any-port and sub-paths never reach it', async () => {
  const app = await appOf(owner, 'Loopback app'); // registered redirect: http://localhost, any port
  await sendJson(stack, 'POST', '/api/v1/pages', owner.token, { application_id: app.id, slug: 'exact-page' });
  const authorize = (redirectUri: string) => fetch(`${stack.baseUrl}/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: app.id, redirect_uri: redirectUri, scope: 'openid' })}`, { redirect: 'manual' });
  const foreignPage = await authorize(`${stack.pagesBase}/json-page/`);
  assert.is(foreignPage.status, 400);
  assert.is(foreignPage.headers.get('location'), null);
  assert.is((await authorize(`${stack.pagesBase}/exact-page/deeper`)).status, 400);
  assert.not.equal((await authorize(`${stack.pagesBase}/exact-page/`)).status, 400);
  assert.not.equal((await authorize('http://localhost:9/elsewhere')).status, 400, 'the loopback rule still holds off the pages origin');
});

test('documents the four endpoints in the OpenAPI document', async () => {
  const document = await (await stack.get('/openapi.json')).json() as { paths: Record<string, Record<string, unknown>> };
  assert.ok(document.paths['/api/v1/pages']?.post);
  assert.ok(document.paths['/api/v1/pages/{slug}']?.get);
  assert.ok(document.paths['/api/v1/pages/{slug}']?.delete);
  assert.ok(document.paths['/api/v1/pages/{slug}/deploy']?.put);
});

test.run();
