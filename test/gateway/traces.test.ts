/**
 * Traces on the real stack (interface §4 "Traces", gaps.md "Trace"): every validation rule as a 422 in the
 * interface's shape, another user's ids as 404 everywhere (test_id included), paging across the default page
 * (101 traces), PUT clearing omitted fields, timestamp_local round trips, test_match, the lap and activity a
 * trace falls in, activities carrying their traces, filters, scopes and app metadata.
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { jsonClient, recordUser, type RecordUser } from '../support/json-api.js';
import { checkAppMetadata } from '../support/app-metadata-checks.js';
import { activity, T0 } from '../storage/records.js';
import { jsonWriter } from '../../gateway/presenters/json-writer.js';
import { presentTrace } from '../../gateway/presenters/trace.js';
import { Trace } from '../../gateway/schemas/records.js';
import { traceLinks } from '../../gateway/services/trace-links.js';
import type { Principal } from '../../gateway/auth/access-tokens.js';

interface Context {
  stack: TestStack;
  user: RecordUser;
  other: RecordUser;
}

const traces = suite<Context>('traces');
const MINUTE = 60_000;
const iso = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');

const TRACE_KEYS = [
  'id', 'timestamp', 'timestamp_local', 'test_id', 'lactate', 'rpe', 'notes', 'power', 'speed', 'heart_rate', 'vo2', 'tags', 'sport',
  'lap', 'activity', 'test', 'test_match', 'app_metadata',
];

/** A write body as clients send it: every key present, null included. */
function body(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    timestamp: '2024-02-01T10:00:00+01:00', test_id: null, lactate: null, rpe: null, notes: null, power: null, speed: null,
    heart_rate: null, vo2: null, tags: null, sport: null, ...over,
  };
}

traces.before(async (context) => {
  context.stack = await startStack();
  context.user = await recordUser(context.stack, ['activities:read', 'activities:write']);
  context.other = await recordUser(context.stack, ['activities:read', 'activities:write']);
});
traces.after(async (context) => {
  await context.stack.close();
});

traces('creates a trace with every field and answers the exact shape; the offset round-trips into timestamp_local', async ({ user }) => {
  const created = await user.personal.post('/api/v1/traces/', body({
    timestamp: '2024-03-10T08:15:30.250+05:30', lactate: 2.4, rpe: 13, notes: 'step 3', power: 250, speed: 8.25, heart_rate: 161, vo2: 3150.5,
    tags: ['lab', 'ramp'], sport: 'cycling.trainer',
  }));
  assert.is(created.status, 200);
  assert.equal(Object.keys(created.body), TRACE_KEYS);
  const { id, ...rest } = created.body;
  assert.type(id, 'string');
  assert.equal(rest, {
    timestamp: '2024-03-10T02:45:30.250Z', timestamp_local: '2024-03-10T08:15:30.250', test_id: null, lactate: 2.4, rpe: 13, notes: 'step 3',
    power: 250, speed: 8.25, heart_rate: 161, vo2: 3150.5, tags: ['lab', 'ramp'], sport: 'cycling+stationary',
    lap: null, activity: null, test: null, test_match: null, app_metadata: null,
  });
  assert.equal((await user.personal.get(`/api/v1/traces/${id}`)).body, created.body, 'read back as written');
  const minimal = await user.personal.post('/api/v1/traces/', { timestamp: '2024-03-10T23:30:00-08:00' });
  assert.is(minimal.status, 200, 'every field but timestamp may be absent');
  assert.is(minimal.body.timestamp, '2024-03-11T07:30:00Z');
  assert.is(minimal.body.timestamp_local, '2024-03-10T23:30:00');
  assert.equal(minimal.body.tags, []);
});

