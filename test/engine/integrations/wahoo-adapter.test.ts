/**
 * The Wahoo adapter through the framework's interface (provider.ts) against the stand-in: connect with
 * PKCE, history pages newest first until `total` or `oldest` (unfinished workouts left out), the CDN file
 * without our token, webhooks checked by `webhook_token` with the same activity id as the listing, a
 * refresh whose old pair dies on first use, weight as a daily, throttling as RateLimited (daily when the
 * day is spent), and 401 after our revoke as AuthorizationRevoked.
 */
import assert from 'node:assert/strict';
import { suite } from '../../support/uvu.js';
import { AuthorizationRevoked, PushRejected, RateLimited, type HistoryPage, type ProviderAdapter } from '../../../engine/integrations/provider.js';
import { wahooAdapter } from '../../../engine/integrations/wahoo/adapter.js';
import { authorize } from '../../support/standins/clients.js';
import { FakeClock } from '../../support/standins/standin-core.js';
import { startWahooStandin, wahooWorkouts, type WahooStandin } from '../../support/standins/wahoo.js';

interface Context {
  wahoo: WahooStandin;
  adapter: ProviderAdapter;
}
const adapterSuite = suite<Context>('wahoo adapter');
const DAY_MS = 86_400_000;
const REDIRECT = 'https://threshold.example/integrations/wahoo/callback';

adapterSuite.before(async (context) => {
  const clock = new FakeClock(Date.now());
  context.wahoo = await startWahooStandin({ clock });
  const base = context.wahoo.baseUrl;
  context.adapter = wahooAdapter(
    { clientId: context.wahoo.clientId, clientSecret: context.wahoo.clientSecret, authorizeBaseUrl: base, apiBaseUrl: base, tokenBaseUrl: base, pushSecret: context.wahoo.webhookToken },
    { now: clock.now },
  );
});
adapterSuite.after(async ({ wahoo }) => wahoo.close());

async function connect({ wahoo, adapter }: Context, userId: number, workouts = wahooWorkouts(0, 0)) {
  wahoo.addUser(userId, { workouts });
  wahoo.approveAs(userId);
  const start = adapter.authorizationUrl({ redirectUri: REDIRECT, state: 'st' });
  assert.equal(new URL(start.url).searchParams.get('code_challenge_method'), 'S256');
  const { code } = await authorize(start.url);
  return adapter.exchangeCode({ code, redirectUri: REDIRECT, codeVerifier: start.codeVerifier });
}

adapterSuite('walks the workouts newest first page by page, leaving out unfinished ones, and stops at oldest', async (context) => {
  const { wahoo, adapter } = context;
  const now = wahoo.clock.now();
  const workouts = wahooWorkouts(70, now);
  workouts[1]!.summary = null;
  const tokens = await connect(context, 7, workouts);
  assert.equal(tokens.externalUserId, '7');
  const pages: HistoryPage[] = [];
  let cursor: string | null = null;
  do {
    const page: HistoryPage = await adapter.listHistory(tokens, { cursor, oldest: now - 5 * 365 * DAY_MS, newest: now });
    pages.push(page);
    cursor = page.next;
  } while (cursor !== null);
  assert.deepEqual(pages.map((page) => page.next), ['2', '3', null]);
  const ids = pages.flatMap((page) => page.activities.map((activity) => activity.id));
  assert.equal(ids.length, 69);
  assert.equal(ids.includes('2'), false, 'the unfinished workout is left for its webhook');
  const starts = pages.flatMap((page) => page.activities.map((activity) => activity.start));
  assert.deepEqual(starts, [...starts].sort((a, b) => b - a), 'newest first');
  const short = await adapter.listHistory(tokens, { cursor: null, oldest: now - 10 * DAY_MS, newest: now });
  assert.equal(short.next, null, 'a page reaching past oldest ends the walk');
  const [first] = pages[0]!.activities;
  assert.equal(new TextDecoder().decode((await adapter.download(tokens, first!))!), 'FIT:wahoo:1');
  assert.equal(wahoo.requests(/^\/cdn\//)[0]!.headers.authorization, undefined, 'no token to the CDN');
  wahoo.fault({ path: /^\/cdn\//, reply: { status: 404, body: 'NoSuchKey' } });
  assert.equal(await adapter.download(tokens, first!), null, 'a file that is gone');
});

adapterSuite('a webhook with our token becomes an activity with the listing id; another token is rejected', (context) => {
  const body = (token: string) => Buffer.from(JSON.stringify({
    event_type: 'workout_summary', webhook_token: token, user: { id: 7 },
    workout_summary: { id: 10, file: { url: 'https://cdn.example/1.fit' }, updated_at: '2026-01-15T10:00:00.000Z', workout: { id: 1, starts: '2026-01-15T09:00:00.000Z' } },
  }));
  const items = context.adapter.parsePush({ headers: {}, body: body(context.wahoo.webhookToken) });
  assert.deepEqual(items, [{ kind: 'activity', externalUserId: '7', activity: { id: '1', start: Date.parse('2026-01-15T09:00:00.000Z'), file: 'https://cdn.example/1.fit' } }]);
  assert.throws(() => context.adapter.parsePush({ headers: {}, body: body('forged') }), PushRejected);
});

adapterSuite('a refresh gives a new pair; the old pair works until the new one is used', async (context) => {
  const { wahoo, adapter } = context;
  const tokens = await connect(context, 8);
  const fresh = await adapter.refresh(tokens);
  assert.ok(fresh && fresh.access_token !== tokens.access_token);
  assert.equal(await adapter.identity(tokens), '8', 'the old pair still works');
  assert.equal(await adapter.identity(fresh), '8');
  assert.equal(wahoo.isLive(tokens.access_token), false);
  await assert.rejects(adapter.identity(tokens), AuthorizationRevoked);
});

adapterSuite('the user weight is today\'s body_mass', async (context) => {
  const tokens = await connect(context, 9);
  const today = new Date(context.wahoo.clock.now()).toISOString().slice(0, 10);
  assert.deepEqual(await context.adapter.dailies!(tokens, { oldest: '2020-01-01', newest: '2099-01-01' }), [{ measure: 'body_mass', date: today, value: 70.5 }]);
  assert.deepEqual(await context.adapter.dailies!(tokens, { oldest: '2020-01-01', newest: '2020-02-01' }), []);
});

adapterSuite('throttled calls are RateLimited, daily when the day is spent; after our revoke the token is AuthorizationRevoked', async (context) => {
  const { wahoo, adapter } = context;
  const tokens = await connect(context, 11);
  wahoo.fault({ path: '/v1/user', reply: { status: 200, body: { id: 11 }, headers: { 'x-ratelimit-limit': '5000, 1000, 200', 'x-ratelimit-remaining': '0, 10, 10', 'x-ratelimit-reset': '3600' } } });
  assert.equal(await adapter.identity(tokens), '11');
  const limited = await adapter.identity(tokens).catch((error) => error);
  assert.ok(limited instanceof RateLimited);
  assert.equal(limited.daily, true);
  assert.equal(limited.retryAt, wahoo.clock.now() + 3_600_000);
  wahoo.clock.advance(3_600_000);
  await adapter.revoke!(tokens);
  await assert.rejects(adapter.identity(tokens), AuthorizationRevoked);
});

adapterSuite.run();
