/**
 * /api/v1/workouts/schedule on the real stack (gateway → store → the engine's job runner) against the
 * providers' workout-API stand-ins (test/support/standins/workout-apis.ts): the response shape, SWF and
 * body 422s at exact `loc`s, scopes, the application_id and date filters with application_name,
 * delivery to each provider, deliveries that fail at the provider (412, 422, 401) or are retried (500,
 * 429) until delivered, and DELETE removing the workout here and at the providers that document how.
 * Connections are written straight into the store with tokens sealed as the integrations seal them.
 */
import { randomBytes } from 'node:crypto';
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { jsonClient, sendJson, validationIssueAt, type JsonClient } from '../support/json-api.js';
import { startWorkoutApis, type WorkoutApis } from '../support/standins/workout-apis.js';
import { createApplication } from '../../gateway/services/accounts.js';
import { sealCredentials } from '../../engine/integrations/credentials.js';
import { sealedAccessToken } from '../../engine/workouts/delivery-options.js';
import { workoutDeliveryJobHandler } from '../../engine/jobs/workout-jobs.js';
import { workoutDeliveryOptions } from '../../engine/workouts/delivery-options.js';
import { newId } from '../../storage/ids.js';
import { NO_PROVIDER_WARNING } from '../../domain/workouts/schedule-warnings.js';
import type { ConnectionRecord } from '../../storage/records.js';
import type { Provider } from '../../domain/providers.js';
import { createLogger } from '../../domain/logger.js';
import { WORKOUT_ANSWER_MAX_BYTES } from '../../engine/workouts/provider-call.js';

interface Context {
  stack: TestStack;
  apis: WorkoutApis;
  key: Uint8Array;
  appId: string;
}

const workouts = suite<Context>('scheduled workouts');
const PATH = '/api/v1/workouts/schedule';
const RESPONSE_KEYS = ['id', 'sport', 'start', 'start_local', 'swf', 'parameters', 'application_id', 'application_name', 'deliveries', 'warnings'];
const DAY = 86_400_000;
/** Each provider call's deadline here (30 s in production): long enough for a loaded machine, short enough to wait for. */
const CALL_DEADLINE_MS = 5_000;

/** An instant `days` ahead at 07:00 UTC, written at +02:00 (09:00 local). */
function startIn(days: number): string {
  const utc = new Date(Date.now() + days * DAY);
  utc.setUTCHours(7, 0, 0, 0);
  return `${new Date(utc.getTime() + 2 * 3_600_000).toISOString().slice(0, 19)}+02:00`;
}

const step = (over: Record<string, unknown> = {}) => ({ type: 'step', effort: 'work', volume: { quantity: 'duration', value: 600 }, intensity: { quantity: 'speed', value: 3.5 }, note: null, ...over });
const swf = (over: Record<string, unknown> = {}) => ({
  title: 'Easy intervals', description: null, sport: 'running',
  content: [{ type: 'section', phase: 'main', content: [{ type: 'repeat', count: 4, content: [step(), step({ effort: 'rest', intensity: null })] }] }],
  ...over,
});
const body = (over: Record<string, unknown> = {}) => ({ swf: swf(), start: startIn(2), parameters: null, ...over });

workouts.before(async (context) => {
  context.key = randomBytes(32);
  context.apis = await startWorkoutApis();
  context.stack = await startStack({ JOB_POLL_MS: '20' }, { workouts: { apiBaseUrls: context.apis.baseUrls, accessTokenFor: sealedAccessToken(context.key), timeoutMs: CALL_DEADLINE_MS } });
  const owner = await context.stack.userWithToken([]);
  context.appId = (await createApplication(context.stack.store, owner.userId, { name: 'Coach app' })).id;
});
workouts.after(async (context) => {
  await context.stack.close();
  await context.apis.close();
});

/** A user with a workouts:read+write token, a read-only one, an app token, and the user id. */
async function athlete(context: Context) {
  const { userId, token } = await context.stack.userWithToken(['workouts:read', 'workouts:write']);
  return {
    userId,
    api: jsonClient(context.stack, token),
    readOnly: jsonClient(context.stack, (await context.stack.userWithToken(['workouts:read'], { userId })).token),
    app: jsonClient(context.stack, (await context.stack.userWithToken(['workouts:read', 'workouts:write'], { appId: context.appId, userId })).token),
  };
}

