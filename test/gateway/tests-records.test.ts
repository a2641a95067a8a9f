/**
 * Tests — the fitness-assessment records — on the real stack (gaps.md "Tests", "Shapes → Test"): exact
 * summary and details shapes, every validation rule as a 422, another user's ids as 404, paging across the
 * 50 cap (51 tests), PUT clearing omitted fields, `?traces=auto|linked`, overlapping activities, deletion
 * unlinking traces, events, the tags endpoint across activities, traces and tests, app metadata, and a
 * realistic lactate step test whose derived LT1/LT2 match an independent calculation.
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { recordUser, type RecordUser } from '../support/json-api.js';
import { checkAppMetadata } from '../support/app-metadata-checks.js';
import { logLogLt1, modifiedDmaxLt2, type StepPoint } from '../support/lactate-reference.js';
import { activity, T0 } from '../storage/records.js';

interface Context {
  stack: TestStack;
  user: RecordUser;
  other: RecordUser;
}

const tests = suite<Context>('test records');
const HOUR = 3_600_000;
const SUMMARY_KEYS = ['id', 'sport', 'start', 'start_local', 'end', 'end_local', 'title', 'results', 'tags', 'created_by', 'app_metadata'];
const MARKERS = ['first_threshold', 'second_threshold', 'fatmax', 'lt1', 'lt2', 'vt1', 'vt2', 'mlss'];
const SCALARS = ['vo2max', 'vo2peak', 'vlamax', 'heart_rate_max', 'critical_power', 'critical_speed', 'w_prime', 'd_prime', 'economy', 'efficiency'];
const EMPTY_RESULTS = Object.fromEntries([...MARKERS, ...SCALARS].map((key) => [key, null]));
const iso = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');

/** A write body as clients send it: every key present, null included. */
function body(over: Record<string, unknown> = {}): Record<string, unknown> {
  return { title: null, sport: 'cycling', start: '2024-04-01T09:00:00+02:00', end: null, results: null, tags: null, ...over };
}

const traceBody = (over: Record<string, unknown>) => ({
  test_id: null, lactate: null, rpe: null, notes: null, power: null, speed: null, heart_rate: null, vo2: null, tags: null, sport: null, ...over,
});

tests.before(async (context) => {
  context.stack = await startStack();
  context.user = await recordUser(context.stack, ['activities:read', 'activities:write']);
  context.other = await recordUser(context.stack, ['activities:read', 'activities:write']);
});
tests.after(async (context) => {
  await context.stack.close();
});

tests('creates a test: exact summary, end defaulting to start + 3 h with the local times kept, every results key', async ({ user }) => {
  const created = await user.personal.post('/api/v1/tests/', body({ title: 'Ramp', tags: ['lab'], results: { lt1: { power: 210, speed: null, heart_rate: 150, lactate: null, vo2: null }, critical_power: 300, w_prime: 18.5 } }));
  assert.is(created.status, 200);
  assert.equal(Object.keys(created.body), SUMMARY_KEYS);
  const { id, ...rest } = created.body;
  assert.equal(rest, {
    sport: 'cycling', start: '2024-04-01T07:00:00Z', start_local: '2024-04-01T09:00:00', end: '2024-04-01T10:00:00Z', end_local: '2024-04-01T12:00:00',
    title: 'Ramp', results: { ...EMPTY_RESULTS, lt1: { power: 210, speed: null, heart_rate: 150, lactate: null, vo2: null }, critical_power: 300, w_prime: 18.5 },
    tags: ['lab'], created_by: 'user', app_metadata: null,
  });
  assert.equal(Object.keys(created.body.results), [...MARKERS, ...SCALARS], 'every results key, in order');
  const details = await user.personal.get(`/api/v1/tests/${id}`);
  assert.equal(Object.keys(details.body), [...SUMMARY_KEYS, 'traces', 'activities']);
  assert.equal({ ...details.body, traces: undefined, activities: undefined }, { ...created.body, traces: undefined, activities: undefined });
  const byApp = await user.appA.post('/api/v1/tests/', body({ sport: 'running.trail', start: '2024-04-02T09:00:00-07:00', end: '2024-04-02T09:30:00-07:00', results: { lt2: { power: null, speed: null, heart_rate: null, lactate: null, vo2: null } } }));
  assert.is(byApp.body.created_by, user.appAId, 'created_by: the application that wrote it');
  assert.is(byApp.body.end_local, '2024-04-02T09:30:00');
  assert.is(byApp.body.results.lt2, null, 'a marker without any value is null');
});

