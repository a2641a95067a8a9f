/**
 * The shared provider HTTP edge (engine/integrations/provider-http.ts): when to come back after a 429
 * (Retry-After as seconds or a date, else X-RateLimit-Reset, else the floor plus jitter, or no time without
 * a floor), a 503's Retry-After, the status → kind table, JSON bodies, and redacted URLs.
 */
import assert from 'node:assert/strict';
import { test } from '../../support/uvu.js';
import { failure, readJson, redact, retryAtOf, type HttpContext } from '../../../engine/integrations/provider-http.js';

const NOW = 1_768_478_400_000;
const context = (random = 0, rateLimitFloorMs: number | null = 60_000): HttpContext => ({ provider: 'garmin_connect', fetch: globalThis.fetch, now: () => NOW, timeoutMs: 1000, rateLimitFloorMs, random: () => random });

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

test('with no header and no floor, names no time (the caller backs off), but still reads the headers it gets', () => {
  assert.equal(retryAtOf(context(0, null), new Headers()), null);
  assert.equal(retryAtOf(context(0, null), new Headers({ 'retry-after': '7' })), NOW + 7000);
});

test('maps statuses to kinds, keeps a 429\'s time and a 503\'s Retry-After, and lets a call override a status', async () => {
  const answer = (status: number, headers: Record<string, string> = {}) => new Response(status === 204 ? null : 'no', { status, headers });
  const kinds = await Promise.all([401, 403, 404, 412, 429, 500].map(async (status) => (await failure(context(), answer(status), 'garmin x')).kind));
  assert.deepEqual(kinds, ['unauthorized', 'unauthorized', 'rejected', 'not_permitted', 'rate_limited', 'unavailable']);
  assert.equal((await failure(context(), answer(403), 'garmin backfill', { 403: 'not_permitted' })).kind, 'not_permitted');
  const limited = await failure(context(), answer(429, { 'retry-after': '30' }), 'garmin x');
  assert.deepEqual([limited.retryAt, limited.status, limited.message], [NOW + 30_000, 429, 'garmin x: HTTP 429 no']);
  assert.equal((await failure(context(), answer(503, { 'retry-after': '45' }), 'garmin x')).retryAt, NOW + 45_000);
  assert.equal((await failure(context(), answer(503), 'garmin x')).retryAt, null, 'a 503 without Retry-After gets no floor');
});

test('a body that should be JSON and is not is unavailable; an empty one is null only where the call allows it', async () => {
  await assert.rejects(readJson(context(), new Response('<html>', { status: 200 }), 'garmin user/id'), (error: Error & { kind?: string }) => error.kind === 'unavailable' && /garmin user\/id: HTTP 200 with a body that is not JSON/.test(error.message));
  assert.equal(await readJson(context(), new Response(null, { status: 204 }), 'garmin delete', { emptyIsNull: true }), null);
  await assert.rejects(readJson(context(), new Response('', { status: 200 }), 'garmin user/id'));
});

test('hides query values (pull and file tokens) in messages', () => {
  assert.equal(redact('https://apis.garmin.com/wellness-api/rest/activityFile?id=1&token=secret'), 'https://apis.garmin.com/wellness-api/rest/activityFile?…');
});

test.run();
