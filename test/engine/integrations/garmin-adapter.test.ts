/**
 * The Garmin Connect adapter through the framework's interface (provider.ts) against the stand-in:
 * connect with PKCE, a backfill walk of 30-day windows answered 202 (409 on a resumed page), history
 * arriving as activityFiles pings downloaded once, Health pushes as dailies, the client-id check,
 * and the framework's error classes for 429, a refused token and a missing permission.
 */
import assert from 'node:assert/strict';
import { suite } from '../../support/uvu.js';
import { garminAdapter } from '../../../engine/integrations/garmin/adapter.js';
import { AuthorizationRevoked, ProviderRefused, PushRejected, RateLimited, type ProviderAdapter, type PushItem } from '../../../engine/integrations/provider.js';
import { authorize } from '../../support/standins/clients.js';
import { fakeFit, startGarminStandin, type GarminStandin } from '../../support/standins/garmin.js';
import { FakeClock } from '../../support/standins/standin-core.js';
import { startPushReceiver, type PushReceiver } from '../../support/standins/push-receiver.js';

interface Context {
  garmin: GarminStandin;
  adapter: ProviderAdapter;
  receiver: PushReceiver;
  items: PushItem[];
}
const adapterSuite = suite<Context>('garmin adapter');
const DAY_MS = 86_400_000;
const REDIRECT = 'https://threshold.example/integrations/garmin_connect/callback';

adapterSuite.before(async (context) => {
  const clock = new FakeClock(Date.now());
  context.garmin = await startGarminStandin({ clock });
  const base = context.garmin.baseUrl;
  context.adapter = garminAdapter({ clientId: context.garmin.clientId, clientSecret: context.garmin.clientSecret, authorizeBaseUrl: base, apiBaseUrl: base, tokenBaseUrl: base, pushSecret: null }, { now: clock.now });
  context.items = [];
  context.receiver = await startPushReceiver((headers, body) => {
    try {
      context.items.push(...context.adapter.parsePush({ headers: headers as Record<string, string>, body: Buffer.from(JSON.stringify(body)) }));
      return 200;
    } catch (error) {
      return error instanceof PushRejected ? 401 : 500;
    }
  });
  context.garmin.setNotificationUrl(context.receiver.url);
});
adapterSuite.after(async ({ garmin, receiver }) => {
  await garmin.close();
  await receiver.close();
});
adapterSuite.before.each((context) => {
  context.items.length = 0;
  context.garmin.clock.advance(61_000);
});

async function connect({ garmin, adapter }: Context, userId: string, permissions?: string[]) {
  const now = garmin.clock.now();
  garmin.addUser(userId, {
    ...(permissions && { permissions }),
    activities: [5, 40, 70].map((days) => ({
      summaryId: `${userId}-${days}`, activityId: `a-${days}`, activityType: 'CYCLING', startTimeInSeconds: Math.floor((now - days * DAY_MS) / 1000),
      durationInSeconds: 3600, uploadTimeInSeconds: Math.floor((now - days * DAY_MS) / 1000) + 3700, fit: fakeFit(`${userId}-${days}`),
    })),
  });
  garmin.approveAs(userId);
  const start = adapter.authorizationUrl({ redirectUri: REDIRECT, state: 'state-1' });
  assert.ok(start.codeVerifier);
  const { code } = await authorize(start.url);
  return adapter.exchangeCode({ code, redirectUri: REDIRECT, codeVerifier: start.codeVerifier });
}

adapterSuite('connects with PKCE and names the Garmin user and the permissions granted', async (context) => {
  const tokens = await connect(context, 'g-connect', ['ACTIVITY_EXPORT', 'HISTORICAL_DATA_EXPORT']);
  assert.equal(tokens.externalUserId, 'g-connect');
  assert.equal(tokens.scope, 'ACTIVITY_EXPORT HISTORICAL_DATA_EXPORT');
  assert.equal(await context.adapter.identity(tokens), 'g-connect');
  const refreshed = await context.adapter.refresh(tokens);
  assert.ok(refreshed && refreshed.refresh_token !== tokens.refresh_token && refreshed.access_token !== tokens.access_token);
  assert.equal(refreshed.scope, tokens.scope);
  await assert.rejects(context.adapter.refresh(tokens), AuthorizationRevoked, 'the old refresh token is spent');
});