tests('rejects every invalid field with a 422 {detail: [{loc, msg, type}]}', async ({ user }) => {
  const cases: [Record<string, unknown>, (string | number)[]][] = [
    [{ sport: undefined }, ['body', 'sport']],
    [{ sport: 'Cycling!' }, ['body', 'sport']],
    [{ start: undefined }, ['body', 'start']],
    [{ start: '2024-04-01T09:00:00' }, ['body', 'start']],
    [{ end: '2024-04-01T12:00:00' }, ['body', 'end']],
    [{ end: '2024-04-01T08:00:00+02:00' }, ['body', 'end']],
    [{ end: '2024-04-09T09:00:01+02:00' }, ['body', 'end']],
    [{ title: 'x'.repeat(201) }, ['body', 'title']],
    [{ tags: 'lab' }, ['body', 'tags']],
    [{ results: { lt1: { power: 210.5 } } }, ['body', 'results', 'lt1', 'power']],
    [{ results: { lt2: { heart_rate: 170.2 } } }, ['body', 'results', 'lt2', 'heart_rate']],
    [{ results: { mlss: { speed: 0 } } }, ['body', 'results', 'mlss', 'speed']],
    [{ results: { vt1: { lactate: -1 } } }, ['body', 'results', 'vt1', 'lactate']],
    [{ results: { heart_rate_max: 190.5 } }, ['body', 'results', 'heart_rate_max']],
    [{ results: { critical_power: 0 } }, ['body', 'results', 'critical_power']],
    [{ results: { w_prime: -2 } }, ['body', 'results', 'w_prime']],
    [{ results: { efficiency: 101 } }, ['body', 'results', 'efficiency']],
    [{ results: 'fast' }, ['body', 'results']],
  ];
  for (const [over, loc] of cases) {
    const response = await user.personal.post('/api/v1/tests/', body(over));
    assert.is(response.status, 422, JSON.stringify(over));
    assert.equal(response.body.detail[0].loc, loc, JSON.stringify(over));
    assert.type(response.body.detail[0].msg, 'string');
    assert.type(response.body.detail[0].type, 'string');
  }
  for (const query of ['limit=51', 'limit=0', 'offset=-1', 'start=2024-02-30', 'sport=Cycling!']) {
    const response = await user.personal.get(`/api/v1/tests/?${query}`);
    assert.is(response.status, 422, query);
    assert.is(response.body.detail[0].loc[0], 'query');
  }
  const test = (await user.personal.post('/api/v1/tests/', body())).body;
  assert.is((await user.personal.get(`/api/v1/tests/${test.id}?traces=all`)).status, 422);
});

tests("answers 404 for another user's test on every route", async ({ user, other }) => {
  const mine = (await user.personal.post('/api/v1/tests/', body())).body;
  for (const response of [
    await other.personal.get(`/api/v1/tests/${mine.id}`),
    await other.personal.put(`/api/v1/tests/${mine.id}`, body()),
    await other.personal.del(`/api/v1/tests/${mine.id}`),
    await other.appA.put(`/api/v1/tests/${mine.id}/app-metadata`, { a: 1 }),
    await other.appA.del(`/api/v1/tests/${mine.id}/app-metadata`),
    await user.personal.get('/api/v1/tests/0000000000000000'),
  ]) {
    assert.is(response.status, 404);
    assert.type(response.body.detail, 'string');
  }
  assert.is((await user.personal.get(`/api/v1/tests/${mine.id}`)).status, 200, 'still there');
});