traces('rejects every invalid field with a 422 {detail: [{loc, msg, type}]}', async ({ user }) => {
  const cases: [Record<string, unknown>, string, string?][] = [
    [{ timestamp: undefined }, 'timestamp', 'missing'],
    [{ timestamp: '2024-02-01T10:00:00' }, 'timestamp'],
    [{ timestamp: '2024-02-30T10:00:00Z' }, 'timestamp'],
    [{ power: 250.5 }, 'power', 'int_type'],
    [{ heart_rate: 150.5 }, 'heart_rate', 'int_type'],
    [{ power: -1 }, 'power', 'greater_than_equal'],
    [{ heart_rate: -1 }, 'heart_rate', 'greater_than_equal'],
    [{ speed: -0.1 }, 'speed', 'greater_than_equal'],
    [{ vo2: -1 }, 'vo2', 'greater_than_equal'],
    [{ lactate: -0.5 }, 'lactate', 'greater_than_equal'],
    [{ power: 5001 }, 'power', 'less_than_equal'],
    [{ rpe: 2.5 }, 'rpe', 'int_type'],
    [{ rpe: 21 }, 'rpe', 'less_than_equal'],
    [{ notes: 'x'.repeat(2001) }, 'notes', 'string_too_long'],
    [{ tags: 'lab' }, 'tags'],
    [{ sport: 'Cycling!' }, 'sport'],
    [{ power: '250' }, 'power'],
  ];
  for (const [over, field, type] of cases) {
    const response = await user.personal.post('/api/v1/traces/', body(over));
    assert.is(response.status, 422, `${JSON.stringify(over)} → 422`);
    const [issue] = response.body.detail;
    assert.equal(issue.loc, ['body', field], JSON.stringify(over));
    assert.type(issue.msg, 'string');
    if (type) assert.is(issue.type, type, JSON.stringify(over));
  }
  const naive = await user.personal.post('/api/v1/traces/', body({ timestamp: '2024-02-01T10:00:00' }));
  assert.is(naive.body.detail[0].msg, 'timestamp has no UTC offset');
  for (const query of ['limit=0', 'limit=1001', 'offset=-1', 'start=2024-13-01', 'end=yesterday', 'sport=Cycling!']) {
    const response = await user.personal.get(`/api/v1/traces/?${query}`);
    assert.is(response.status, 422, query);
    assert.is(response.body.detail[0].loc[0], 'query', query);
  }
  assert.is((await user.personal.get('/api/v1/traces/?limit=1000')).status, 200, 'limit up to at least 100');
});

traces("answers 404 for another user's trace on every route, and for another user's or an unknown test_id", async ({ user, other }) => {
  const mine = (await user.personal.post('/api/v1/traces/', body())).body;
  const theirTest = (await other.personal.post('/api/v1/tests/', { sport: 'cycling', start: '2024-02-01T09:00:00Z' })).body;
  for (const response of [
    await other.personal.get(`/api/v1/traces/${mine.id}`),
    await other.personal.put(`/api/v1/traces/${mine.id}`, body()),
    await other.personal.del(`/api/v1/traces/${mine.id}`),
    await other.appA.put(`/api/v1/traces/${mine.id}/app-metadata`, { a: 1 }),
    await other.appA.del(`/api/v1/traces/${mine.id}/app-metadata`),
    await user.personal.get('/api/v1/traces/0000000000000000'),
    await user.personal.post('/api/v1/traces/', body({ test_id: theirTest.id })),
    await user.personal.post('/api/v1/traces/', body({ test_id: '0000000000000000' })),
    await user.personal.put(`/api/v1/traces/${mine.id}`, body({ test_id: theirTest.id })),
  ]) {
    assert.is(response.status, 404);
    assert.type(response.body.detail, 'string');
  }
  assert.is((await user.personal.get(`/api/v1/traces/${mine.id}`)).body.test_id, null, 'the refused PUT changed nothing');
  assert.is((await other.personal.get('/api/v1/traces/')).body.length, 0, "another user's list holds none of mine");
});

traces('pages 101 traces newest first: the default page of 100, then 1', async ({ stack }) => {
  const user = await recordUser(stack, ['activities:read', 'activities:write']);
  const written: string[] = [];
  for (let i = 0; i < 101; i++) {
    const response = await user.personal.post('/api/v1/traces/', body({ timestamp: iso(T0 + i * MINUTE), lactate: i / 10 }));
    written.push(response.body.id);
  }
  const first = await user.personal.get('/api/v1/traces/');
  const second = await user.personal.get('/api/v1/traces/?offset=100');
  assert.is(first.body.length, 100);
  assert.is(second.body.length, 1);
  const listed = [...first.body, ...second.body].map((trace: { id: string }) => trace.id);
  assert.equal(listed, [...written].reverse(), 'newest first, each trace once');
  assert.equal((await user.personal.get('/api/v1/traces/?limit=100&offset=100')).body.map((t: { id: string }) => t.id), [written[0]]);
});

