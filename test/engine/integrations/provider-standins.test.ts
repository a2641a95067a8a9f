/**
 * What the Garmin and Wahoo stand-ins offer other tests beyond our clients' calls: extra routes (the
 * scheduled-workouts helper mounts the Training API and Wahoo plans this way) behind the stand-in's
 * permission and quota checks, and Garmin re-delivering a notification nobody answered in time.
 */
import assert from 'node:assert/strict';
import { test } from '../../support/uvu.js';
import { GarminClient } from '../../../engine/integrations/garmin/client.js';
import { exchangeGarminCode, garminAuthorizeUrl } from '../../../engine/integrations/garmin/oauth.js';
import { newPkcePair } from '../../../engine/integrations/pkce.js';
import { memoryKeeper, Serializer } from '../../../engine/integrations/token-keeper.js';
import { authorize, contextFor } from '../../support/standins/clients.js';
import { startGarminStandin, type GarminStandin } from '../../support/standins/garmin.js';
import { startPushReceiver } from '../../support/standins/push-receiver.js';
import { startWahooStandin } from '../../support/standins/wahoo.js';

async function garminToken(garmin: GarminStandin, userId: string): Promise<string> {
  garmin.addUser(userId);
  garmin.approveAs(userId);
  const app = { clientId: garmin.clientId, clientSecret: garmin.clientSecret, endpoints: { connectBase: garmin.baseUrl, authBase: garmin.baseUrl, apiBase: garmin.baseUrl } };
  const pkce = newPkcePair();
  const context = contextFor('garmin_connect', garmin.clock);
  const { code } = await authorize(garminAuthorizeUrl(app, { challenge: pkce.challenge, state: 's', redirectUri: 'https://t.example/cb' }));
  const tokens = await exchangeGarminCode(context, app, { code, verifier: pkce.verifier, redirectUri: 'https://t.example/cb' });
  return new GarminClient(context, app, { key: userId, keeper: memoryKeeper(tokens) }, new Serializer()).accessToken();
}

test('Garmin extra routes are mounted behind WORKOUT_IMPORT (412 without it) and the per-user Training API quota (429)', async () => {
  let created = 0;
  const garmin = await startGarminStandin({
    quota: 'evaluation',
    extraRoutes: {
      'POST /workoutportal/workout/v2': (request) => {
        const user = garmin.userFor(request);
        if ('status' in user) return user;
        created += 1;
        return { status: 200, body: { workoutId: created } };
      },
    },
  });
  try {
    const token = await garminToken(garmin, 'g-trainer');
    const post = () => fetch(`${garmin.baseUrl}/workoutportal/workout/v2`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: '{}' }).then((response) => response.status);
    assert.equal(await post(), 200);
    garmin.changePermissions('g-trainer', ['ACTIVITY_EXPORT']);
    assert.equal(await post(), 412);
    garmin.user('g-trainer').permissions.push('WORKOUT_IMPORT');
    const statuses: number[] = [];
    for (let call = 0; call < 200; call++) {
      if (call % 90 === 0) garmin.clock.advance(60_000); // stay under the partner's 100 calls a minute
      statuses.push(await post());
    }
    assert.equal(statuses.filter((status) => status === 200).length, 198, '200 calls a user a day, two spent above');
    assert.equal(statuses.at(-1), 429);
  } finally {
    await garmin.close();
  }
});

test('Wahoo extra routes are mounted and counted against the rate limits, with the headers', async () => {
  const wahoo = await startWahooStandin({ extraRoutes: { 'GET /v1/plans': () => ({ status: 200, body: [] }) } });
  try {
    const response = await fetch(`${wahoo.baseUrl}/v1/plans`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('x-ratelimit-remaining'), '4999, 999, 199');
  } finally {
    await wahoo.close();
  }
});

test('Garmin delivers a notification again when the receiver did not answer in time', async () => {
  const garmin = await startGarminStandin({ answerWithinMs: 200 });
  let calls = 0;
  const receiver = await startPushReceiver(() => {
    calls += 1;
    return calls === 1 ? new Promise<number>(() => {}) : 200; // the first delivery hangs
  });
  try {
    garmin.setNotificationUrl(receiver.url);
    garmin.queue({ deregistrations: [{ userId: 'late' }] });
    assert.deepEqual(await garmin.deliver(), [0]);
    assert.equal(garmin.pending.length, 1);
    assert.deepEqual(await garmin.deliver(), [200]);
    assert.equal(garmin.pending.length, 0);
  } finally {
    await receiver.close();
    await garmin.close();
  }
});

test.run();
