/**
 * The Wahoo client against the stand-in: paging `/v1/workouts` newest first with `total`, null summaries
 * and string decimals, a workout arriving mid-walk given once, the FIT file fetched from the CDN without
 * our token (403/404 reported, 500 retried), and `/v1/user` weight written as a body_mass daily that
 * never replaces a manual value.
 */
import assert from 'node:assert/strict';
import { suite } from '../../support/uvu.js';
import { writeImportedDailies } from '../../../engine/integrations/daily-import.js';
import { newPkcePair } from '../../../engine/integrations/pkce.js';
import { ProviderCallError } from '../../../engine/integrations/provider-call-error.js';
import { memoryKeeper, Serializer } from '../../../engine/integrations/token-keeper.js';
import { WahooClient } from '../../../engine/integrations/wahoo/client.js';
import { wahooDailiesOf } from '../../../engine/integrations/wahoo/dailies.js';
import { WAHOO_DEFAULT_SCOPES, type WahooApp } from '../../../engine/integrations/wahoo/endpoints.js';
import { exchangeWahooCode, wahooAuthorizeUrl } from '../../../engine/integrations/wahoo/oauth.js';
import { WahooRateGauge } from '../../../engine/integrations/wahoo/rate-gauge.js';
import { upsertDaily } from '../../../storage/dailies.js';
import { openSqliteStore } from '../../../storage/sqlite/sqlite-store.js';
import { authorize, contextFor } from '../../support/standins/clients.js';
import { startWahooStandin, wahooWorkouts, type WahooStandin } from '../../support/standins/wahoo.js';

const wahooApi = suite<{ wahoo: WahooStandin }>('wahoo client');

wahooApi.before(async (context) => {
  context.wahoo = await startWahooStandin();
});
wahooApi.after(async ({ wahoo }) => wahoo.close());

async function clientFor(wahoo: WahooStandin, userId: number, workouts = wahooWorkouts(0, 0)): Promise<WahooClient> {
  wahoo.addUser(userId, { workouts });
  wahoo.approveAs(userId);
  const app: WahooApp = { clientId: wahoo.clientId, clientSecret: wahoo.clientSecret, apiBase: wahoo.baseUrl, scopes: WAHOO_DEFAULT_SCOPES };
  const pkce = newPkcePair();
  const { code } = await authorize(wahooAuthorizeUrl(app, { redirectUri: 'https://t.example/cb', state: 's', challenge: pkce.challenge }));
  const context = contextFor('wahoo', wahoo.clock);
  const tokens = await exchangeWahooCode(context, app, { code, redirectUri: 'https://t.example/cb', verifier: pkce.verifier });
  return new WahooClient(context, app, { key: `wahoo-${userId}`, keeper: memoryKeeper(tokens) }, new Serializer(), new WahooRateGauge());
}

wahooApi('pages through every workout newest first, stopping at total, with string decimals read as numbers', async ({ wahoo }) => {
  const workouts = wahooWorkouts(65, wahoo.clock.now());
  workouts[3]!.summary = null; // still recording
  const client = await clientFor(wahoo, 10, workouts);
  const seen: { id: string; page: number; distance: number | null; summary: boolean }[] = [];
  for await (const { workout, page } of client.allWorkouts(30)) seen.push({ id: workout.id, page, distance: workout.summary?.distance ?? null, summary: workout.summary !== null });
  assert.equal(seen.length, 65);
  assert.deepEqual(seen.slice(0, 2).map((entry) => entry.id), ['1', '2'], 'newest first');
  assert.equal(seen[0]!.distance, 30_000);
  assert.equal(seen[3]!.summary, false, 'a workout still recording has a null summary');
  assert.deepEqual(wahoo.requests('/v1/workouts').map((entry) => entry.query.get('page')), ['1', '2', '3']);
  const page = await client.workouts(3, 30);
  assert.deepEqual([page.total, page.page, page.perPage, page.workouts.length], [65, 3, 30, 5]);
});

wahooApi('a workout recorded during the walk shifts the pages but every workout is given once', async ({ wahoo }) => {
  const client = await clientFor(wahoo, 11, wahooWorkouts(40, wahoo.clock.now() - 86_400_000, 100));
  const ids: string[] = [];
  for await (const { workout } of client.allWorkouts(20)) {
    ids.push(workout.id);
    if (ids.length === 1) wahoo.user(11).workouts.push(...wahooWorkouts(1, wahoo.clock.now(), 500));
  }
  assert.equal(new Set(ids).size, ids.length, 'no duplicate');
  for (let id = 100; id < 140; id++) assert.ok(ids.includes(String(id)), `workout ${id} is not lost`);
});

wahooApi('reads a workout summary and downloads its FIT file from the CDN without sending our token', async ({ wahoo }) => {
  const client = await clientFor(wahoo, 12, wahooWorkouts(1, wahoo.clock.now(), 700));
  const summary = await client.workoutSummary('700');
  assert.ok(summary?.fileUrl);
  assert.deepEqual([summary.powerAvg, summary.durationActive, summary.heartRateAvg], [180.5, 3600, null]);
  const bytes = await client.downloadFile(summary.fileUrl);
  assert.equal(new TextDecoder().decode(bytes), 'FIT:wahoo:700');
  const [download] = wahoo.requests(/^\/cdn\//);
  assert.equal(download!.headers.authorization, undefined);
});

wahooApi('a FIT URL answering 403 or 404 is reported (rejected); a 500 is retryable', async ({ wahoo }) => {
  const client = await clientFor(wahoo, 13, wahooWorkouts(1, wahoo.clock.now(), 800));
  const url = (await client.workoutSummary('800'))!.fileUrl!;
  const outcomes: [string, boolean][] = [];
  for (const status of [403, 404, 500]) {
    wahoo.fault({ path: /^\/cdn\//, reply: { status, body: 'AccessDenied' } });
    const error = await client.downloadFile(url).then(() => null, (caught: ProviderCallError) => caught);
    outcomes.push([error!.kind, error!.retryable]);
  }
  assert.deepEqual(outcomes, [['rejected', false], ['rejected', false], ['unavailable', true]]);
  assert.equal((await client.downloadFile(url)).length > 0, true, 'the next try succeeds');
});

wahooApi('the user weight becomes a body_mass daily for the day it is read, and never replaces a manual value', async ({ wahoo }) => {
  const client = await clientFor(wahoo, 14);
  const user = await client.user();
  assert.deepEqual([user.id, user.weight, user.height], ['14', 70.5, 1.8]);
  const dailies = wahooDailiesOf(user, wahoo.clock.now());
  assert.deepEqual(dailies, [{ measure: 'body_mass', date: '2026-01-15', value: 70.5 }]);
  const store = await openSqliteStore({ file: ':memory:' });
  assert.deepEqual(await writeImportedDailies(store, 'u', 'wahoo', dailies), { written: 1, keptManual: 0, dropped: 0 });
  await upsertDaily(store, { userId: 'u', measure: 'body_mass', date: '2026-01-15', value: 69, source: 'manual' });
  assert.deepEqual(await writeImportedDailies(store, 'u', 'wahoo', dailies), { written: 0, keptManual: 1, dropped: 0 });
  const [record] = await store.dailies.find({ user_id: 'u' });
  assert.deepEqual([record!.value, record!.source], [69, 'manual']);
  await store.close();
  assert.deepEqual(wahooDailiesOf({ ...user, weight: null }, wahoo.clock.now()), []);
});

wahooApi.run();