traces('PUT replaces every field: omitted ones are cleared, test_id included', async ({ user }) => {
  const test = (await user.personal.post('/api/v1/tests/', { sport: 'cycling', start: '2030-01-01T09:00:00Z' })).body;
  const full = (await user.personal.post('/api/v1/traces/', body({ test_id: test.id, lactate: 1.1, rpe: 9, notes: 'n', power: 100, speed: 3, heart_rate: 120, vo2: 2000, tags: ['t'], sport: 'cycling' }))).body;
  assert.is(full.test_match, 'explicit');
  const replaced = await user.personal.put(`/api/v1/traces/${full.id}`, { timestamp: '2024-02-02T10:00:00-03:00', power: 200 });
  assert.is(replaced.status, 200);
  assert.equal(replaced.body, {
    ...full, timestamp: '2024-02-02T13:00:00Z', timestamp_local: '2024-02-02T10:00:00', test_id: null, lactate: null, rpe: null, notes: null,
    power: 200, speed: null, heart_rate: null, vo2: null, tags: [], sport: null, test: null, test_match: null,
  });
  assert.equal((await user.personal.get(`/api/v1/traces/${full.id}`)).body, replaced.body);
  assert.is((await user.personal.put(`/api/v1/traces/${full.id}`, {})).status, 422, 'timestamp is required on PUT too');
});

traces('DELETE removes a trace; a second DELETE is a 404', async ({ user }) => {
  const trace = (await user.personal.post('/api/v1/traces/', body())).body;
  assert.is((await user.personal.del(`/api/v1/traces/${trace.id}`)).status, 204);
  assert.is((await user.personal.get(`/api/v1/traces/${trace.id}`)).status, 404);
  assert.is((await user.personal.del(`/api/v1/traces/${trace.id}`)).status, 404);
});

traces('test_match: explicit when linked, window inside exactly one test, null outside or inside two', async ({ stack }) => {
  const user = await recordUser(stack, ['activities:read', 'activities:write']);
  const api = user.personal;
  const a = (await api.post('/api/v1/tests/', { sport: 'cycling', start: '2024-05-01T08:00:00+02:00', end: '2024-05-01T09:00:00+02:00' })).body;
  const b = (await api.post('/api/v1/tests/', { sport: 'running', start: '2024-05-01T08:30:00+02:00', end: '2024-05-01T10:00:00+02:00' })).body;
  const post = async (timestamp: string, testId: string | null = null) => (await api.post('/api/v1/traces/', body({ timestamp, test_id: testId }))).body;
  const inA = await post('2024-05-01T08:10:00+02:00');
  assert.is(inA.test_match, 'window');
  assert.equal(Object.keys(inA.test), ['id', 'sport', 'start', 'start_local', 'end', 'end_local', 'title', 'results', 'tags', 'created_by', 'app_metadata']);
  assert.is(inA.test.id, a.id);
  assert.is(inA.test_id, null);
  const atEnd = await post('2024-05-01T10:00:00+02:00');
  assert.equal([atEnd.test_match, atEnd.test.id], ['window', b.id], '[start, end] includes the end');
  const inBoth = await post('2024-05-01T08:45:00+02:00');
  assert.equal([inBoth.test_match, inBoth.test], [null, null], 'inside two tests: ambiguous');
  const outside = await post('2024-05-01T12:00:00+02:00');
  assert.equal([outside.test_match, outside.test], [null, null]);
  const linkedElsewhere = await post('2024-05-01T08:10:00+02:00', b.id);
  assert.equal([linkedElsewhere.test_match, linkedElsewhere.test.id], ['explicit', b.id], 'linked to another test: explicit, never window');
  const listed = (await api.get('/api/v1/traces/')).body as { id: string; test_match: string | null }[];
  assert.equal(Object.fromEntries(listed.map((trace) => [trace.id, trace.test_match])), {
    [inA.id]: 'window', [atEnd.id]: 'window', [inBoth.id]: null, [outside.id]: null, [linkedElsewhere.id]: 'explicit',
  }, 'the list resolves the same');
});

