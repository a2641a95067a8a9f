/**
 * The Garmin client against the stand-in, every Wellness API behaviour providers.md §4 lists for Garmin:
 * user id and permissions, backfill (202 → an activityFiles ping, 409 repeat, 403 without
 * HISTORICAL_DATA_EXPORT, > 30 days refused), pulls (≤ 24 h, seconds not milliseconds), one download per
 * file (410 on a repeat, 500 retryable), 429 with and without Retry-After, deregistration (204, push,
 * then 403) and a permissions change (push, then 412).
 */
import assert from 'node:assert/strict';
import { suite } from '../../support/uvu.js';
import { fetchActivityFile } from '../../../engine/integrations/garmin/activity-files.js';
import { GarminClient } from '../../../engine/integrations/garmin/client.js';
import type { GarminApp } from '../../../engine/integrations/garmin/endpoints.js';
import { isFromGarmin, parseGarminNotifications, type GarminNotice } from '../../../engine/integrations/garmin/notifications.js';
import { exchangeGarminCode, garminAuthorizeUrl } from '../../../engine/integrations/garmin/oauth.js';
import { toUnixSeconds, windowsNewestFirst, ACTIVITY_BACKFILL_WINDOW_SECONDS } from '../../../engine/integrations/garmin/windows.js';
import { newPkcePair } from '../../../engine/integrations/pkce.js';
import { ProviderCallError } from '../../../engine/integrations/provider-call-error.js';
import { memoryKeeper, Serializer } from '../../../engine/integrations/token-keeper.js';
import { authorize, contextFor } from '../../support/standins/clients.js';
import { fakeFit, startGarminStandin, type GarminStandin } from '../../support/standins/garmin.js';
import { startPushReceiver, type PushReceiver } from '../../support/standins/push-receiver.js';

interface Context {
  garmin: GarminStandin;
  receiver: PushReceiver;
  notices: GarminNotice[];
}
const garminApi = suite<Context>('garmin client');
const DAY = 86_400;

garminApi.before(async (context) => {
  context.garmin = await startGarminStandin({ quota: 'evaluation' });
  context.notices = [];
  context.receiver = await startPushReceiver((headers, body) => {
    if (!isFromGarmin(headers['garmin-client-id'], context.garmin.clientId)) return 401;
    context.notices.push(...parseGarminNotifications(body).notices);
    return 200;
  });
  context.garmin.setNotificationUrl(context.receiver.url);
});
garminApi.after(async ({ garmin, receiver }) => {
  await garmin.close();
  await receiver.close();
});
garminApi.before.each((context) => {
  context.notices.length = 0;
  context.garmin.clock.advance(61_000); // a fresh partner-minute for every test
});

const appOf = (garmin: GarminStandin): GarminApp => ({ clientId: garmin.clientId, clientSecret: garmin.clientSecret, endpoints: { connectBase: garmin.baseUrl, authBase: garmin.baseUrl, apiBase: garmin.baseUrl } });

async function connectedClient(garmin: GarminStandin, userId: string, permissions?: string[]): Promise<GarminClient> {
  const nowS = toUnixSeconds(garmin.clock.now());
  garmin.addUser(userId, {
    ...(permissions && { permissions }),
    activities: [1, 2, 3].map((n) => ({
      summaryId: `${userId}-s${n}`, activityId: `${userId}-a${n}`, activityType: 'RUNNING', startTimeInSeconds: nowS - n * 12 * DAY,
      durationInSeconds: 3600, uploadTimeInSeconds: nowS - n * 12 * DAY + 4000, fit: fakeFit(`${userId}-s${n}`),
    })),
  });
  garmin.approveAs(userId);
  const app = appOf(garmin);
  const pkce = newPkcePair();
  const context = contextFor('garmin_connect', garmin.clock);
  const { code } = await authorize(garminAuthorizeUrl(app, { challenge: pkce.challenge, state: 's', redirectUri: 'https://t.example/cb' }));
  const tokens = await exchangeGarminCode(context, app, { code, verifier: pkce.verifier, redirectUri: 'https://t.example/cb' });
  return new GarminClient(context, app, { key: userId, keeper: memoryKeeper(tokens) }, new Serializer());
}

const kindOf = async (promise: Promise<unknown>) => {
  const error = await promise.then(() => null, (caught) => caught);
  if (!(error instanceof ProviderCallError)) throw new Error(`expected a ProviderCallError, got ${String(error)}`);
  return { kind: error.kind, status: error.status, retryAt: error.retryAt, retryable: error.retryable };
};

