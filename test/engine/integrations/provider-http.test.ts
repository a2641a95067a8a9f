/** When to come back after a 429: Retry-After (seconds or a date), else X-RateLimit-Reset, else the floor plus jitter. */
import assert from 'node:assert/strict';
import { test } from '../../support/uvu.js';
import { redact, retryAtOf, type HttpContext } from '../../../engine/integrations/provider-http.js';

const NOW = 1_768_478_400_000;
const context = (random = 0): HttpContext => ({ provider: 'garmin_connect', fetch: globalThis.fetch, now: () => NOW, timeoutMs: 1000, rateLimitFloorMs: 60_000, random: () => random });

test('Retry-After in seconds or as an HTTP date comes first', () => {
  assert.equal(retryAtOf(context(), new Headers({ 'retry-after': '30', 'x-ratelimit-reset': '900' })), NOW + 30_000);
  assert.equal(retryAtOf(context(), new Headers({ 'retry-after': new Date(NOW + 5000).toUTCString() })), NOW + 5000);
});

test('X-RateLimit-Reset as seconds until the reset, or as an epoch time when it can only be one', () => {
  assert.equal(retryAtOf(context(), new Headers({ 'x-ratelimit-reset': '120' })), NOW + 120_000);
  assert.equal(retryAtOf(context(), new Headers({ 'x-ratelimit-reset': String(NOW / 1000 + 300) })), NOW + 300_000);
});

test('with no header, waits the floor plus up to a fifth of jitter', () => {
  assert.equal(retryAtOf(context(0), new Headers()), NOW + 60_000);
  assert.equal(retryAtOf(context(0.999), new Headers()), NOW + 60_000 + 11_988);
});

test('hides query values (pull and file tokens) in messages', () => {
  assert.equal(redact('https://apis.garmin.com/wellness-api/rest/activityFile?id=1&token=secret'), 'https://apis.garmin.com/wellness-api/rest/activityFile?…');
});

test.run();
