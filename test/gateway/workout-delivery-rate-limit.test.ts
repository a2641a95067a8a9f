/**
 * Workout delivery honouring a provider's rate limit, on the real stack against the workout-API stand-ins
 * (test/support/standins/workout-apis.ts): a 429 or 503 that names when to come back (`Retry-After`, or
 * Wahoo's `X-RateLimit-Reset`) puts the delivery job back in the queue until then without spending one of
 * its attempts, and a named time past the delivery's wait budget (MAX_DELIVERY_WAIT_MS) ends that
 * delivery as `provider_unavailable` at once, while the other providers still get the workout.
 * A 429 naming no time keeps the runner's back-off (test/gateway/workouts.test.ts).
 */
import { randomBytes } from 'node:crypto';
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { jsonClient, type JsonClient } from '../support/json-api.js';
import { until } from '../support/integrations.js';
import { startWorkoutApis, type WorkoutApis } from '../support/standins/workout-apis.js';
import { sealCredentials } from '../../engine/integrations/credentials.js';
import { sealedAccessToken } from '../../engine/workouts/delivery-options.js';
import { MAX_DELIVERY_WAIT_MS } from '../../engine/jobs/workout-jobs.js';
import { newId } from '../../storage/ids.js';
import type { Provider } from '../../domain/providers.js';

interface Context {
  stack: TestStack;
  apis: WorkoutApis;
  key: Uint8Array;
}

const limits = suite<Context>('workout delivery under provider rate limits');
const PATH = '/api/v1/workouts/schedule';
const DAY = 86_400_000;

const workout = () => ({
  swf: { title: 'Tempo', description: null, sport: 'running', content: [{ type: 'step', effort: 'work', volume: { quantity: 'duration', value: 1200 }, intensity: { quantity: 'speed', value: 3.6 }, note: null }] },
  start: new Date(Date.now() + 2 * DAY).toISOString().slice(0, 10) + 'T07:00:00Z',
  parameters: null,
});

limits.before(async (context) => {
  context.key = randomBytes(32);
  context.apis = await startWorkoutApis();
  context.stack = await startStack({ JOB_POLL_MS: '20' }, { workouts: { apiBaseUrls: context.apis.baseUrls, accessTokenFor: sealedAccessToken(context.key) } });
});
limits.after(async (context) => {
  await context.stack.close();
  await context.apis.close();
});

/** A user with a workouts token whose `providers` are connected, their tokens sealed as the integrations seal them. */
async function athleteWith(context: Context, providers: Provider[]): Promise<JsonClient> {
  const { userId, token } = await context.stack.userWithToken(['workouts:read', 'workouts:write']);
  for (const provider of providers) {
    const access = `${provider}-${newId()}`;
    ({ garmin_connect: context.apis.garmin, intervals_icu: context.apis.intervals, wahoo: context.apis.wahoo })[provider].tokens.add(access);
    const now = Date.now();
    await context.stack.store.connections.insert({
      id: newId(), user_id: userId, provider, external_user_id: `${provider}-user`,
      credentials: sealCredentials(context.key, { access_token: access, refresh_token: null, expires_at: null, refresh_expires_at: null, scope: null }),
      status: 'connected', backfill_loaded_until: null, backfill_done: false, created_at: now, updated_at: now,
    });
  }
  return jsonClient(context.stack, token);
}

async function deliveries(api: JsonClient, id: string): Promise<{ integration: string; status: string; reason?: string; detail?: string }[]> {
  return (await api.get(`${PATH}/${id}`)).body.deliveries;
}

const settled = (api: JsonClient, id: string) => until('no delivery pending', async () => {
  const list = await deliveries(api, id);
  return list.every((delivery) => delivery.status !== 'pending') ? list : undefined;
});

const deliveryJob = async (context: Context, id: string) => (await context.stack.store.jobs.findOne({ key: `workout_delivery:${id}` }))!;

limits('a Garmin 429 with Retry-After requeues the delivery until then without spending an attempt; it is delivered once the quota allows', async (context) => {
  const api = await athleteWith(context, ['garmin_connect']);
  context.apis.garmin.dailyQuota = 0;
  context.apis.garmin.quotaRetryAfter = 1;
  const posted = Date.now();
  const created = (await api.post(PATH, workout())).body;
  try {
    const waiting = await until('the delivery waits for Garmin', async () => {
      const [delivery] = await deliveries(api, created.id);
      return delivery!.detail?.startsWith('waiting until') ? delivery : undefined;
    });
    assert.is(waiting.status, 'pending');
    assert.match(waiting.detail!, /garmin_connect create workout: HTTP 429/);
    const job = await deliveryJob(context, created.id);
    assert.ok(job.run_after >= posted + 1000, 'queued until the time Garmin named, not the runner\'s 2 s back-off from the failure');
    assert.match(job.error ?? '', /asked to wait until/);
  } finally {
    context.apis.garmin.dailyQuota = 200;
    context.apis.garmin.quotaRetryAfter = null;
  }
  const done = await settled(api, created.id);
  assert.equal(done.map((delivery) => delivery.status), ['delivered']);
  assert.is((await deliveryJob(context, created.id)).attempts, 1, 'every requeue gave its attempt back');
});

limits('a 503 with Retry-After is waited out the same way, and the call is made again only then', async (context) => {
  const api = await athleteWith(context, ['intervals_icu']);
  context.apis.intervals.failNext(503, { path: /events\/bulk$/, headers: { 'retry-after': '1' }, body: { status: 503, error: 'maintenance' } });
  const created = (await api.post(PATH, workout())).body;
  const done = await settled(api, created.id);
  assert.equal(done.map((delivery) => delivery.status), ['delivered']);
  const job = await deliveryJob(context, created.id);
  assert.is(job.attempts, 1, 'the 503 spent no attempt');
  assert.is(context.apis.intervals.log.filter((call) => call.path.endsWith('/events/bulk?upsert=true') && (call.json as { external_id?: string }[])[0]?.external_id === created.id).length, 2);
});

limits('a wait past the delivery\'s budget (Wahoo\'s day spent, reset hours away) fails that delivery as provider_unavailable at once; the others are delivered', async (context) => {
  const api = await athleteWith(context, ['wahoo', 'intervals_icu']);
  context.apis.wahoo.quota = { calls: 0, resetSeconds: 6 * 3600 };
  try {
    const created = (await api.post(PATH, workout())).body;
    const done = await settled(api, created.id);
    const wahoo = done.find((delivery) => delivery.integration === 'wahoo')!;
    assert.equal([wahoo.status, wahoo.reason], ['failed', 'provider_unavailable']);
    assert.match(wahoo.detail!, new RegExp(`past the ${MAX_DELIVERY_WAIT_MS / 60_000} min a delivery waits: wahoo find plan: HTTP 429`));
    assert.is(done.find((delivery) => delivery.integration === 'intervals_icu')!.status, 'delivered');
    assert.is(context.apis.wahoo.log.filter((call) => call.path.includes(created.id)).length, 1, 'Wahoo was asked once, not retried into its spent quota');
    const job = await until('the delivery job is done', async () => {
      const record = await deliveryJob(context, created.id);
      return record.status === 'done' ? record : undefined;
    });
    assert.is(job.attempts, 1);
  } finally {
    context.apis.wahoo.quota = null;
  }
});

limits.run();