garminApi('reads the Garmin user id and the permissions the user granted', async ({ garmin }) => {
  const client = await connectedClient(garmin, 'u-ids', ['ACTIVITY_EXPORT', 'HEALTH_EXPORT']);
  assert.equal(await client.userId(), 'u-ids');
  assert.deepEqual(await client.permissions(), ['ACTIVITY_EXPORT', 'HEALTH_EXPORT']);
});

garminApi('a 30-day backfill is accepted, its activities arrive as activityFiles pings, and each file downloads once', async (context) => {
  const { garmin } = context;
  const client = await connectedClient(garmin, 'u-backfill');
  const nowS = toUnixSeconds(garmin.clock.now());
  const [newest] = windowsNewestFirst(nowS - 90 * DAY, nowS, ACTIVITY_BACKFILL_WINDOW_SECONDS);
  assert.equal(await client.requestBackfill('activities', newest!), 'accepted');
  assert.equal(await client.requestBackfill('activities', newest!), 'already_requested', 'a repeat is 409: already on its way');
  assert.deepEqual(await garmin.deliver(), [200]);
  const files = context.notices.filter((notice) => notice.kind === 'activity_file');
  assert.deepEqual(files.map((notice) => notice.kind === 'activity_file' && notice.summaryId).sort(), ['u-backfill-s1', 'u-backfill-s2']);
  const stored = new Set<string>();
  for (const notice of files) {
    if (notice.kind !== 'activity_file') continue;
    const outcome = await fetchActivityFile(client, notice, async (id) => stored.has(id));
    assert.equal(outcome.kind, 'downloaded');
    if (outcome.kind === 'downloaded') assert.deepEqual(outcome.bytes, fakeFit(notice.summaryId));
    stored.add(notice.summaryId);
    // The same ping again: not fetched (already stored); fetched anyway, Garmin answers 410.
    assert.equal((await fetchActivityFile(client, notice, async (id) => stored.has(id))).kind, 'already_stored');
    assert.deepEqual(await client.downloadActivityFile(notice.callbackUrl), { kind: 'gone' });
  }
  assert.equal(garmin.requests('/wellness-api/rest/activityFile').length, 4, 'one download per file plus one checked repeat each');
});

garminApi('a 410 for a file we never stored is reported as lost; a 500 is retryable and the next try downloads it', async (context) => {
  const { garmin } = context;
  const client = await connectedClient(garmin, 'u-files');
  garmin.pingActivityFiles('u-files', ['u-files-s1', 'u-files-s2']);
  await garmin.deliver();
  const [first, second] = context.notices.filter((notice): notice is Extract<GarminNotice, { kind: 'activity_file' }> => notice.kind === 'activity_file');
  garmin.fault({ path: '/wellness-api/rest/activityFile', reply: { status: 500, body: { errorMessage: 'internal error' } } });
  const failed = await kindOf(fetchActivityFile(client, first!, async () => false));
  assert.deepEqual([failed.kind, failed.retryable], ['unavailable', true]);
  assert.equal((await fetchActivityFile(client, first!, async () => false)).kind, 'downloaded');
  await client.downloadActivityFile(second!.callbackUrl); // downloaded, but our write was lost
  const lost = await fetchActivityFile(client, second!, async () => false);
  assert.equal(lost.kind, 'lost');
});

garminApi('backfill without HISTORICAL_DATA_EXPORT is not_permitted (report, never retry); a window over 30 days is refused', async ({ garmin }) => {
  const client = await connectedClient(garmin, 'u-nohistory', ['ACTIVITY_EXPORT']);
  const nowS = toUnixSeconds(garmin.clock.now());
  const refused = await kindOf(client.requestBackfill('activities', { start: nowS - 10 * DAY, end: nowS }));
  assert.deepEqual([refused.kind, refused.status, refused.retryable], ['not_permitted', 403, false]);
  const full = await connectedClient(garmin, 'u-wide');
  const wide = await kindOf(full.requestBackfill('activities', { start: nowS - 31 * DAY, end: nowS }));
  assert.deepEqual([wide.kind, wide.status], ['rejected', 400]);
  assert.equal(await full.requestBackfill('dailies', { start: nowS - 90 * DAY, end: nowS }), 'accepted', 'Health API windows reach 90 days');
});

