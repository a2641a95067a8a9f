/**
 * Garmin permissions end to end, on the real stack against the Garmin stand-in (test/support/standins/
 * garmin.ts): a `userPermissionsChange` push withdrawing ACTIVITY_EXPORT, HEALTH_EXPORT and WORKOUT_IMPORT
 * stops activity and daily imports and workout delivery (refused without calling Garmin) and shows on the portal's Connected platforms
 * page; a stale change is ignored; granted back, imports and delivery resume. A connection made without
 * HISTORICAL_DATA_EXPORT backfills nothing older, says so once in backfill-status and on the page, and
 * backfills once the user grants it.
 */
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { startGarminStandin, type GarminActivity, type GarminStandin } from '../support/standins/garmin.js';
import { FakeClock, type Reply, type Routes, type StandinRequest } from '../support/standins/standin-core.js';
import { connectThroughPortal, until } from '../support/integrations.js';
import { fitActivity } from '../support/fit-writer.js';
import { jsonClient } from '../support/json-api.js';
import type { CookieJar } from '../support/browser-session.js';
import { createApplication } from '../../gateway/services/accounts.js';
import type { ApplicationRecord, ConnectionRecord } from '../../storage/store.js';

const ALL = ['ACTIVITY_EXPORT', 'HEALTH_EXPORT', 'WORKOUT_IMPORT', 'HISTORICAL_DATA_EXPORT'];
const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

let stack: TestStack;
let garmin: GarminStandin;
let app: ApplicationRecord;

/** The Training API's two delivery calls (the stand-in's gate answers 412 without WORKOUT_IMPORT and counts quotas). */
let nextId = 5000;
const authorized = (request: StandinRequest, answer: () => Reply): Reply => {
  const user = garmin.userFor(request);
  return 'status' in user ? user : answer();
};
const training: Routes = {
  'POST /workoutportal/workout/v2': (request) => authorized(request, () => ({ status: 200, body: { workoutId: ++nextId } })),
  'POST /training-api/schedule/': (request) => authorized(request, () => ({ status: 200, body: { scheduleId: ++nextId } })),
};

test.before(async () => {
  garmin = await startGarminStandin({ clock: new FakeClock(Date.now()), extraRoutes: training });
  stack = await startStack({
    GARMIN_CLIENT_ID: garmin.clientId, GARMIN_CLIENT_SECRET: garmin.clientSecret,
    GARMIN_AUTHORIZE_URL: garmin.baseUrl, GARMIN_API_URL: garmin.baseUrl, GARMIN_TOKEN_URL: garmin.baseUrl,
    JOB_POLL_MS: '20', BACKFILL_STATUS_INTERVAL_MS: '20', BACKFILL_STATUS_DURATION_MS: '300',
  });
  garmin.setNotificationUrl(`${stack.baseUrl}/api/v1/integrations/garmin_connect/push`);
  const owner = await stack.userWithToken([]);
  app = await createApplication(stack.store, owner.userId, { name: 'Pacer', redirect_uris: ['https://pacer.example.com/cb'] });
});
test.after(async () => {
  await stack.close();
  await garmin.close();
});

function activity(userId: string, daysAgo: number): GarminActivity {
  const start = garmin.clock.now() - daysAgo * DAY_MS;
  return {
    summaryId: `${userId}-${daysAgo}`, activityId: `a-${userId}-${daysAgo}`, activityType: 'CYCLING', startTimeInSeconds: Math.floor(start / 1000),
    durationInSeconds: 120, uploadTimeInSeconds: Math.floor(start / 1000) + 200, fit: fitActivity({ start, seconds: 120, power: 180 }),
  };
}