traces('resolves the lap and activity a trace falls in, and the activity carries its traces even after its listing was stored', async ({ stack }) => {
  const user = await recordUser(stack, ['activities:read', 'activities:write']);
  const ride = activity('ride-with-traces', user.userId, { start: T0, end: T0 + 60 * MINUTE, app_metadata: { [user.appAId]: { x: 1 } } });
  await stack.store.activities.insert(ride);
  const listedBefore = (await user.personal.get('/api/v1/activities/')).body;
  assert.equal(listedBefore[0].traces, [], 'no traces yet; the listing is stored now');
  assert.ok((await stack.store.activities.findOne({ id: ride.id, user_id: user.userId }))?.listing, 'listing stored');

  const inLap = (await user.appA.post('/api/v1/traces/', body({ timestamp: iso(T0 + 5 * MINUTE), lactate: 1.5 }))).body;
  assert.equal(inLap.lap, { start: iso(T0), end: iso(T0 + 10 * MINUTE), start_local: '2024-01-01T01:00:00', end_local: '2024-01-01T01:10:00', duration: 'PT10M', heart_rate: { mean: 151, max: null } });
  assert.is(inLap.activity.id, ride.id);
  assert.is(inLap.activity.traces, null, 'the activity inside a trace does not nest its traces');
  assert.equal(inLap.activity.app_metadata, { x: 1 }, "the calling app's metadata on the activity");
  const afterLap = (await user.personal.post('/api/v1/traces/', body({ timestamp: iso(T0 + 30 * MINUTE) }))).body;
  assert.equal([afterLap.activity.id, afterLap.lap], [ride.id, null], 'inside the activity, outside every lap');
  const outside = (await user.personal.post('/api/v1/traces/', body({ timestamp: iso(T0 + 61 * MINUTE) }))).body;
  assert.equal([outside.activity, outside.lap], [null, null]);

  const expectedNested = [inLap, afterLap].map((trace) => ({ ...trace, activity: null, app_metadata: null }));
  const listed = (await user.personal.get('/api/v1/activities/')).body;
  assert.equal(listed[0].traces, expectedNested, 'the stored listing shows traces written later, oldest first');
  assert.equal((await user.personal.get(`/api/v1/activities/${ride.id}`)).body.traces, expectedNested);
  assert.equal((await user.personal.get('/api/v1/activities/latest')).body.traces, expectedNested);
  assert.equal((await user.appA.get('/api/v1/activities/')).body[0].traces[0].app_metadata, null, 'no metadata written on the trace yet');

  await user.personal.del(`/api/v1/traces/${inLap.id}`);
  assert.equal((await user.personal.get('/api/v1/activities/')).body[0].traces.map((t: { id: string }) => t.id), [afterLap.id], 'a deleted trace leaves the listing');
});

traces('lists a user without traces with one lookup of their traces, by user alone, and the same bytes', async ({ stack }) => {
  const user = await stack.userWithToken(['activities:read']);
  for (let i = 0; i < 3; i++) await stack.store.activities.insert(activity(`no-traces-${i}`, user.userId, { source_index: i, start: T0 + i * 86_400_000 }));
  const before = await (await stack.get('/api/v1/activities/', user.token)).text();
  const asked: unknown[] = [];
  const { traces: collection } = stack.store;
  const findFields = collection.findFields;
  const find = collection.find;
  collection.findFields = (async (filter: unknown, ...rest: unknown[]) => {
    asked.push(filter);
    return (findFields as (...args: unknown[]) => unknown).call(collection, filter, ...rest);
  }) as typeof findFields;
  collection.find = (async (filter: unknown, ...rest: unknown[]) => {
    asked.push(filter);
    return (find as (...args: unknown[]) => unknown).call(collection, filter, ...rest);
  }) as typeof find;
  try {
    const response = await stack.get('/api/v1/activities/', user.token);
    assert.is(await response.text(), before);
  } finally {
    collection.findFields = findFields;
    collection.find = find;
  }
  assert.equal(asked, [{ user_id: user.userId }], 'one lookup by user, no span probe, no range per activity');
  assert.equal(JSON.parse(before).map((entry: { traces: unknown }) => entry.traces), [[], [], []]);
});