tests('pages 51 tests newest first: the default page of 50, then 1; filters by local date, sport, tags and created_by', async ({ stack }) => {
  const user = await recordUser(stack, ['activities:read', 'activities:write']);
  const written: string[] = [];
  for (let i = 0; i < 51; i++) {
    const api = i % 2 === 0 ? user.personal : user.appA;
    const sport = ['cycling.road', 'cycling+stationary', 'running'][i % 3];
    written.push((await api.post('/api/v1/tests/', body({ sport, start: iso(T0 + i * 24 * HOUR), tags: i % 5 === 0 ? ['a', 'b'] : ['a'] }))).body.id);
  }
  const first = (await user.personal.get('/api/v1/tests/')).body;
  const second = (await user.personal.get('/api/v1/tests/?limit=50&offset=50')).body;
  assert.equal([first.length, second.length], [50, 1]);
  const newestFirst = [...written].reverse();
  assert.equal([...first, ...second].map((test: { id: string }) => test.id), newestFirst);
  const ids = async (query: string) => ((await user.personal.get(`/api/v1/tests/?${query}`)).body as { id: string }[]).map((test) => test.id);
  const where = (keep: (i: number) => boolean) => newestFirst.filter((id) => keep(written.indexOf(id)));
  assert.equal(await ids('start=2024-01-02&end=2024-01-03'), where((i) => i === 1 || i === 2));
  assert.equal(await ids('sport=cycling'), where((i) => i % 3 !== 2), 'a parent sport matches its children');
  assert.equal(await ids('sport=cycling.trainer'), where((i) => i % 3 === 1), 'legacy names mapped');
  assert.equal(await ids('tags=a&tags=b'), where((i) => i % 5 === 0));
  assert.equal(await ids(`created_by=${user.appAId}`), where((i) => i % 2 === 1));
  assert.equal(await ids('created_by=user'), where((i) => i % 2 === 0));
});

tests('PUT replaces every field: omitted ones are cleared, end back to start + 3 h; created_by and app metadata stay', async ({ user }) => {
  const test = (await user.appA.post('/api/v1/tests/', body({ title: 'T', end: '2024-04-01T10:00:00+02:00', tags: ['x'], results: { vo2max: 4200 } }))).body;
  await user.appA.put(`/api/v1/tests/${test.id}/app-metadata`, { kept: 1 });
  const replaced = await user.personal.put(`/api/v1/tests/${test.id}`, { sport: 'running', start: '2024-04-03T06:00:00-04:00' });
  assert.is(replaced.status, 200);
  assert.equal(replaced.body, {
    ...test, sport: 'running', start: '2024-04-03T10:00:00Z', start_local: '2024-04-03T06:00:00', end: '2024-04-03T13:00:00Z', end_local: '2024-04-03T09:00:00',
    title: null, results: EMPTY_RESULTS, tags: [], created_by: user.appAId, app_metadata: null,
  });
  assert.equal((await user.appA.get(`/api/v1/tests/${test.id}`)).body.app_metadata, { kept: 1 });
});

tests('details: traces=auto holds the window and linked traces minus those linked elsewhere; linked only the linked; activities overlapping', async ({ stack }) => {
  const user = await recordUser(stack, ['activities:read', 'activities:write']);
  const api = user.personal;
  const test = (await api.post('/api/v1/tests/', body({ start: iso(T0), end: iso(T0 + HOUR) }))).body;
  const elsewhere = (await api.post('/api/v1/tests/', body({ start: iso(T0 + 10 * HOUR) }))).body;
  const trace = async (at: number, testId: string | null) => (await api.post('/api/v1/traces/', traceBody({ timestamp: iso(at), test_id: testId }))).body;
  const inWindow = await trace(T0 + 10 * 60_000, null);
  const linkedInside = await trace(T0 + 20 * 60_000, test.id);
  const linkedOutside = await trace(T0 + 5 * HOUR, test.id);
  const insideButElsewhere = await trace(T0 + 30 * 60_000, elsewhere.id);
  await trace(T0 + 2 * HOUR, null);
  const auto = (await api.get(`/api/v1/tests/${test.id}`)).body;
  assert.equal(auto.traces.map((t: { id: string }) => t.id), [inWindow.id, linkedInside.id, linkedOutside.id], 'auto is the default, oldest first');
  assert.equal((await api.get(`/api/v1/tests/${test.id}?traces=auto`)).body.traces, auto.traces);
  assert.equal(auto.traces.map((t: { test_match: string }) => t.test_match), ['window', 'explicit', 'explicit']);
  assert.equal(auto.traces[0], (await api.get(`/api/v1/traces/${inWindow.id}`)).body, 'each trace as the trace endpoint answers it');
  assert.ok(!auto.traces.some((t: { id: string }) => t.id === insideButElsewhere.id));
  const linked = (await api.get(`/api/v1/tests/${test.id}?traces=linked`)).body;
  assert.equal(linked.traces.map((t: { id: string }) => t.id), [linkedInside.id, linkedOutside.id]);
  assert.equal(auto.activities, [], 'no activity yet');

  const before = activity('before', user.userId, { start: T0 - 2 * HOUR, end: T0 - 1 });
  const overlapsStart = activity('overlaps-start', user.userId, { start: T0 - HOUR, end: T0 + 15 * 60_000 });
  const inside = activity('inside', user.userId, { start: T0 + 30 * 60_000, end: T0 + 40 * 60_000, laps: null });
  const after = activity('after', user.userId, { start: T0 + HOUR + 1, end: T0 + 2 * HOUR });
  for (const record of [before, overlapsStart, inside, after]) await stack.store.activities.insert(record);
  const withActivities = (await api.get(`/api/v1/tests/${test.id}`)).body;
  assert.equal(withActivities.activities.map((a: { id: string }) => a.id), ['overlaps-start', 'inside']);
  assert.equal(withActivities.activities[0], (await api.get('/api/v1/activities/')).body.find((a: { id: string }) => a.id === 'overlaps-start'), 'activity summaries as the list answers them');
  assert.equal(withActivities.activities[0].traces.map((t: { id: string }) => t.id), [inWindow.id], 'with their traces');
});