/** A user of ours connected through the portal to Garmin user `garminId`, who grants `permissions`. */
async function connectGarmin(garminId: string, permissions: string[], activities: GarminActivity[]) {
  garmin.clock.advance(MINUTE_MS); // a fresh minute of the stand-in's backfill quota
  garmin.addUser(garminId, { permissions, activities });
  garmin.approveAs(garminId);
  const user = await stack.userWithToken(['activities:read', 'workouts:read', 'workouts:write'], { appId: app.id });
  const { jar, landing } = await connectThroughPortal(stack.baseUrl, user.token, 'garmin_connect');
  assert.is(landing, '/portal/manage-integrations?notice=connected');
  return { ...user, jar };
}

async function connection(userId: string): Promise<ConnectionRecord> {
  return (await stack.store.connections.findOne({ user_id: userId, provider: 'garmin_connect' }))!;
}

/** Sends Garmin's queued notifications and waits until the push jobs they became have run. */
async function deliverPushes(): Promise<void> {
  const statuses = await garmin.deliver();
  assert.ok(statuses.every((status) => status === 200), `every push answered 200 (${statuses.join(', ')})`);
  await until('push jobs run', async () => ((await stack.store.jobs.count({ kind: 'provider_push', status: { $in: ['queued', 'running'] } })) === 0 ? true : undefined));
}

async function imported(userId: string, summaryId: string): Promise<boolean> {
  return (await stack.store.sources.count({ user_id: userId, external_id: `garmin_connect:${summaryId}` })) === 1;
}

/** A Garmin Health API daily with a resting heart rate, as pushed. */
function restingHr(userId: string, summaryId: string, bpm: number): Record<string, unknown> {
  const date = new Date(garmin.clock.now()).toISOString().slice(0, 10);
  return { userId, summaryId, calendarDate: date, restingHeartRateInBeatsPerMinute: bpm, durationInSeconds: 86_400 };
}

async function restingHrOf(userId: string): Promise<number | null> {
  return (await stack.store.dailies.findOne({ user_id: userId, measure: 'resting_hr' }))?.value ?? null;
}

async function page(jar: CookieJar): Promise<string> {
  return (await jar.get('/portal/manage-integrations')).text();
}

/** Schedules a run two days out; answers its Garmin delivery once it settled. */
/** GET /api/v1/profile/status with the user's app token. */
async function accountStatus(token: string): Promise<{ capabilities: Record<string, string>; issue: { code: string; message: string } | null }> {
  const response = await stack.get('/api/v1/profile/status', token);
  assert.is(response.status, 200);
  return (await response.json()) as { capabilities: Record<string, string>; issue: { code: string; message: string } | null };
}

async function scheduleWorkout(token: string): Promise<{ status: string; reason?: string }> {
  const api = jsonClient(stack, token);
  const start = new Date(Date.now() + 2 * DAY_MS).toISOString().slice(0, 10);
  const created = await api.post('/api/v1/workouts/schedule', {
    start: `${start}T07:00:00Z`,
    swf: { title: 'Tempo', sport: 'running', content: [{ type: 'step', effort: 'work', volume: { quantity: 'duration', value: 1200 }, intensity: { quantity: 'speed', value: 3.6 } }] },
  });
  assert.is(created.status, 200, JSON.stringify(created.body));
  const id = (created.body as { id: string }).id;
  return until('delivery settled', async () => {
    const deliveries = ((await api.get(`/api/v1/workouts/schedule/${id}`)).body as { deliveries: { integration: string; status: string; reason?: string }[] }).deliveries;
    const garminDelivery = deliveries.find((delivery) => delivery.integration === 'garmin_connect');
    return garminDelivery && garminDelivery.status !== 'pending' ? garminDelivery : undefined;
  });
}

