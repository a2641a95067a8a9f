/**
 * The pages listener (gaps.md "Pages"; AUTH.md "hosted content"): its own origin, media types, the
 * directory and single-page-app fallbacks, ETag and conditional GET, the security headers on every
 * answer, no traversal in any encoding, no cookies, GET and HEAD only.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import nodePath from 'node:path';
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { sendJson } from '../support/json-api.js';
import { deploy } from '../support/page-deploys.js';
import { createApplication } from '../../gateway/services/accounts.js';
import { FIXTURES } from '../support/paths.js';

let stack: TestStack;
/** Files deployed as binary parts, to read back byte for byte (blobs are stored compressed at rest). */
const BINARY = {
  'files/ride.fit': readFileSync(nodePath.join(FIXTURES, 'fit', 'python-fitparse', '20170518-191602-1740899583.fit')),
  'data/big.json': Buffer.from(JSON.stringify(Array.from({ length: 2000 }, (_, i) => ({ i, watts: 200 + (i % 37) })))),
};

test.before(async () => {
  stack = await startStack();
  const owner = await stack.userWithToken([]);
  const app = await createApplication(stack.store, owner.userId, { name: 'Served' });
  await sendJson(stack, 'POST', '/api/v1/pages', owner.token, { application_id: app.id, slug: 'served' });
  await sendJson(stack, 'POST', '/api/v1/pages', owner.token, { application_id: (await createApplication(stack.store, owner.userId, { name: 'Next door' })).id, slug: 'next-door' });
  const deployed = await deploy(stack, 'served', owner.token, [
    { path: 'index.html', content: '<!doctype html><title>spa</title>' },
    { path: 'app.js', content: 'export {}' },
    { path: 'style.css', content: 'body{}' },
    { path: 'data/info.json', content: '{"a":1}' },
    { path: 'img/logo.svg', content: '<svg xmlns="http://www.w3.org/2000/svg"/>' },
    { path: 'docs/index.html', content: 'docs index' },
    { path: 'blob.unknownext', content: 'raw' },
    ...Object.entries(BINARY).map(([path, content]) => ({ path, content })),
  ]);
  assert.is(deployed.status, 200);
  await deploy(stack, 'next-door', owner.token, [{ path: 'secret.txt', content: 'next door' }]);
});
test.after(async () => {
  await stack?.close();
});

/** GET with the path sent byte for byte (fetch would normalise dot segments before sending). */
function rawGet(path: string): Promise<string> {
  const base = new URL(stack.pagesBase);
  return new Promise((resolve, reject) => {
    http.get({ host: base.hostname, port: base.port, path }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk)).on('end', () => resolve(text));
    }).on('error', reject);
  });
}

const get = (path: string, init: RequestInit = {}) => fetch(`${stack.pagesBase}${path}`, { redirect: 'manual', ...init });

test('serves pages on an origin other than the service\'s, and the service does not serve them', async () => {
  assert.not.equal(new URL(stack.pagesBase).origin, new URL(stack.baseUrl).origin);
  assert.is((await fetch(`${stack.baseUrl}/served/`)).status, 404);
});

test('serves each deployed file byte for byte as it was deployed', async () => {
  for (const [path, bytes] of Object.entries(BINARY)) {
    const response = await get(`/served/${path}`);
    assert.is(response.status, 200, path);
    assert.ok(Buffer.from(await response.arrayBuffer()).equals(bytes), path);
  }
});

test('answers each file with its media type', async () => {
  const types: Record<string, RegExp> = {
    '/served/': /^text\/html/, '/served/app.js': /javascript/, '/served/style.css': /^text\/css/, '/served/data/info.json': /^application\/json/,
    '/served/img/logo.svg': /^image\/svg\+xml/, '/served/blob.unknownext': /^application\/octet-stream/,
  };
  for (const [path, type] of Object.entries(types)) {
    const response = await get(path);
    assert.is(response.status, 200, path);
    assert.match(response.headers.get('content-type') ?? '', type, path);
  }
});

test('falls back to index.html for app routes, to a folder\'s index.html, redirects the bare slug and 404s a missing file', async () => {
  assert.is(await (await get('/served/athletes/42/season')).text(), '<!doctype html><title>spa</title>');
  assert.is(await (await get('/served/docs/')).text(), 'docs index');
  assert.is(await (await get('/served/docs')).text(), 'docs index');
  const bare = await get('/served');
  assert.is(bare.status, 301);
  assert.is(bare.headers.get('location'), '/served/');
  assert.is((await get('/served/missing.png')).status, 404);
  assert.is((await get('/no-such-page/')).status, 404);
});

test('sends an ETag and answers If-None-Match with 304', async () => {
  const first = await get('/served/app.js');
  const etag = first.headers.get('etag')!;
  assert.match(etag, /^"sha256:[A-Za-z0-9_-]+"$/);
  assert.is(first.headers.get('cache-control'), 'no-cache');
  // An explicit Cache-Control, as a browser's own revalidation sends: fetch otherwise adds `no-cache`, which forbids a 304.
  const again = await get('/served/app.js', { headers: { 'if-none-match': etag, 'cache-control': 'max-age=0' } });
  assert.is(again.status, 304);
  assert.is(await again.text(), '');
  assert.is((await get('/served/app.js', { headers: { 'if-none-match': '"other"' } })).status, 200);
  assert.is((await get('/served/app.js', { method: 'HEAD' })).status, 200);
});

test('carries a CSP, nosniff and no-referrer on every answer, 404s included, and sets no cookie', async () => {
  for (const path of ['/served/', '/served/app.js', '/served/missing.png', '/nope/']) {
    const response = await get(path);
    assert.match(response.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/, path);
    assert.match(response.headers.get('content-security-policy') ?? '', /object-src 'none'/, path);
    assert.is(response.headers.get('x-content-type-options'), 'nosniff', path);
    assert.is(response.headers.get('referrer-policy'), 'no-referrer', path);
    assert.is(response.headers.get('set-cookie'), null, path);
  }
});

test('never leaves the page: traversal in every encoding finds nothing of another page', async () => {
  for (const path of [
    '/served/../next-door/secret.txt', '/served/%2e%2e/next-door/secret.txt', '/served/./../next-door/secret.txt', '/served/..%2fnext-door%2fsecret.txt', '/served/%2e%2e%2fnext-door%2fsecret.txt',
    '/served/..%5cnext-door%5csecret.txt', '/served/%252e%252e/next-door/secret.txt', '/served/data%00/info.json', '/served/%c0%ae%c0%ae/next-door/secret.txt',
  ]) {
    const text = await rawGet(path);
    assert.not.ok(text.includes('next door'), path);
  }
});

test('answers only GET and HEAD', async () => {
  const response = await get('/served/', { method: 'POST', body: 'x' });
  assert.is(response.status, 405);
  assert.is(response.headers.get('allow'), 'GET, HEAD');
});

test.run();
