/**
 * Garmin push and ping notifications as the stand-in POSTs them to a receiver that uses our parsing:
 * several users in one body, the same summaryId twice is one notice, a body without our
 * `garmin-client-id` is refused and re-delivered, a daily re-sent longer keeps the longer record.
 */
import assert from 'node:assert/strict';
import { suite } from '../../support/uvu.js';
import { isFromGarmin, parseGarminNotifications, type GarminNotice } from '../../../engine/integrations/garmin/notifications.js';
import { startGarminStandin, type GarminStandin } from '../../support/standins/garmin.js';
import { startPushReceiver, type PushReceiver } from '../../support/standins/push-receiver.js';

interface Context {
  garmin: GarminStandin;
  receiver: PushReceiver;
  notices: GarminNotice[];
  expectedClientId: string;
}
const notifications = suite<Context>('garmin notifications');

notifications.before(async (context) => {
  context.garmin = await startGarminStandin();
  context.notices = [];
  context.expectedClientId = context.garmin.clientId;
  context.receiver = await startPushReceiver((headers, body) => {
    if (!isFromGarmin(headers['garmin-client-id'], context.expectedClientId)) return 401;
    context.notices.push(...parseGarminNotifications(body).notices);
    return 200;
  });
  context.garmin.setNotificationUrl(context.receiver.url);
});
notifications.after(async ({ garmin, receiver }) => {
  await garmin.close();
  await receiver.close();
});
notifications.before.each((context) => {
  context.notices.length = 0;
  context.expectedClientId = context.garmin.clientId;
});

const activity = (userId: string, summaryId: string, durationInSeconds = 3600) => ({ userId, summaryId, activityId: `a-${summaryId}`, activityType: 'RUNNING', startTimeInSeconds: 1_767_000_000, durationInSeconds });

notifications('one body carrying two users gives each user its own notices', async (context) => {
  context.garmin.queue({ activities: [activity('user-a', 's-1'), activity('user-b', 's-2')], deregistrations: [{ userId: 'user-c' }] });
  assert.deepEqual(await context.garmin.deliver(), [200]);
  assert.deepEqual(context.notices.map((notice) => [notice.kind, notice.userId]), [['push', 'user-a'], ['push', 'user-b'], ['deregistration', 'user-c']]);
});

notifications('the same summaryId twice is one notice (the longer record wins), across bodies the key repeats for the upsert', async (context) => {
  context.garmin.queue({ activities: [activity('user-a', 's-dup', 1800), activity('user-a', 's-dup', 3600), activity('user-a', 's-other')] });
  context.garmin.queue({ activities: [activity('user-a', 's-dup', 3600)] });
  await context.garmin.deliver();
  const keys = context.notices.map((notice) => (notice.kind === 'push' ? notice.summaryId : null));
  assert.deepEqual(keys, ['s-dup', 's-other', 's-dup'], 'one notice per summaryId per body; the framework upserts by summaryId');
  const first = context.notices[0];
  assert.ok(first?.kind === 'push' && first.record.durationInSeconds === 3600);
});

notifications('a daily re-sent with a longer duration replaces the shorter one in the same body', () => {
  const parsed = parseGarminNotifications({ dailies: [
    { userId: 'u', summaryId: 'd-1', calendarDate: '2026-01-14', durationInSeconds: 86_400, restingHeartRateInBeatsPerMinute: 48 },
    { userId: 'u', summaryId: 'd-1', calendarDate: '2026-01-14', durationInSeconds: 40_000, restingHeartRateInBeatsPerMinute: 52 },
  ] });
  assert.equal(parsed.notices.length, 1);
  const [daily] = parsed.notices;
  assert.ok(daily?.kind === 'push' && daily.record.restingHeartRateInBeatsPerMinute === 48);
});

notifications('a body without our garmin-client-id is refused and Garmin delivers it again later', async (context) => {
  context.expectedClientId = 'someone-else';
  context.garmin.queue({ deregistrations: [{ userId: 'user-x' }] });
  assert.deepEqual(await context.garmin.deliver(), [401]);
  assert.equal(context.notices.length, 0);
  context.expectedClientId = context.garmin.clientId;
  assert.deepEqual(await context.garmin.deliver(), [200], 're-delivered after a non-200');
  assert.deepEqual(context.notices, [{ kind: 'deregistration', userId: 'user-x' }]);
});

notifications('pings, activity file pings and permission changes are told apart; entries without a userId are skipped', () => {
  const parsed = parseGarminNotifications({
    dailies: [{ userId: 'u', callbackURL: 'https://apis.garmin.com/wellness-api/rest/dailies?uploadStartTimeInSeconds=1&uploadEndTimeInSeconds=2&token=t' }],
    activityFiles: [{ userId: 'u', summaryId: 'f-1', fileType: 'FIT', callbackURL: 'https://apis.garmin.com/wellness-api/rest/activityFile?id=1&token=t', activityId: 9, startTimeInSeconds: 5 }],
    userPermissionsChange: [{ userId: 'u', permissions: ['ACTIVITY_EXPORT'], changeTimeInSeconds: 7 }],
    activities: [{ summaryId: 'no-user' }],
  });
  assert.deepEqual(parsed.notices.map((notice) => notice.kind), ['ping', 'activity_file', 'permissions']);
  assert.equal(parsed.skipped, 1);
  const file = parsed.notices[1];
  assert.ok(file?.kind === 'activity_file' && file.activityId === '9');
});

notifications('the client id header check is exact', () => {
  assert.equal(isFromGarmin('garmin-client', 'garmin-client'), true);
  assert.equal(isFromGarmin('garmin-clien', 'garmin-client'), false);
  assert.equal(isFromGarmin(undefined, 'garmin-client'), false);
});

notifications.run();