/** Connects `provider` for the user as the integrations store it: status connected, tokens sealed. */
async function connect(context: Context, userId: string, provider: Provider, options: { status?: ConnectionRecord['status']; knownToken?: boolean } = {}): Promise<string> {
  const token = `${provider}-${newId()}`;
  if (options.knownToken !== false) ({ garmin_connect: context.apis.garmin, intervals_icu: context.apis.intervals, wahoo: context.apis.wahoo })[provider].tokens.add(token);
  const now = Date.now();
  await context.stack.store.connections.insert({
    id: newId(), user_id: userId, provider, external_user_id: provider === 'intervals_icu' ? 'i4242' : `${provider}-user`,
    credentials: sealCredentials(context.key, { access_token: token, refresh_token: null, expires_at: null, refresh_expires_at: null, scope: null }),
    status: options.status ?? 'connected', backfill_loaded_until: null, backfill_done: false, created_at: now, updated_at: now,
  });
  return token;
}

/** Polls the workout until no delivery is pending. */
async function settled(api: JsonClient, id: string, timeoutMs = 30_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await api.get(`${PATH}/${id}`);
    assert.is(response.status, 200);
    if (response.body.deliveries.every((delivery: { status: string }) => delivery.status !== 'pending')) return response.body;
    if (Date.now() > deadline) throw new Error(`deliveries still pending after ${timeoutMs} ms: ${JSON.stringify(response.body.deliveries)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function until(what: string, check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not so after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

workouts('stores a workout with no connected integration: every key, deliveries [] and a warning saying so', async (context) => {
  const { api } = await athlete(context);
  const start = startIn(3);
  const created = await api.post(PATH, body({ start, parameters: { threshold_speed: 4.2 } }));
  assert.is(created.status, 200, JSON.stringify(created.body));
  assert.equal(Object.keys(created.body), RESPONSE_KEYS);
  assert.equal({ ...created.body, id: 'x', swf: 'x' }, {
    id: 'x', sport: 'running', start: `${start.slice(0, 10)}T07:00:00Z`, start_local: `${start.slice(0, 10)}T09:00:00`, swf: 'x',
    parameters: { threshold_speed: 4.2 }, application_id: null, application_name: null, deliveries: [], warnings: [NO_PROVIDER_WARNING],
  });
  assert.equal(created.body.swf.content[0].content[0].content[1], { type: 'step', effort: 'rest', volume: { type: 'constant', quantity: 'duration', value: 600 }, intensity: null, note: null });
  assert.equal((await api.get(`${PATH}/${created.body.id}`)).body, created.body);
  assert.equal((await api.get(PATH)).body, [created.body]);
});

workouts('answers 422 with exact loc paths into the swf, naming undeliverable sports and intensities', async (context) => {
  const { api } = await athlete(context);
  const heartRate = await api.post(PATH, body({ swf: swf({ content: [step(), { type: 'repeat', count: 3, content: [step({ intensity: { quantity: 'heart_rate', min: 140, max: 150 } })] }] }) }));
  assert.match(validationIssueAt(heartRate, ['body', 'swf', 'content', 1, 'content', 0, 'intensity', 'quantity']),
    /only running with speed intensity is deliverable today: the step at content\.1\.content\.0 sets its intensity in heart_rate/);
  const cycling = await api.post(PATH, body({ swf: swf({ sport: 'cycling' }) }));
  assert.match(validationIssueAt(cycling, ['body', 'swf', 'sport']), /only running with speed intensity is deliverable today: sport 'cycling' is not running/);
  const trail = await api.post(PATH, body({ swf: swf({ sport: 'running.trail' }) }));
  assert.match(validationIssueAt(trail, ['body', 'swf', 'sport']), /'running\.trail' is not running/);
  const typo = await api.post(PATH, body({ swf: swf({ content: [step({ intensty: { quantity: 'speed', value: 3 } })] }) }));
  validationIssueAt(typo, ['body', 'swf', 'content', 0, 'intensty']);
  assert.is(typo.body.detail[0].type, 'extra_forbidden');
  const several = await api.post(PATH, body({ swf: swf({ content: [step({ effort: 'jog' }), { count: 0, content: [step({ intensity: { quantity: 'speed', min: 5, max: 4 } })] }] }) }));
  validationIssueAt(several, ['body', 'swf', 'content', 0, 'effort']);
  validationIssueAt(several, ['body', 'swf', 'content', 1, 'count']);
  assert.match(validationIssueAt(several, ['body', 'swf', 'content', 1, 'content', 0, 'intensity', 'max']), /not be below min/);
  const missingType = await api.post(PATH, body({ swf: swf({ content: [step({ type: undefined })] }) }));
  assert.is(validationIssueAt(missingType, ['body', 'swf', 'content', 0, 'type']), 'Field required');
  assert.is(validationIssueAt(await api.post(PATH, { start: startIn(1), parameters: null }), ['body', 'swf']), 'Field required');
  assert.match(validationIssueAt(await api.post(PATH, body({ start: startIn(1).slice(0, 19) })), ['body', 'start']), /no UTC offset/);
  assert.match(validationIssueAt(await api.post(PATH, body({ start: '2020-01-01T07:00:00Z' })), ['body', 'start']), /past/);
  assert.match(validationIssueAt(await api.post(PATH, body({ start: startIn(800) })), ['body', 'start']), /2 years/);
  validationIssueAt(await api.post(PATH, body({ parameters: [1, 2] })), ['body', 'parameters']);
  assert.match(validationIssueAt(await api.post(PATH, body({ parameters: Object.fromEntries(Array.from({ length: 50 }, (_, index) => [`${index}`.padStart(64, 'p'), 1.2345678901234567])) })), ['body', 'parameters']), /4096 bytes/);
  assert.equal((await api.get(PATH)).body, [], 'nothing refused was stored');
});

workouts('needs workouts:write to schedule and delete, workouts:read to list and read', async (context) => {
  const { api, readOnly, userId } = await athlete(context);
  const activitiesOnly = jsonClient(context.stack, (await context.stack.userWithToken(['activities:read', 'activities:write'], { userId })).token);
  const refused = await readOnly.post(PATH, body());
  assert.is(refused.status, 403);
  assert.match(refused.body.detail, /workouts:write/);
  assert.match(refused.headers.get('www-authenticate') ?? '', /insufficient_scope.*workouts:write/);
  const created = (await api.post(PATH, body())).body;
  assert.is((await readOnly.get(PATH)).status, 200);
  assert.is((await readOnly.get(`${PATH}/${created.id}`)).status, 200);
  assert.is((await readOnly.del(`${PATH}/${created.id}`)).status, 403);
  const list = await activitiesOnly.get(PATH);
  assert.is(list.status, 403);
  assert.match(list.body.detail, /workouts:read/);
  assert.is((await activitiesOnly.post(PATH, body())).status, 403);
  assert.is((await sendJson(context.stack, 'GET', PATH, 'not-a-token')).status, 401);
});

workouts('filters by application_id and dates, names the application, pages soonest first, hides other users', async (context) => {
  const { api, app } = await athlete(context);
  const later = (await app.post(PATH, body({ start: startIn(5) }))).body;
  const sooner = (await app.post(PATH, body({ start: startIn(1) }))).body;
  const personal = (await api.post(PATH, body({ start: startIn(3) }))).body;
  assert.is(sooner.application_id, context.appId);
  assert.is(sooner.application_name, 'Coach app');
  assert.equal((await api.get(PATH)).body.map((row: { id: string }) => row.id), [sooner.id, personal.id, later.id]);
  const fromApp = (await api.get(`${PATH}?application_id=${context.appId}`)).body;
  assert.equal(fromApp.map((row: { id: string }) => row.id), [sooner.id, later.id]);
  assert.ok(fromApp.every((row: { application_name: string }) => row.application_name === 'Coach app'));
  assert.equal((await api.get(`${PATH}?application_id=unknown-app`)).body, []);
  const day = (days: number) => startIn(days).slice(0, 10);
  assert.equal((await api.get(`${PATH}?start=${day(2)}&end=${day(4)}`)).body.map((row: { id: string }) => row.id), [personal.id]);
  assert.equal((await api.get(`${PATH}?limit=1&offset=1`)).body.map((row: { id: string }) => row.id), [personal.id]);
  validationIssueAt(await api.get(`${PATH}?limit=101`), ['query', 'limit']);
  validationIssueAt(await api.get(`${PATH}?start=${day(4)}&end=${day(2)}`), ['query', 'start']);
  const stranger = (await athlete(context)).api;
  assert.equal((await stranger.get(PATH)).body, []);
  assert.is((await stranger.get(`${PATH}/${personal.id}`)).status, 404);
  assert.is((await stranger.del(`${PATH}/${personal.id}`)).status, 404);
});

workouts('delivers to every connected integration: Garmin create + schedule, intervals.icu upsert, Wahoo plan + workout', async (context) => {
  const { api, userId } = await athlete(context);
  await connect(context, userId, 'wahoo');
  await connect(context, userId, 'garmin_connect');
  await connect(context, userId, 'intervals_icu');
  await connect(context, (await athlete(context)).userId, 'garmin_connect');
  const start = startIn(2);
  const created = (await api.post(PATH, body({ start }))).body;
  assert.equal(created.deliveries.map((delivery: { integration: string; status: string }) => [delivery.integration, delivery.status]),
    [['garmin_connect', 'pending'], ['intervals_icu', 'pending'], ['wahoo', 'pending']], 'one pending delivery per connection, in provider order');
  assert.equal(created.warnings, []);
  const done = await settled(api, created.id);
  assert.equal(done.deliveries.map((delivery: { integration: string; status: string }) => [delivery.integration, delivery.status]),
    [['garmin_connect', 'delivered'], ['intervals_icu', 'delivered'], ['wahoo', 'delivered']]);
  assert.ok(done.deliveries.every((delivery: Record<string, unknown>) => typeof delivery.updated_at === 'string' && !('reason' in delivery) && !('remote' in delivery)));

  const garmin = [...context.apis.garmin.workouts.values()].find((workout) => workout.workoutSourceId === created.id)!;
  assert.is(garmin.sport, 'RUNNING');
  assert.is(garmin.workoutName, 'Easy intervals');
  const schedule = [...context.apis.garmin.schedules.values()].find((entry) => context.apis.garmin.workouts.get(entry.workoutId) === garmin)!;
  assert.is(schedule.date, start.slice(0, 10));
  const event = [...context.apis.intervals.events.values()].find((candidate) => candidate.external_id === created.id)!;
  assert.equal([event.athlete, event.category, event.type, event.start_date_local], ['i4242', 'WORKOUT', 'Run', `${start.slice(0, 10)}T09:00:00`]);
  assert.match(String(event.description), /^Main Set\n\n4x\n- 10m 4:46\/km Pace\n- Recovery 10m$/);
  const plan = [...context.apis.wahoo.plans.entries()].find(([, candidate]) => candidate.external_id === created.id)!;
  const wahooWorkout = [...context.apis.wahoo.workouts.values()].find((candidate) => candidate['workout[workout_token]'] === created.id)!;
  assert.is(wahooWorkout['workout[plan_id]'], String(plan[0]));
  assert.is(wahooWorkout['workout[workout_type_id]'], '1');
  assert.is(wahooWorkout['workout[minutes]'], '80');
});

workouts('a delivery the provider refuses fails with a reason and the provider\'s words; the others still arrive', async (context) => {
  const { api, userId } = await athlete(context);
  const garminToken = await connect(context, userId, 'garmin_connect');
  context.apis.garmin.permissions.set(garminToken, ['ACTIVITY_EXPORT']);
  await connect(context, userId, 'intervals_icu');
  await connect(context, userId, 'wahoo', { knownToken: false });
  context.apis.intervals.failNext(422, { body: { status: 422, error: 'Invalid category' }, path: /events\/bulk$/ });
  const created = (await api.post(PATH, body())).body;
  const done = await settled(api, created.id);
  const byProvider = Object.fromEntries(done.deliveries.map((delivery: { integration: string }) => [delivery.integration, delivery]));
  assert.is(byProvider.garmin_connect.status, 'failed');
  assert.is(byProvider.garmin_connect.reason, 'permission_missing');
  assert.match(byProvider.garmin_connect.detail, /garmin_connect create workout: HTTP 412 .*WORKOUT_IMPORT/);
  assert.is(byProvider.intervals_icu.status, 'failed');
  assert.is(byProvider.intervals_icu.reason, 'rejected');
  assert.match(byProvider.intervals_icu.detail, /HTTP 422 .*Invalid category/);
  assert.is(byProvider.wahoo.status, 'failed');
  assert.is(byProvider.wahoo.reason, 'authorization_refused');
  assert.match(byProvider.wahoo.detail, /HTTP 401/);
});

workouts('a provider answer that never ends is cut at its limit or deadline: a 2xx fails as bad_response naming it, a 500 is retried until delivered', async (context) => {
  const { api, userId } = await athlete(context);
  await connect(context, userId, 'garmin_connect');
  await connect(context, userId, 'intervals_icu');
  await connect(context, userId, 'wahoo');
  const before = context.apis.tallies.length;
  context.apis.garmin.failNext(200, { endless: 'endless', path: /^\/workoutportal\/workout\/v2$/ });
  context.apis.intervals.failNext(200, { endless: 'trickle', path: /events\/bulk$/ });
  context.apis.wahoo.failNext(500, { endless: 'endless', path: /^\/v1\/workouts$/ });
  const created = (await api.post(PATH, body())).body;
  const done = await settled(api, created.id);
  const byProvider = Object.fromEntries(done.deliveries.map((delivery: { integration: string }) => [delivery.integration, delivery]));
  assert.equal([byProvider.garmin_connect.status, byProvider.garmin_connect.reason], ['failed', 'bad_response']);
  assert.match(byProvider.garmin_connect.detail, `garmin_connect create workout: HTTP 200: the answer passed ${WORKOUT_ANSWER_MAX_BYTES} bytes`);
  assert.equal([byProvider.intervals_icu.status, byProvider.intervals_icu.reason], ['failed', 'bad_response']);
  assert.match(byProvider.intervals_icu.detail, `HTTP 200: the answer did not end within the ${CALL_DEADLINE_MS} ms deadline`);
  assert.is(byProvider.wahoo.status, 'delivered', 'the 500 with an endless body was read as a short error and retried');
  const ours = context.apis.tallies.slice(before);
  await until('the stand-in sees every endless answer closed', () => ours.length === 3 && ours.every((tally) => tally.closed), 10_000);
});

workouts('a workout Garmin cannot hold (over 100 steps) fails there with too_many_steps and reaches intervals.icu', async (context) => {
  const { api, userId } = await athlete(context);
  await connect(context, userId, 'garmin_connect');
  await connect(context, userId, 'intervals_icu');
  const repeat = { type: 'repeat', count: 2, content: Array.from({ length: 50 }, () => step({ volume: { quantity: 'duration', value: 30 } })) };
  const long = swf({ content: [repeat, repeat] });
  const created = (await api.post(PATH, body({ swf: long }))).body;
  const done = await settled(api, created.id);
  assert.equal(done.deliveries.map((delivery: { status: string; reason?: string }) => [delivery.status, delivery.reason]), [['failed', 'too_many_steps'], ['delivered', undefined]]);
  assert.match(done.deliveries[0].detail, /at most 100 steps; this workout has 102/);
});

workouts('a 500 or 429 at the provider is retried with the runner\'s back-off until delivered, without duplicates', async (context) => {
  const { api, userId } = await athlete(context);
  await connect(context, userId, 'wahoo');
  await connect(context, userId, 'garmin_connect');
  context.apis.wahoo.failNext(500, { path: /^\/v1\/workouts$/ });
  context.apis.garmin.failNext(429, { path: /^\/training-api\/schedule\/$/, body: { errorMessage: 'quota' } });
  const created = (await api.post(PATH, body())).body;
  const done = await settled(api, created.id);
  assert.equal(done.deliveries.map((delivery: { status: string }) => delivery.status), ['delivered', 'delivered']);
  const wahooPosts = context.apis.wahoo.log.filter((call) => call.method === 'POST' && call.form?.['plan[external_id]'] === created.id);
  assert.is(wahooPosts.length, 1, 'the plan is created once; the retry reuses it');
  assert.is(context.apis.wahoo.log.filter((call) => call.path === '/v1/workouts' && call.form?.['workout[workout_token]'] === created.id).length, 2, 'the workout post was retried');
  assert.is([...context.apis.garmin.workouts.values()].filter((workout) => workout.workoutSourceId === created.id).length, 1, 'the Garmin workout is created once; only its schedule is retried');
});

workouts('Garmin at its daily quota answers 429 every time: the delivery stays pending with the reason, then fails when the runner gives up', async (context) => {
  const { api, userId } = await athlete(context);
  await connect(context, userId, 'garmin_connect');
  context.apis.garmin.dailyQuota = 0;
  try {
    const created = (await api.post(PATH, body())).body;
    const deadline = Date.now() + 20_000;
    let pending: any;
    for (;;) {
      pending = (await api.get(`${PATH}/${created.id}`)).body.deliveries[0];
      if (pending.detail) break;
      if (Date.now() > deadline) throw new Error('no retry detail recorded');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    assert.is(pending.status, 'pending');
    assert.match(pending.detail, /HTTP 429/);
    // The give-up hook, as the runner calls it after its last attempt.
    const handler = workoutDeliveryJobHandler({ store: context.stack.store, logger: createLogger({ level: 'silent', name: 'test' }), options: workoutDeliveryOptions() });
    await handler.onGiveUp!({ user_id: userId, payload: { workout_id: created.id } } as never, new Error('garmin_connect schedule workout: HTTP 429'));
    const failed = (await api.get(`${PATH}/${created.id}`)).body.deliveries[0];
    assert.equal([failed.status, failed.reason], ['failed', 'provider_unavailable']);
    assert.match(failed.detail, /gave up after repeated failures: .*429/);
  } finally {
    context.apis.garmin.dailyQuota = 200;
  }
});

workouts('only connected integrations get a delivery; Wahoo beyond 6 days ahead is delivered with a warning', async (context) => {
  const { api, userId } = await athlete(context);
  await connect(context, userId, 'garmin_connect', { status: 'action_required' });
  await connect(context, userId, 'wahoo');
  const created = (await api.post(PATH, body({ start: startIn(10) }))).body;
  assert.equal(created.deliveries.map((delivery: { integration: string }) => delivery.integration), ['wahoo']);
  assert.equal(created.warnings.length, 1);
  assert.match(created.warnings[0], /^wahoo: Wahoo shows a planned workout on ELEMNT and RIVAL devices only from today to 6 days ahead; this one is on \d{4}-\d\d-\d\d$/);
  assert.is((await settled(api, created.id)).deliveries[0].status, 'delivered');
});

workouts('DELETE removes the workout here and at Garmin and intervals.icu, and says Wahoo keeps it', async (context) => {
  const { api, userId } = await athlete(context);
  await connect(context, userId, 'garmin_connect');
  await connect(context, userId, 'intervals_icu');
  await connect(context, userId, 'wahoo');
  const created = (await api.post(PATH, body())).body;
  await settled(api, created.id);
  const garminId = [...context.apis.garmin.workouts.entries()].find(([, workout]) => workout.workoutSourceId === created.id)![0];
  const eventId = [...context.apis.intervals.events.entries()].find(([, event]) => event.external_id === created.id)![0];
  const deleted = await api.del(`${PATH}/${created.id}`);
  assert.is(deleted.status, 200);
  assert.equal(deleted.body, { id: created.id, deleted: true, warnings: ['wahoo: Wahoo documents no way to delete a planned workout; it stays there until removed in Wahoo'] });
  assert.is((await api.get(`${PATH}/${created.id}`)).status, 404);
  assert.is((await api.del(`${PATH}/${created.id}`)).status, 404);
  await until('the Garmin workout and the intervals.icu event are removed', () => !context.apis.garmin.workouts.has(garminId) && !context.apis.intervals.events.has(eventId));
  assert.ok(context.apis.garmin.log.some((call) => call.method === 'DELETE' && call.path === `/training-api/workout/v2/${garminId}`));
  assert.ok(context.apis.intervals.log.some((call) => call.method === 'DELETE' && call.path === `/api/v1/athlete/i4242/events/${eventId}`));
});

workouts('DELETE of a workout never delivered removes it here only, with no warning', async (context) => {
  const { api } = await athlete(context);
  const created = (await api.post(PATH, body())).body;
  const deleted = await api.del(`${PATH}/${created.id}`);
  assert.equal(deleted.body, { id: created.id, deleted: true, warnings: [] });
  assert.equal((await api.get(PATH)).body, []);
});

workouts('DELETE during a retried delivery removes what was created and the retry sends nothing more', async (context) => {
  const { api, userId } = await athlete(context);
  await connect(context, userId, 'garmin_connect');
  context.apis.garmin.failNext(500, { path: /^\/training-api\/schedule\/$/ });
  const created = (await api.post(PATH, body())).body;
  const deadline = Date.now() + 20_000;
  while (!(await api.get(`${PATH}/${created.id}`)).body.deliveries[0].detail) {
    if (Date.now() > deadline) throw new Error('the first attempt did not fail');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const garminId = [...context.apis.garmin.workouts.entries()].find(([, workout]) => workout.workoutSourceId === created.id)![0];
  assert.is((await api.del(`${PATH}/${created.id}`)).status, 200);
  await until('the half-delivered Garmin workout is removed', () => !context.apis.garmin.workouts.has(garminId));
  const jobDone = async () => (await context.stack.store.jobs.findOne({ key: `workout_delivery:${created.id}` }))?.status === 'done';
  const jobDeadline = Date.now() + 20_000;
  while (!(await jobDone())) {
    if (Date.now() > jobDeadline) throw new Error('the delivery job did not finish');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  assert.is([...context.apis.garmin.workouts.values()].filter((workout) => workout.workoutSourceId === created.id).length, 0);
  assert.is([...context.apis.garmin.schedules.values()].filter((schedule) => schedule.workoutId === garminId).length, 0, 'the retry scheduled nothing');
});

workouts('the intervals.icu stand-in upserts on external_id and refuses a bad category with 422', async (context) => {
  context.apis.intervals.tokens.add('icu-direct');
  const post = (events: unknown[]) => fetch(`${context.apis.baseUrls.intervals_icu}/api/v1/athlete/0/events/bulk?upsert=true`, {
    method: 'POST', headers: { authorization: 'Bearer icu-direct', 'content-type': 'application/json' }, body: JSON.stringify(events),
  });
  const event = { category: 'WORKOUT', type: 'Run', start_date_local: '2026-06-01T00:00:00', name: 'A', external_id: 'ext-1' };
  const first = (await (await post([event])).json()) as { id: number }[];
  const second = (await (await post([{ ...event, name: 'B' }])).json()) as { id: number; name: string }[];
  assert.is(second[0]!.id, first[0]!.id);
  assert.is(context.apis.intervals.events.get(first[0]!.id)!.name, 'B');
  const bad = await post([{ ...event, category: 'WORKOUTS' }]);
  assert.is(bad.status, 422);
  assert.equal(((await bad.json()) as { status: number }).status, 422);
});

workouts('documents the routes in /openapi.json with the workout scopes', async ({ stack }) => {
  const document = (await (await stack.get('/openapi.json')).json()) as { paths: Record<string, Record<string, { description?: string }>> };
  assert.equal(Object.keys(document.paths[PATH]!).sort(), ['get', 'post']);
  assert.equal(Object.keys(document.paths[`${PATH}/{workout_id}`]!).sort(), ['delete', 'get']);
  assert.match(document.paths[PATH]!.post!.description ?? '', /workouts:write/);
  assert.match(document.paths[PATH]!.get!.description ?? '', /workouts:read/);
});

workouts.run();

const unconfigured = suite<{ stack: TestStack }>('scheduled workouts without provider credentials configured');

unconfigured.before(async (context) => {
  context.stack = await startStack({ JOB_POLL_MS: '20' });
});
unconfigured.after(async (context) => {
  await context.stack.close();
});

unconfigured('a connection the engine holds no token source for fails with not_configured, never a silent pending', async ({ stack }) => {
  const { userId, token } = await stack.userWithToken(['workouts:read', 'workouts:write']);
  const now = Date.now();
  await stack.store.connections.insert({
    id: newId(), user_id: userId, provider: 'intervals_icu', external_user_id: 'i1', credentials: {}, status: 'connected',
    backfill_loaded_until: null, backfill_done: false, created_at: now, updated_at: now,
  });
  const api = jsonClient(stack, token);
  const created = (await api.post(PATH, body())).body;
  const done = await settled(api, created.id);
  assert.equal([done.deliveries[0].status, done.deliveries[0].reason], ['failed', 'not_configured']);
});

unconfigured.run();

