/**
 * Pages and their assets are compressed for browsers that accept it; API answers never are (their wire
 * format stays what clients were written for). gateway/middleware/compress-pages.ts.
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';

const compression = suite<{ stack: TestStack }>('compression of pages');
compression.before(async (context) => {
  context.stack = await startStack();
});
compression.after(async (context) => {
  await context.stack?.close();
});

compression('pages, scripts and style sheets come compressed when the browser accepts it, and decode to the same bytes', async ({ stack }) => {
  const docs = await (await stack.get('/docs')).text();
  const script = /src="(\/docs\/assets\/swagger-ui-bundle\.js[^"]*)"/.exec(docs)![1]!;
  for (const [path, encoding] of [[script, 'br'], [script, 'gzip'], ['/docs/assets/swagger-ui.css', 'gzip']] as const) {
    const plain = await stack.get(path, undefined, { 'accept-encoding': 'identity' });
    const packed = await stack.get(path, undefined, { 'accept-encoding': `${encoding}` });
    assert.is(plain.headers.get('content-encoding'), null, path);
    assert.is(packed.headers.get('content-encoding'), encoding, path);
    assert.match(packed.headers.get('vary') ?? '', 'Accept-Encoding');
    assert.is(await packed.text(), await plain.text(), `${path} decodes to the same bytes`);
  }
  // An HTML page (its CSRF token differs per request, so it is compared by shape).
  const page = await stack.get('/signin', undefined, { 'accept-encoding': 'br' });
  assert.is(page.headers.get('content-encoding'), 'br');
  assert.match(await page.text(), /^<!doctype html>[\s\S]*<\/html>\s*$/);
});

compression('API answers are sent as they are, whatever the client accepts', async ({ stack }) => {
  const { token } = await stack.userWithToken(['activities:read']);
  for (const path of ['/api/v1/activities/', '/openapi.json', '/metrics']) {
    const response = await stack.get(path, path.startsWith('/api') ? token : undefined, { 'accept-encoding': 'gzip, br' });
    assert.is(response.status, 200, path);
    assert.is(response.headers.get('content-encoding'), null, path);
    await response.arrayBuffer();
  }
});

compression.run();