tests('deleting a test unlinks its traces (they stay) and records test_created, test_updated and test_deleted events', async ({ stack }) => {
  const user = await recordUser(stack, ['activities:read', 'activities:write']);
  const test = (await user.personal.post('/api/v1/tests/', body())).body;
  await user.personal.put(`/api/v1/tests/${test.id}`, body({ title: 'renamed' }));
  const trace = (await user.personal.post('/api/v1/traces/', traceBody({ timestamp: '2030-01-01T00:00:00Z', test_id: test.id }))).body;
  assert.is((await user.personal.del(`/api/v1/tests/${test.id}`)).status, 204);
  assert.is((await user.personal.get(`/api/v1/tests/${test.id}`)).status, 404);
  assert.is((await user.personal.del(`/api/v1/tests/${test.id}`)).status, 404);
  const kept = (await user.personal.get(`/api/v1/traces/${trace.id}`)).body;
  assert.equal([kept.test_id, kept.test, kept.test_match], [null, null, null]);
  const events = await stack.store.events.find({ user_id: user.userId }, { sort: { created_at: 1 } });
  assert.equal(events.map((event) => [event.event_type, event.resource_id]), [['test_created', test.id], ['test_updated', test.id], ['test_deleted', test.id]]);
});

tests('GET /profile/tags/ lists the tags of activities, traces and tests, once each, sorted', async ({ stack }) => {
  const user = await recordUser(stack, ['activities:read', 'activities:write']);
  await stack.store.activities.insert(activity('tagged', user.userId, { tags: ['ride', 'shared'] }));
  await user.personal.post('/api/v1/traces/', traceBody({ timestamp: '2024-01-01T00:00:00Z', tags: ['lab', 'shared'] }));
  await user.personal.post('/api/v1/tests/', body({ tags: ['ramp', 'lab'] }));
  await (await recordUser(stack, ['activities:write'])).personal.post('/api/v1/tests/', body({ tags: ['not-mine'] }));
  assert.equal((await user.personal.get('/api/v1/profile/tags/')).body, ['lab', 'ramp', 'ride', 'shared']);
});

tests("keeps each app's metadata on a test: app tokens only, 1 KB, 32 levels, each app its own", async ({ user }) => {
  const test = (await user.personal.post('/api/v1/tests/', body())).body;
  await checkAppMetadata(user, `/api/v1/tests/${test.id}`);
});

tests.run();

// ---------------------------------------------------------------------------------------------------------
// The lactate step test

const steps = suite<Context>('lactate step test');

/** lactater's demo data (ANALYTICS.md §7 worked example): LT1 83.4 W, LT2 140.1 W at 3.6 mmol/L. */
steps('the independent calculation reproduces the published worked example', () => {
  const watts = [0, 50, 75, 100, 125, 150, 175, 191];
  const lactate = [0.93, 0.98, 1.23, 1.88, 2.8, 4.21, 6.66, 8.64];
  const points = watts.map((intensity, i) => ({ intensity, lactate: lactate[i]!, heart_rate: null }));
  assert.ok(Math.abs(logLogLt1(points, 0.1).intensity - 83.4) <= 0.05);
  const lt2 = modifiedDmaxLt2(points);
  assert.ok(Math.abs(lt2.intensity - 140.1) <= 0.05);
  assert.is(Math.round(lt2.lactate * 10) / 10, 3.6);
});
steps.run();