adapterSuite('walks history in 30-day windows newest first; the files arrive as pings and download once', async (context) => {
  const { garmin, adapter } = context;
  const tokens = await connect(context, 'g-walk');
  const newest = garmin.clock.now();
  const oldest = newest - 80 * DAY_MS;
  const cursors: (string | null)[] = [];
  let cursor: string | null = null;
  do {
    const page = await adapter.listHistory(tokens, { cursor, oldest, newest });
    assert.equal(page.deferred, true);
    assert.deepEqual(page.activities, []);
    cursor = page.next;
    cursors.push(cursor);
  } while (cursor !== null);
  assert.equal(cursors.length, 3, '80 days: windows of 30, 30 and 20 days');
  const windows = garmin.requests('/wellness-api/rest/backfill/activities').map((entry) => [Number(entry.query.get('summaryStartTimeInSeconds')), Number(entry.query.get('summaryEndTimeInSeconds'))]);
  assert.ok(windows.every(([start, end], index) => end! - start! <= 30 * 86_400 && (index === 0 || end === windows[index - 1]![0])), 'contiguous, newest first, ≤ 30 days');
  assert.equal(garmin.requests(/^\/wellness-api\/rest\/backfill\//).length, 15, 'activities and four Health types per window');
  // A resumed walk asks for a window again: Garmin's 409 means it is on its way, not an error.
  assert.equal((await adapter.listHistory(tokens, { cursor: null, oldest, newest })).deferred, true);

  await garmin.deliver();
  const activities = context.items.filter((item): item is Extract<PushItem, { kind: 'activity' }> => item.kind === 'activity');
  assert.deepEqual(activities.map((item) => item.activity.id).sort(), ['g-walk-40', 'g-walk-5', 'g-walk-70']);
  for (const item of activities) {
    assert.equal(item.externalUserId, 'g-walk');
    assert.deepEqual(await adapter.download(tokens, item.activity), fakeFit(item.activity.id));
    assert.equal(await adapter.download(tokens, item.activity), null, 'a repeat download is 410: gone');
  }
});

adapterSuite('without HISTORICAL_DATA_EXPORT the walk stops at once, saying history is withheld, instead of retrying a 403', async (context) => {
  const tokens = await connect(context, 'g-nohistory', ['ACTIVITY_EXPORT']);
  const now = context.garmin.clock.now();
  const page = await context.adapter.listHistory(tokens, { cursor: null, oldest: now - 365 * DAY_MS, newest: now });
  assert.deepEqual({ ...page, withheld: page.withheld?.includes('HISTORICAL_DATA_EXPORT') }, { activities: [], next: null, deferred: true, withheld: true });
});

adapterSuite('pushes: dailies from Health records, deregistration as deauthorized, a permission change in ms; a body without our client id is rejected', async (context) => {
  const { garmin, adapter } = context;
  garmin.queue({
    dailies: [{ userId: 'g-push', summaryId: 'd1', calendarDate: '2026-01-14', restingHeartRateInBeatsPerMinute: 46, durationInSeconds: 86_400 }],
    bodyComps: [{ userId: 'g-push', summaryId: 'b1', measurementTimeInSeconds: 1_768_392_000, weightInGrams: 70_100 }],
    deregistrations: [{ userId: 'g-gone' }],
    userPermissionsChange: [{ userId: 'g-push', permissions: ['HEALTH_EXPORT'], changeTimeInSeconds: 1_768_392_000 }],
  });
  await garmin.deliver();
  assert.deepEqual(context.items, [
    { kind: 'dailies', externalUserId: 'g-push', dailies: [{ measure: 'resting_hr', date: '2026-01-14', value: 46 }] },
    { kind: 'dailies', externalUserId: 'g-push', dailies: [{ measure: 'body_mass', date: '2026-01-14', value: 70.1 }] },
    { kind: 'deauthorized', externalUserId: 'g-gone' },
    { kind: 'permissions', externalUserId: 'g-push', changedAt: 1_768_392_000_000 },
  ]);
  assert.throws(() => adapter.parsePush({ headers: { 'garmin-client-id': 'other-app' }, body: Buffer.from('{}') }), PushRejected);
  assert.throws(() => adapter.parsePush({ headers: {}, body: Buffer.from('{}') }), PushRejected);
});

adapterSuite("a callbackURL off Garmin's Wellness API (a forged ping: pushes are unsigned) is ignored, and never called with the token", async (context) => {
  const { garmin, adapter } = context;
  const tokens = await connect(context, 'g-forged');
  const seen: string[] = [];
  const trap = await startPushReceiver((headers) => {
    seen.push(String(headers.authorization));
    return 200;
  });
  try {
    for (const url of [trap.url, `${garmin.baseUrl}/elsewhere/file`, `${garmin.baseUrl.replace('://', '://user:pw@')}/wellness-api/rest/activityFile`, 'not a url']) {
      context.items.length = 0;
      garmin.queue({ activityFiles: [{ userId: 'g-forged', summaryId: 's-forged', callbackURL: url, fileType: 'FIT' }] });
      await garmin.deliver();
      assert.deepEqual(context.items.map((item) => item.kind), ['ignored'], url);
      await assert.rejects(adapter.download(tokens, { id: 's-forged', start: 0, file: url }), ProviderRefused);
    }
    assert.deepEqual(seen, [], 'nothing reached the other host');
  } finally {
    await trap.close();
  }
});

adapterSuite('a 429 is RateLimited at least 60 s out; after our revoke the token is AuthorizationRevoked', async (context) => {
  const { garmin, adapter } = context;
  const tokens = await connect(context, 'g-errors');
  garmin.fault({ path: '/wellness-api/rest/user/id', reply: { status: 429, body: { errorMessage: 'Rate limit exceeded' } } });
  const limited = await adapter.identity(tokens).catch((error) => error);
  assert.ok(limited instanceof RateLimited);
  assert.ok(limited.retryAt! >= garmin.clock.now() + 60_000);
  await adapter.revoke!(tokens);
  await assert.rejects(adapter.identity(tokens), AuthorizationRevoked);
  await adapter.revoke!(tokens); // already deregistered: not an error
});

adapterSuite.run();