garminApi('pulls by upload time in windows of at most 24 h in Unix seconds; milliseconds are refused', async ({ garmin }) => {
  const client = await connectedClient(garmin, 'u-pull');
  const upload = toUnixSeconds(garmin.clock.now()) - 12 * DAY + 4000;
  const records = await client.pull('activities', { start: upload - 100, end: upload + 100 });
  assert.deepEqual(records.map((record) => record.summaryId), ['u-pull-s1']);
  await assert.rejects(client.pull('activities', { start: upload - DAY - 1, end: upload }), RangeError);
  const inMs = await kindOf(client.pull('activities', { start: upload * 1000, end: upload * 1000 + 1000 }));
  assert.deepEqual([inMs.kind, inMs.status], ['rejected', 400]);
  const tooLong = await fetch(`${garmin.baseUrl}/wellness-api/rest/activities?uploadStartTimeInSeconds=0&uploadEndTimeInSeconds=${DAY + 1}`, { headers: { authorization: `Bearer ${await client.accessToken()}` } });
  assert.equal(tooLong.status, 400, 'the stand-in itself refuses > 24 h');
});

garminApi('a ping callback is called exactly as given, with its pull token', async (context) => {
  const { garmin } = context;
  const client = await connectedClient(garmin, 'u-ping');
  garmin.clock.advance(0);
  garmin.user('u-ping').activities[0]!.uploadTimeInSeconds = toUnixSeconds(garmin.clock.now()) - 60;
  garmin.ping('u-ping', 'activities');
  await garmin.deliver();
  const ping = context.notices.find((notice) => notice.kind === 'ping');
  assert.ok(ping && ping.kind === 'ping');
  const records = await client.pullCallback(ping.callbackUrl);
  assert.deepEqual(records.map((record) => record.summaryId), ['u-ping-s1']);
  const [call] = garmin.requests('/wellness-api/rest/activities').slice(-1);
  assert.match(call!.query.get('token') ?? '', /^pull-/);
});

garminApi('a 429 without Retry-After waits at least 60 s; with Retry-After, the time Garmin names', async ({ garmin }) => {
  const client = await connectedClient(garmin, 'u-429');
  const now = garmin.clock.now();
  garmin.fault({ path: '/wellness-api/rest/user/id', reply: { status: 429, body: { errorMessage: 'Rate limit exceeded' } } });
  const plain = await kindOf(client.userId());
  assert.equal(plain.kind, 'rate_limited');
  assert.ok(plain.retryAt! >= now + 60_000, `retry at +${plain.retryAt! - now} ms`);
  garmin.fault({ path: '/wellness-api/rest/user/id', reply: { status: 429, headers: { 'retry-after': '120' } } });
  assert.equal((await kindOf(client.userId())).retryAt, now + 120_000);
});

garminApi('the evaluation quota answers 429 past 100 calls a minute, and the client reports when to come back', async ({ garmin }) => {
  const client = await connectedClient(garmin, 'u-quota');
  let limited: Awaited<ReturnType<typeof kindOf>> | null = null;
  for (let call = 0; call < 101 && limited === null; call++) {
    const failed = await client.userId().then(() => false, () => true);
    if (failed) limited = await kindOf(client.userId()); // still refused: the minute is spent
  }
  assert.ok(limited, 'the stand-in enforces the evaluation quota');
  assert.equal(limited.kind, 'rate_limited');
  assert.ok(limited.retryAt! >= garmin.clock.now() + 60_000);
  garmin.clock.advance(60_000);
  assert.equal(await client.userId(), 'u-quota', 'a new minute, a new budget');
});

garminApi('our disconnect deletes the registration (204), Garmin pushes the deregistration, and the token is refused with 403', async (context) => {
  const { garmin } = context;
  const client = await connectedClient(garmin, 'u-dereg');
  await client.deregister();
  const [call] = garmin.requests('/wellness-api/rest/user/registration', 'DELETE');
  assert.ok(call);
  await garmin.deliver();
  assert.deepEqual(context.notices, [{ kind: 'deregistration', userId: 'u-dereg' }]);
  const refused = await kindOf(client.userId());
  assert.deepEqual([refused.kind, refused.status], ['unauthorized', 403]);
  await client.deregister(); // already gone: not an error
});

garminApi('a permissions change is pushed, and a call needing the withdrawn permission is answered 412 (not_permitted)', async (context) => {
  const { garmin } = context;
  const client = await connectedClient(garmin, 'u-perm');
  garmin.changePermissions('u-perm', ['HEALTH_EXPORT']);
  await garmin.deliver();
  assert.equal(context.notices.length, 1);
  const [change] = context.notices;
  assert.ok(change?.kind === 'permissions');
  assert.deepEqual(change.permissions, ['HEALTH_EXPORT']);
  const nowS = toUnixSeconds(garmin.clock.now());
  const refused = await kindOf(client.pull('activities', { start: nowS - 100, end: nowS }));
  assert.deepEqual([refused.kind, refused.status, refused.retryable], ['not_permitted', 412, false]);
});

garminApi.run();