const derived = suite<Context>('lactate step test through the API');

derived.before(async (context) => {
  context.stack = await startStack();
  context.user = await recordUser(context.stack, ['activities:read', 'activities:write']);
});
derived.after(async (context) => {
  await context.stack.close();
});

derived('six linked traces (rest + 5 steps) show in the details and give LT1/LT2 as the independent calculation does', async ({ user }) => {
  const api = user.personal;
  const test = (await api.post('/api/v1/tests/', body({ sport: 'cycling.road', start: '2024-09-01T08:00:00+02:00', title: 'Step test' }))).body;
  const protocol: StepPoint[] = [
    { intensity: 0, lactate: 1.1, heart_rate: 62 },
    { intensity: 100, lactate: 1.2, heart_rate: 112 },
    { intensity: 150, lactate: 1.5, heart_rate: 128 },
    { intensity: 200, lactate: 2.3, heart_rate: 145 },
    { intensity: 250, lactate: 4.1, heart_rate: 163 },
    { intensity: 300, lactate: 7.8, heart_rate: 178 },
  ];
  const start = Date.parse(test.start);
  for (const [i, point] of protocol.entries()) {
    const written = await api.post('/api/v1/traces/', traceBody({
      timestamp: iso(start + (i + 1) * 4 * 60_000), test_id: test.id, power: point.intensity === 0 ? null : point.intensity,
      heart_rate: point.heart_rate, lactate: point.lactate,
    }));
    assert.is(written.status, 200);
  }
  const details = (await api.get(`/api/v1/tests/${test.id}?traces=linked`)).body;
  assert.equal(details.traces.map((t: { lactate: number }) => t.lactate), protocol.map((point) => point.lactate));
  const lt1 = logLogLt1(protocol, 0.1);
  const lt2 = modifiedDmaxLt2(protocol);
  const { lt1: gotLt1, lt2: gotLt2 } = details.results;
  assert.ok(Math.abs(gotLt1.power - lt1.intensity) <= 1, `LT1 ${gotLt1.power} W vs ${lt1.intensity.toFixed(1)} W`);
  assert.ok(Math.abs(gotLt2.power - lt2.intensity) <= 1, `LT2 ${gotLt2.power} W vs ${lt2.intensity.toFixed(1)} W`);
  assert.ok(Math.abs(gotLt1.heart_rate - lt1.heart_rate!) <= 1);
  assert.ok(Math.abs(gotLt2.heart_rate - lt2.heart_rate!) <= 1);
  assert.ok(Math.abs(gotLt2.lactate - lt2.lactate) <= 0.05);
  assert.ok(Number.isInteger(gotLt1.power) && Number.isInteger(gotLt2.heart_rate), 'power and heart rate whole');
  assert.equal([gotLt1.speed, gotLt1.vo2], [null, null]);

  // ANALYTICS.md §7: derived values count as measured markers dated at the test's start.
  const markers = (await api.get('/api/v1/profile/markers?marker=lt1&marker=lt2')).body as { marker: string; metric: string; value: number; provenance: string; date: string; sport: string }[];
  const rows = markers.map((row) => [row.marker, row.metric, row.value, row.provenance, row.date, row.sport]).sort();
  assert.equal(rows, [
    ['lt1', 'heart_rate', gotLt1.heart_rate, 'measured', '2024-09-01', 'cycling'],
    ['lt1', 'power', gotLt1.power, 'measured', '2024-09-01', 'cycling'],
    ['lt2', 'heart_rate', gotLt2.heart_rate, 'measured', '2024-09-01', 'cycling'],
    ['lt2', 'power', gotLt2.power, 'measured', '2024-09-01', 'cycling'],
  ].sort());

  const declared = (await api.put(`/api/v1/tests/${test.id}`, body({ sport: 'cycling.road', start: test.start, results: { lt1: { power: 180 } } }))).body;
  const kept = (await api.get(`/api/v1/tests/${declared.id}`)).body.results;
  assert.is(kept.lt1.power, 180, "the test's own lt1 wins");
  assert.ok(Math.abs(kept.lt2.power - lt2.intensity) <= 1, 'lt2 still derived');
});

derived.run();