traces('resolves the traces of a page of 250 activities (more ranges than one query takes)', async ({ stack }) => {
  const user = await recordUser(stack, ['activities:read', 'activities:write']);
  const DAY = 86_400_000;
  for (let i = 0; i < 250; i++) await stack.store.activities.insert(activity(`many-${i}`, user.userId, { start: T0 + i * DAY, end: T0 + i * DAY + 60 * MINUTE }));
  const inside = [0, 199, 200, 249];
  for (const i of inside) await user.personal.post('/api/v1/traces/', body({ timestamp: iso(T0 + i * DAY + 30 * MINUTE), notes: `in ${i}` }));
  await user.personal.post('/api/v1/traces/', body({ timestamp: iso(T0 + 3 * DAY + 2 * 60 * MINUTE) })); // between activities
  const listed = (await user.personal.get('/api/v1/activities/?limit=1000')).body as { id: string; traces: { notes: string }[] }[];
  assert.is(listed.length, 250);
  const withTraces = listed.filter((entry) => entry.traces.length > 0);
  assert.equal(withTraces.map((entry) => [entry.id, entry.traces.map((trace) => trace.notes)]), [...inside].reverse().map((i) => [`many-${i}`, [`in ${i}`]]));
});

traces('filters by local date, sport (a parent matches its children, legacy names mapped) and tags (all must match)', async ({ stack }) => {
  const user = await recordUser(stack, ['activities:read', 'activities:write']);
  const api = user.personal;
  const post = async (over: Record<string, unknown>) => (await api.post('/api/v1/traces/', body(over))).body.id as string;
  const lateLocal = await post({ timestamp: '2024-06-01T23:30:00-05:00', sport: 'cycling.road', tags: ['a', 'b'] }); // UTC 2024-06-02
  const trainer = await post({ timestamp: '2024-06-02T10:00:00+00:00', sport: 'cycling.trainer', tags: ['a'] });
  const run = await post({ timestamp: '2024-06-03T10:00:00+00:00', sport: 'running', tags: ['b'] });
  const none = await post({ timestamp: '2024-06-04T10:00:00+00:00' });
  const ids = async (query: string) => ((await api.get(`/api/v1/traces/?${query}`)).body as { id: string }[]).map((trace) => trace.id);
  assert.equal(await ids('start=2024-06-01&end=2024-06-01'), [lateLocal], "the trace's own local date");
  assert.equal(await ids('start=2024-06-02&end=2024-06-03'), [run, trainer]);
  assert.equal(await ids('sport=cycling'), [trainer, lateLocal]);
  assert.equal(await ids('sport=cycling.trainer'), [trainer], 'legacy name mapped to cycling+stationary');
  assert.equal(await ids('sport=cycling.road&sport=running'), [run, lateLocal], 'match any');
  assert.equal(await ids('sports=running,cycling.road'), [run, lateLocal], 'the deprecated plural');
  assert.equal(await ids('sport=cycling&limit=1&offset=1'), [lateLocal], 'pages after the sport filter');
  assert.equal(await ids('tags=a&tags=b'), [lateLocal]);
  assert.equal(await ids('tags=b'), [run, lateLocal]);
  assert.equal(await ids(''), [none, run, trainer, lateLocal]);
});

traces('needs activities:read to read and activities:write to write; a 403 names the scope', async ({ stack }) => {
  const reader = await stack.userWithToken(['activities:read']);
  const api = jsonClient(stack, reader.token);
  assert.is((await api.get('/api/v1/traces/')).status, 200);
  const refused = await api.post('/api/v1/traces/', body());
  assert.is(refused.status, 403);
  assert.match(refused.body.detail, 'activities:write');
  const none = jsonClient(stack, (await stack.userWithToken(['wellness:read'])).token);
  const unread = await none.get('/api/v1/traces/');
  assert.is(unread.status, 403);
  assert.match(unread.body.detail, 'activities:read');
});

