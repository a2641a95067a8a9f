/**
 * `backfill_loaded_until` is "a timestamp (no UTC offset) of the earliest activity date loaded so far"
 * (interface §2 "Backfill status"): after the last page it is the earliest activity the backfill loaded,
 * not the history horizon the job walked back to (years before the first activity). Against the
 * intervals.icu stand-in on the real stack; the last test writes connections directly to pin how
 * backfill-status combines several of them.
 */
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { startIntervalsIcuStandin, type IntervalsIcuStandin, type StandinActivity } from '../support/standins/intervals-icu.js';
import { connectThroughPortal, ICU_CLIENT, intervalsIcuEnv, until } from '../support/integrations.js';
import { fitActivity } from '../support/fit-writer.js';
import { createApplication, createUser } from '../../gateway/services/accounts.js';
import { newId } from '../../storage/ids.js';
import type { ApplicationRecord, ConnectionRecord } from '../../storage/store.js';

const DAY = 86_400_000;
/** Yesterday 06:30 UTC: well inside the history window, whenever the test runs. */
const BASE = Math.floor(Date.now() / DAY) * DAY - DAY + 6.5 * 3_600_000;

let stack: TestStack;
let standin: IntervalsIcuStandin;
let app: ApplicationRecord;

function activity(index: number, options: Partial<StandinActivity> = {}): StandinActivity {
  const start = BASE - index * DAY;
  return { id: `i${3000 + index}`, start, file: fitActivity({ start, seconds: 60, power: 140 + index }), ...options };
}

/** UTC without offset or fraction, as the update item writes it. */
function naive(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19);
}

async function updates(token: string): Promise<(string | null)[]> {
  const response = await stack.get('/api/v1/activities/backfill-status', token);
  assert.is(response.status, 200);
  const lines = (await response.text()).trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
  return lines.filter((line) => 'backfill_loaded_until' in line).map((line) => line.backfill_loaded_until as string | null);
}

test.before(async () => {
  standin = await startIntervalsIcuStandin({ clientId: ICU_CLIENT.id, clientSecret: ICU_CLIENT.secret, webhookSecret: ICU_CLIENT.webhookSecret });
  stack = await startStack({ ...intervalsIcuEnv(standin), JOB_POLL_MS: '20', INTEGRATION_PAGE_SIZE: '2', BACKFILL_STATUS_INTERVAL_MS: '20', BACKFILL_STATUS_DURATION_MS: '150' });
  const owner = await createUser(stack.store, { email: 'loaded-until-owner@example.com' });
  app = await createApplication(stack.store, owner.id, { name: 'Horizon', redirect_uris: ['https://horizon.example.com/cb'] });
});

test.after(async () => {
  await stack.close();
  await standin.close();
});

test('after the last page, backfill_loaded_until is the earliest activity loaded, not the history horizon; a skipped stub does not count', async () => {
  standin.activities.push(...[0, 1, 2, 3, 4].map((i) => activity(i)));
  standin.activities.push(activity(9, { file: null })); // older still, but a Strava stub: nothing is loaded
  const user = await stack.userWithToken(['activities:read'], { appId: app.id });
  await connectThroughPortal(stack.baseUrl, user.token);
  const done = await until('backfill done', async () => {
    const found = await stack.store.connections.findOne({ user_id: user.userId, provider: 'intervals_icu' });
    return found?.backfill_done ? found : undefined;
  });
  assert.is(await stack.store.sources.count({ user_id: user.userId }), 5);
  assert.is(done.backfill_loaded_until, BASE - 4 * DAY, `${naive(done.backfill_loaded_until ?? 0)} is not the earliest activity's start`);
  const seen = await updates(user.token);
  assert.ok(seen.length >= 2, 'several update lines');
  assert.ok(seen.every((value) => value === naive(BASE - 4 * DAY)), seen.join(', '));
});

test('backfill-status: while one connection backfills it speaks; once all are done, the earliest activity any loaded; a done history without activities holds nothing back', async () => {
  const user = await stack.userWithToken(['activities:read']);
  const now = Date.now();
  const insert = async (over: Partial<ConnectionRecord>): Promise<string> => {
    const id = newId();
    await stack.store.connections.insert({
      id, user_id: user.userId, provider: 'intervals_icu', external_user_id: null, credentials: {}, status: 'connected',
      backfill_loaded_until: null, backfill_done: true, created_at: now, updated_at: now, ...over,
    });
    return id;
  };
  const empty = await insert({ provider: 'wahoo' }); // done, its history held no activity
  assert.equal([...new Set(await updates(user.token))], [null], 'nothing loaded anywhere');
  await insert({ backfill_loaded_until: BASE - 30 * DAY });
  const garmin = await insert({ provider: 'garmin_connect', backfill_done: false, backfill_loaded_until: BASE - 2 * DAY });
  assert.equal([...new Set(await updates(user.token))], [naive(BASE - 2 * DAY)], 'the backfilling connection speaks');
  await stack.store.connections.updateOne({ id: garmin }, { set: { backfill_done: true, backfill_loaded_until: BASE - 10 * DAY } });
  assert.equal([...new Set(await updates(user.token))], [naive(BASE - 30 * DAY)], 'all done: the earliest activity loaded');
  await stack.store.connections.updateOne({ id: empty }, { set: { backfill_done: false } });
  assert.equal([...new Set(await updates(user.token))], [null], 'a backfill that has loaded nothing yet');
});

test.run();
