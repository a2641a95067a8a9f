/**
 * The intervals.icu adapter against its stand-in, protocol detail by detail (shared/spec/providers.md §2,
 * §4): codes that live two minutes, tokens that never expire (no refresh), the narrower scope the user
 * granted, the listing's required `oldest` and date-window paging with Strava stubs, gzip files sniffed by
 * their magic bytes, failing downloads, 429 with and without Retry-After, the `secret` envelope with its
 * duplicate events, deauthorization and disconnect-app followed by 401.
 */
import { test } from '../../support/uvu.js';
import * as assert from 'uvu/assert';
import { startIntervalsIcuStandin, type IntervalsIcuStandin } from '../../support/standins/intervals-icu.js';
import { fitActivity } from '../../support/fit-writer.js';
import { intervalsIcuAdapter } from '../../../engine/integrations/intervals-icu/adapter.js';
import { AuthorizationRevoked, ProviderError, PushRejected, RateLimited, backoffMs, type ProviderAdapter } from '../../../engine/integrations/provider.js';
import type { ProviderTokens } from '../../../engine/integrations/credentials.js';

const DAY = 86_400_000;
const REDIRECT = 'http://127.0.0.1:9/integrations/intervals_icu/callback';
let clock = Date.UTC(2025, 5, 1, 12);
let standin: IntervalsIcuStandin;
let adapter: ProviderAdapter;

test.before(async () => {
  standin = await startIntervalsIcuStandin({
    clientId: 'cid', clientSecret: 'csecret', webhookSecret: 'hook', grantedScope: 'ACTIVITY:READ', now: () => clock,
    rateLimit: { requests: 1000, windowMs: 1000 },
  });
  adapter = intervalsIcuAdapter({ clientId: 'cid', clientSecret: 'csecret', authorizeBaseUrl: standin.baseUrl, apiBaseUrl: standin.baseUrl, tokenBaseUrl: standin.baseUrl, pushSecret: 'hook' }, { listLimit: 3 });
  for (let i = 0; i < 8; i++) {
    const start = Date.UTC(2025, 4, 30, 7) - i * DAY - (i === 4 ? 0 : 0);
    standin.activities.push({ id: `i${i}`, start, file: i === 5 ? null : fitActivity({ start, seconds: 30 }) });
  }
  // Two activities at the same instant across a page edge must both be listed once.
  standin.activities.push({ id: 'i2b', start: standin.activities[2]!.start, file: fitActivity({ start: standin.activities[2]!.start, seconds: 30, power: 99 }) });
});
test.after(async () => {
  await standin.close();
});

async function connect(): Promise<ProviderTokens> {
  const { url, codeVerifier } = adapter.authorizationUrl({ redirectUri: REDIRECT, state: 'st' });
  assert.is(codeVerifier, null, 'no PKCE on intervals.icu');
  const answer = await fetch(url, { redirect: 'manual' });
  const code = new URL(answer.headers.get('location')!).searchParams.get('code')!;
  const { externalUserId, ...tokens } = await adapter.exchangeCode({ code, redirectUri: REDIRECT, codeVerifier: null });
  assert.is(externalUserId, 'i1001');
  return tokens;
}

test('tokens never expire and carry the narrower scope the user granted; there is nothing to refresh', async () => {
  const tokens = await connect();
  assert.is(tokens.expires_at, null);
  assert.is(tokens.refresh_token, null);
  assert.is(tokens.scope, 'ACTIVITY:READ');
  assert.is(await adapter.refresh(tokens), null);
  assert.is(await adapter.identity(tokens), 'i1001');
});

test('a code is refused once two minutes have passed', async () => {
  const { url } = adapter.authorizationUrl({ redirectUri: REDIRECT, state: 'st' });
  const code = new URL((await fetch(url, { redirect: 'manual' })).headers.get('location')!).searchParams.get('code')!;
  clock += 2 * 60_000 + 1;
  try {
    await adapter.exchangeCode({ code, redirectUri: REDIRECT, codeVerifier: null });
    assert.unreachable('the stale code was accepted');
  } catch (error) {
    assert.instance(error, ProviderError);
  }
});