traces("keeps each app's metadata on a trace: app tokens only, 1 KB, 32 levels, each app its own", async ({ user }) => {
  const trace = (await user.personal.post('/api/v1/traces/', body())).body;
  await checkAppMetadata(user, `/api/v1/traces/${trace.id}`);
  assert.is((await user.appA.put(`/api/v1/traces/${trace.id}/app-metadata`, { kept: true })).status, 200);
  const replaced = await user.appA.put(`/api/v1/traces/${trace.id}`, body({ power: 10 }));
  assert.equal(replaced.body.app_metadata, { kept: true }, 'a PUT of the trace keeps app metadata');
});

traces('answers a page byte for byte as each trace presented on its own: the shared activity, laps and test, ties by id', async ({ stack }) => {
  const user = await recordUser(stack, ['activities:read', 'activities:write']);
  const laps = Array.from({ length: 4 }, (_, i) => ({
    start: T0 + i * 15 * MINUTE, end: T0 + (i + 1) * 15 * MINUTE, offset: 60, blocks: { power: { mean: 200 + i, max: 300.5 }, heart_rate: { mean: 150, max: null } },
  }));
  await stack.store.activities.insert(activity('shared-ride', user.userId, { start: T0, end: T0 + 60 * MINUTE, laps, app_metadata: { [user.appAId]: { x: 1.0 } } }));
  const test = (await user.personal.post('/api/v1/tests/', { sport: 'cycling', start: iso(T0), end: iso(T0 + 60 * MINUTE) })).body;
  for (let i = 0; i < 8; i++) {
    const timestamp = iso(T0 + (i === 7 ? 6 : i) * 8 * MINUTE + MINUTE); // the last shares the one before's timestamp
    await user.personal.post('/api/v1/traces/', body({ timestamp, lactate: 1 + i, power: 200 + i, test_id: i % 2 ? test.id : null }));
  }
  await user.personal.post('/api/v1/traces/', body({ timestamp: iso(T0 + 90 * MINUTE) })); // outside the activity and the test
  const records = (await stack.store.traces.find({ user_id: user.userId }))
    .sort((a, b) => b.timestamp - a.timestamp || (a.id < b.id ? -1 : 1));
  const write = jsonWriter(Trace);
  for (const applicationId of [null, user.appAId]) {
    const { token } = await stack.userWithToken(['activities:read'], { userId: user.userId, ...(applicationId && { appId: applicationId }) });
    const principal = { userId: user.userId, applicationId } as Principal;
    const links = await traceLinks(stack.store, user.userId, records);
    const each = records.map((record) => write(presentTrace(record, links(record), principal)));
    for (const [query, from, to] of [['', 0, records.length], ['?limit=3&offset=5', 5, 8]] as const) {
      const response = await stack.get(`/api/v1/traces/${query}`, token);
      const expected = `[${each.slice(from, to).join(',')}]`;
      assert.is(await response.text(), expected, `${applicationId ?? 'personal'} ${query}`);
      assert.is(response.headers.get('content-type'), 'application/json; charset=utf-8');
      assert.is(response.headers.get('content-length'), String(Buffer.byteLength(expected)));
    }
    const empty = await stack.get('/api/v1/traces/?offset=100', token);
    assert.equal([await empty.text(), empty.headers.get('content-type')], ['[]', 'application/json; charset=utf-8'], 'an empty page');
    assert.ok(each.filter((text) => text.includes('"id":"shared-ride"')).length === 8 && each[1]!.includes('"mean":201.0'), 'one activity shared, floats as floats');
  }
});

traces('the OpenAPI document declares every trace and test route', async ({ stack }) => {
  const document = (await (await stack.get('/openapi.json')).json()) as { paths: Record<string, Record<string, unknown>> };
  const expected: Record<string, string[]> = {
    '/api/v1/traces/': ['get', 'post'], '/api/v1/traces/{trace_id}': ['delete', 'get', 'put'], '/api/v1/traces/{trace_id}/app-metadata': ['delete', 'put'],
    '/api/v1/tests/': ['get', 'post'], '/api/v1/tests/{test_id}': ['delete', 'get', 'put'], '/api/v1/tests/{test_id}/app-metadata': ['delete', 'put'],
  };
  for (const [path, methods] of Object.entries(expected)) assert.equal(Object.keys(document.paths[path] ?? {}).sort(), methods, path);
});

traces.run();
