/**
 * Garmin Health API records → daily values, written through upsertDaily: the mapping of each measure,
 * a daily re-sent longer replaces the stored value, and a value set through the API (`manual`) is never
 * overwritten by an import. Health records come from a backfill the stand-in pushes.
 */
import assert from 'node:assert/strict';
import { suite } from '../../support/uvu.js';
import { garminDailiesOf } from '../../../engine/integrations/garmin/dailies.js';
import { GarminClient } from '../../../engine/integrations/garmin/client.js';
import { isFromGarmin, parseGarminNotifications, type GarminNotice } from '../../../engine/integrations/garmin/notifications.js';
import { exchangeGarminCode, garminAuthorizeUrl } from '../../../engine/integrations/garmin/oauth.js';
import { toUnixSeconds } from '../../../engine/integrations/garmin/windows.js';
import { writeImportedDailies } from '../../../engine/integrations/daily-import.js';
import { newPkcePair } from '../../../engine/integrations/pkce.js';
import { memoryKeeper, Serializer } from '../../../engine/integrations/token-keeper.js';
import { upsertDaily } from '../../../storage/dailies.js';
import { openSqliteStore } from '../../../storage/sqlite/sqlite-store.js';
import type { Store } from '../../../storage/store.js';
import { authorize, contextFor } from '../../support/standins/clients.js';
import { startGarminStandin } from '../../support/standins/garmin.js';
import { startPushReceiver } from '../../support/standins/push-receiver.js';

const dailies = suite('garmin dailies');

const stored = async (store: Store) => (await store.dailies.find({ user_id: 'u1' }))
  .map((record) => `${record.date} ${record.measure} ${record.value} ${record.source}`).sort();

dailies('maps bodyComps, dailies, hrv and sleeps to body_mass kg, body_fat_pct, resting_hr, hrv and sleep_duration', () => {
  assert.deepEqual(garminDailiesOf('bodyComps', { measurementTimeInSeconds: 1_768_435_200, measurementTimeOffsetInSeconds: 3600, weightInGrams: 71_500, bodyFatInPercent: 14.2 }), [
    { measure: 'body_mass', date: '2026-01-15', value: 71.5 },
    { measure: 'body_fat_pct', date: '2026-01-15', value: 14.2 },
  ]);
  assert.deepEqual(garminDailiesOf('dailies', { calendarDate: '2026-01-14', restingHeartRateInBeatsPerMinute: 47 }), [{ measure: 'resting_hr', date: '2026-01-14', value: 47 }]);
  assert.deepEqual(garminDailiesOf('hrv', { calendarDate: '2026-01-14', lastNightAvg: 62 }), [{ measure: 'hrv', date: '2026-01-14', value: 62 }]);
  assert.deepEqual(garminDailiesOf('sleeps', { calendarDate: '2026-01-14', durationInSeconds: 27_000 }), [{ measure: 'sleep_duration', date: '2026-01-14', value: 27_000 }]);
  assert.deepEqual(garminDailiesOf('epochs', { calendarDate: '2026-01-14' }), []);
  assert.deepEqual(garminDailiesOf('dailies', { calendarDate: '2026-01-14' }), [], 'no resting heart rate, no value');
});

dailies('a backfilled Health API push lands as daily values; a sleep re-sent longer replaces the shorter one', async () => {
  const garmin = await startGarminStandin();
  const store = await openSqliteStore({ file: ':memory:' });
  const notices: GarminNotice[] = [];
  const receiver = await startPushReceiver((headers, body) => {
    if (!isFromGarmin(headers['garmin-client-id'], garmin.clientId)) return 401;
    notices.push(...parseGarminNotifications(body).notices);
    return 200;
  });
  try {
    garmin.setNotificationUrl(receiver.url);
    const start = toUnixSeconds(garmin.clock.now()) - 3 * 86_400;
    garmin.addUser('g-1', { health: {
      sleeps: [{ summaryId: 'sl-1', calendarDate: '2026-01-13', startTimeInSeconds: start, durationInSeconds: 20_000 }],
      bodyComps: [{ summaryId: 'bc-1', measurementTimeInSeconds: start, measurementTimeOffsetInSeconds: 0, weightInGrams: 70_000 }],
    } });
    garmin.approveAs('g-1');
    const app = { clientId: garmin.clientId, clientSecret: garmin.clientSecret, endpoints: { connectBase: garmin.baseUrl, authBase: garmin.baseUrl, apiBase: garmin.baseUrl } };
    const pkce = newPkcePair();
    const context = contextFor('garmin_connect', garmin.clock);
    const { code } = await authorize(garminAuthorizeUrl(app, { challenge: pkce.challenge, state: 's', redirectUri: 'https://t.example/cb' }));
    const client = new GarminClient(context, app, { key: 'g-1', keeper: memoryKeeper(await exchangeGarminCode(context, app, { code, verifier: pkce.verifier, redirectUri: 'https://t.example/cb' })) }, new Serializer());
    const window = { start: start - 86_400, end: start + 86_400 };
    assert.equal(await client.requestBackfill('sleeps', window), 'accepted');
    assert.equal(await client.requestBackfill('bodyComps', window), 'accepted');
    // The sleep grows and Garmin re-sends it: same summaryId, longer duration.
    garmin.queue({ sleeps: [{ userId: 'g-1', summaryId: 'sl-1', calendarDate: '2026-01-13', startTimeInSeconds: start, durationInSeconds: 28_800 }] });
    assert.deepEqual(await garmin.deliver(), [200, 200, 200]);
    for (const notice of notices) {
      if (notice.kind === 'push') await writeImportedDailies(store, 'u1', 'garmin_connect', garminDailiesOf(notice.type, notice.record));
    }
    assert.deepEqual(await stored(store), ['2026-01-12 body_mass 70 garmin_connect', '2026-01-13 sleep_duration 28800 garmin_connect']);
  } finally {
    await receiver.close();
    await garmin.close();
    await store.close();
  }
});

dailies('an import never overwrites a value set through the API', async () => {
  const store = await openSqliteStore({ file: ':memory:' });
  await upsertDaily(store, { userId: 'u1', measure: 'body_mass', date: '2026-01-14', value: 68, source: 'manual' });
  const outcome = await writeImportedDailies(store, 'u1', 'garmin_connect', [
    ...garminDailiesOf('bodyComps', { measurementTimeInSeconds: 1_768_392_000, weightInGrams: 99_000 }),
    { measure: 'resting_hr', date: '2026-01-14', value: 999 },
  ]);
  assert.deepEqual(outcome, { written: 0, keptManual: 1, dropped: 1 });
  assert.deepEqual(await stored(store), ['2026-01-14 body_mass 68 manual']);
  await store.close();
});

dailies.run();