test('permissions withdrawn by push stop activity and daily imports and workout delivery and show on the page; a stale change is ignored; granted back, both resume', async () => {
  const user = await connectGarmin('g-perm', ALL, [activity('g-perm', 10)]);
  await until('backfill done', async () => ((await connection(user.userId)).backfill_done ? true : undefined));
  await deliverPushes();
  await until('history imported', () => imported(user.userId, 'g-perm-10').then((done) => done || undefined));
  assert.equal((await connection(user.userId)).permissions, ALL, 'what the user granted is stored in plain');
  assert.not.match(await page(user.jar), 'Not shared by');

  garmin.clock.advance(MINUTE_MS);
  garmin.changePermissions('g-perm', ['HISTORICAL_DATA_EXPORT']);
  await deliverPushes();
  const narrowed = await connection(user.userId);
  assert.equal(narrowed.permissions, ['HISTORICAL_DATA_EXPORT']);
  assert.is(narrowed.status, 'connected', 'withdrawing permissions does not disconnect');

  garmin.user('g-perm').activities.push(activity('g-perm', 0));
  garmin.pingActivityFiles('g-perm', ['g-perm-0']);
  garmin.queue({ dailies: [restingHr('g-perm', 'd-1', 47)] });
  await deliverPushes();
  assert.not.ok(await imported(user.userId, 'g-perm-0'), 'no activity is imported without ACTIVITY_EXPORT');
  assert.is(await restingHrOf(user.userId), null, 'no daily is kept without HEALTH_EXPORT');
  assert.is(garmin.requests('/wellness-api/rest/activityFile').length, 1, 'its file is not even fetched');

  const calls = garmin.requests(/^\/(workoutportal|training-api)\//).length;
  const refused = await scheduleWorkout(user.token);
  assert.equal([refused.status, refused.reason], ['failed', 'permission_missing']);
  assert.is(garmin.requests(/^\/(workoutportal|training-api)\//).length, calls, 'Garmin is not called');

  const shown = await page(user.jar);
  assert.match(shown, 'Not shared by Garmin Connect');
  assert.match(shown, '(ACTIVITY_EXPORT)');
  assert.match(shown, 'new activities are not imported');
  assert.match(shown, '(WORKOUT_IMPORT)');
  assert.match(shown, 'workouts cannot be sent');
  assert.match(shown, '(HEALTH_EXPORT)');
  assert.not.match(shown, '(HISTORICAL_DATA_EXPORT)');
  const status = await accountStatus(user.token);
  assert.equal([status.capabilities.activities, status.issue?.code], ['action_required', 'activities_blocked_upstream'], 'account status: no activity source');
  assert.match(status.issue?.message ?? '', 'does not share your activities');

  garmin.resendPermissionsChange('g-perm', ALL, Math.floor((garmin.clock.now() - 30 * MINUTE_MS) / 1000));
  await deliverPushes();
  assert.equal((await connection(user.userId)).permissions, ['HISTORICAL_DATA_EXPORT'], 'a change older than the stored one is ignored');
  garmin.clock.advance(MINUTE_MS);
  garmin.resendPermissionsChange('g-perm', ALL, Math.floor(garmin.clock.now() / 1000));
  await deliverPushes();
  assert.equal((await connection(user.userId)).permissions, ['HISTORICAL_DATA_EXPORT'], 'a push is only a cue: what Garmin answers at user/permissions counts, not the list pushed');

  garmin.clock.advance(MINUTE_MS);
  garmin.changePermissions('g-perm', ALL);
  garmin.pingActivityFiles('g-perm', ['g-perm-0']); // a new upload's ping, after the grant
  garmin.queue({ dailies: [restingHr('g-perm', 'd-2', 48)] });
  await deliverPushes();
  await until('new activity imported', () => imported(user.userId, 'g-perm-0').then((done) => done || undefined));
  assert.is(await restingHrOf(user.userId), 48, 'dailies are kept again');
  assert.is((await scheduleWorkout(user.token)).status, 'delivered', 'workouts reach Garmin again');
  assert.not.match(await page(user.jar), 'Not shared by');
  assert.is((await accountStatus(user.token)).capabilities.activities, 'ready');

  garmin.queue({ deregistrations: [{ userId: 'g-perm' }] }); // forged: the user is still registered at Garmin
  await deliverPushes();
  assert.is((await connection(user.userId)).status, 'connected', 'a deregistration whose token still works changes nothing');
  garmin.deregisterInGarmin('g-perm');
  await deliverPushes();
  assert.is((await connection(user.userId)).status, 'action_required', 'a real one (the token refused) asks the user to reconnect');
});

test('a connection made without HISTORICAL_DATA_EXPORT reports the skipped history once and on the page, and backfills once granted (the same grant twice changes nothing)', async () => {
  const user = await connectGarmin('g-nohist', ['ACTIVITY_EXPORT', 'HEALTH_EXPORT', 'WORKOUT_IMPORT'], [activity('g-nohist', 40)]);
  const stopped = await until('backfill stopped', async () => {
    const current = await connection(user.userId);
    return current.backfill_done ? current : undefined;
  });
  assert.is(stopped.backfill_withheld, true);
  assert.is(stopped.sync_error?.code, 'permission_missing');
  assert.is(garmin.requests(/^\/wellness-api\/rest\/backfill\//).filter((request) => request.at >= garmin.clock.now()).length, 0, 'no backfill is asked of Garmin');

  const response = await stack.get('/api/v1/activities/backfill-status', user.token);
  assert.is(response.status, 200);
  const lines = (await response.text()).trim().split('\n').map((line) => JSON.parse(line) as Record<string, { code?: string; provider?: string; message?: string }>);
  assert.ok(lines.length >= 3, 'several ticks before the stream closed');
  const errors = lines.filter((line) => 'error' in line).map((line) => line.error!);
  assert.is(errors.length, 1, 'the error item is written once');
  assert.is(errors[0]!.provider, 'garmin_connect');
  assert.is(errors[0]!.code, 'permission_missing');
  assert.match(errors[0]!.message ?? '', 'HISTORICAL_DATA_EXPORT');
  assert.ok(lines.some((line) => typeof line.backfill_loaded_until === 'string'), 'loaded back to the connection');

  const shown = await page(user.jar);
  assert.match(shown, '(HISTORICAL_DATA_EXPORT)');
  assert.match(shown, 'history older than the connection is not imported');
  assert.not.match(shown, '(ACTIVITY_EXPORT)');
  const status = await accountStatus(user.token);
  assert.equal([status.capabilities.activities, status.capabilities.activity_history], ['ready', 'action_required'], 'account status: history withheld');
  assert.match(status.issue?.message ?? '', 'does not share your activity history');

  garmin.clock.advance(MINUTE_MS);
  const before = garmin.requests(/^\/wellness-api\/rest\/backfill\//).length;
  garmin.changePermissions('g-nohist', ALL);
  await deliverPushes();
  const resumed = await until('backfill resumed and done', async () => {
    const current = await connection(user.userId);
    return current.backfill_done && !current.backfill_withheld ? current : undefined;
  });
  assert.is(resumed.sync_error ?? null, null, 'the note is cleared');
  assert.ok(garmin.requests(/^\/wellness-api\/rest\/backfill\//).length > before, 'history is asked of Garmin');
  await deliverPushes();
  await until('history imported', () => imported(user.userId, 'g-nohist-40').then((done) => done || undefined));
  assert.not.match(await page(user.jar), 'Not shared by');

  const asked = garmin.requests(/^\/wellness-api\/rest\/backfill\//).length;
  garmin.resendPermissionsChange('g-nohist', ALL, Math.floor(garmin.clock.now() / 1000)); // the same change again
  await deliverPushes();
  const again = await connection(user.userId);
  assert.equal([again.permissions, again.backfill_done, again.backfill_withheld], [ALL, true, false], 'the same change twice changes nothing');
  assert.is(garmin.requests(/^\/wellness-api\/rest\/backfill\//).length, asked, 'and asks for no history again');
});

test.run();