test('the listing requires oldest; paging moves newest back and yields every activity once, newest first', async () => {
  const tokens = await connect();
  const refused = await fetch(`${standin.baseUrl}/api/v1/athlete/0/activities`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
  assert.is(refused.status, 422);
  const seen: { id: string; file: string | null }[] = [];
  let cursor: string | null = null;
  do {
    const page = await adapter.listHistory(tokens, { cursor, oldest: Date.UTC(2020, 0, 1), newest: clock });
    seen.push(...page.activities.map(({ id, file }) => ({ id, file })));
    cursor = page.next;
  } while (cursor !== null);
  assert.equal(seen.map((item) => item.id), ['i0', 'i1', 'i2b', 'i2', 'i3', 'i4', 'i5', 'i6', 'i7']);
  assert.is(seen.find((item) => item.id === 'i5')!.file, null, 'a Strava stub has no file');
});

test('files are gunzipped by their magic bytes; a gone file is null and a 500 is a provider error', async () => {
  const tokens = await connect();
  const bytes = await adapter.download(tokens, { id: 'i0', start: 0, file: 'i0' });
  assert.is(Buffer.from(bytes!.subarray(8, 12)).toString('latin1'), '.FIT');
  standin.failDownload('i1', 404);
  assert.is(await adapter.download(tokens, { id: 'i1', start: 0, file: 'i1' }), null);
  standin.failDownload('i3', 500);
  try {
    await adapter.download(tokens, { id: 'i3', start: 0, file: 'i3' });
    assert.unreachable();
  } catch (error) {
    assert.instance(error, ProviderError);
  }
});

test('a 429 names when to retry from Retry-After, and without it leaves the wait to back-off with jitter', async () => {
  const tokens = await connect();
  for (const retryAfter of [true, false]) {
    const limited = await startIntervalsIcuStandin({ clientId: 'cid', clientSecret: 'csecret', rateLimit: { requests: 1, windowMs: 60_000, retryAfter } });
    const client = intervalsIcuAdapter({ clientId: 'cid', clientSecret: 'csecret', authorizeBaseUrl: limited.baseUrl, apiBaseUrl: limited.baseUrl, tokenBaseUrl: limited.baseUrl, pushSecret: null });
    await fetch(`${limited.baseUrl}/api/v1/athlete/0`); // spends the one request
    try {
      await client.identity(tokens);
      assert.unreachable();
    } catch (error) {
      assert.instance(error, RateLimited);
      if (retryAfter) assert.ok((error as RateLimited).retryAt! > Date.now(), 'Retry-After honoured');
      else assert.is((error as RateLimited).retryAt, null);
    } finally {
      await limited.close();
    }
  }
  const waits = [1, 2, 3, 4].map((attempt) => backoffMs(attempt, 1000, 60_000, () => 1));
  assert.equal(waits, [1000, 2000, 4000, 8000]);
});

test('a push carries our secret or is rejected; its duplicate parses to the same activity; deauthorization is recognised', async () => {
  const activity = standin.activities[0]!;
  const envelope = (secret: string, events: unknown[]) => ({ headers: {}, body: new TextEncoder().encode(JSON.stringify({ secret, events })) });
  const event = standin.activityEvent(activity);
  const items = adapter.parsePush(envelope('hook', [event, event]));
  assert.equal(items.map((item) => item.kind === 'activity' && item.activity.id), ['i0', 'i0']);
  assert.throws(() => adapter.parsePush(envelope('nope', [event])), (error: unknown) => error instanceof PushRejected);
  const deauthorized = adapter.parsePush(envelope('hook', [{ athlete_id: 'i1001', type: 'APP_SCOPE_CHANGED', scope: '', deauthorized: true }]));
  assert.equal(deauthorized, [{ kind: 'deauthorized', externalUserId: 'i1001' }]);
});

test('a hostile push is rejected or ignored element by element, never a crash', () => {
  const push = (body: unknown) => adapter.parsePush({ headers: {}, body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)) });
  for (const body of ['null', '1', '"x"', '[]']) assert.throws(() => push(body), (error: unknown) => error instanceof PushRejected);
  const items = push({
    secret: 'hook',
    events: [null, 1, [], { type: 'WELLNESS_UPDATED', records: 5 }, { type: 'WELLNESS_UPDATED', athlete_id: 'i1', records: [null, 7] },
      { type: 'ACTIVITY_UPLOADED', activity: { id: 'a', start_date_local: 5 } }, { type: 'ACTIVITY_UPLOADED', activity: { id: 'b', start_date_local: 'garbage' } },
      { type: 'ACTIVITY_DELETED', activity: null }],
  });
  assert.equal(items.map((item) => item.kind), ['ignored', 'ignored', 'ignored', 'dailies', 'dailies', 'ignored', 'ignored', 'ignored']);
  assert.equal(items.filter((item) => item.kind === 'dailies').map((item) => (item as { dailies: unknown[] }).dailies), [[], []]);
});

test('after disconnect-app the token is refused with 401', async () => {
  const tokens = await connect();
  await adapter.revoke!(tokens);
  try {
    await adapter.identity(tokens);
    assert.unreachable();
  } catch (error) {
    assert.instance(error, AuthorizationRevoked);
  }
  await adapter.revoke!(tokens); // revoking a refused token is not an error
});

test.run();
