/**
 * /api/v1/profile/markers on the real stack: the row shape with every key, each write rule as a 422 in
 * the interface's shape, filters and order, another user's ids (404), scopes, and the rows tests measure
 * (listed, filtered, not deletable here).
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { okJson, sendJson, validationIssueAt } from '../support/json-api.js';
import { recordCallers, type RecordCallers } from '../support/record-callers.js';
import { measuredMarkerId } from '../../gateway/services/measured-markers.js';

interface Context extends RecordCallers {
  stack: TestStack;
}

const markers = suite<Context>('markers');
const PATH = '/api/v1/profile/markers';
const ROW_KEYS = ['id', 'sport', 'marker', 'metric', 'value', 'date', 'provenance', 'pinned', 'source', 'application_id', 'activity_id', 'created_at'];

/** A complete write as clients send it: every key present, null included. */
function write(over: Record<string, unknown> = {}): Record<string, unknown> {
  return { sport: 'cycling', marker: 'second_threshold', metric: 'power', value: 265, date: '2024-05-01', provenance: 'declared', pinned: null, ...over };
}

markers.before(async (context) => {
  context.stack = await startStack();
  Object.assign(context, await recordCallers(context.stack, 'Marker app'));
});
markers.after(async (context) => {
  await context.stack.close();
});

const listed = (context: Context, query = '', token = context.token): Promise<any[]> => okJson(context.stack, 'GET', `${PATH}${query}`, token);

markers('writes a declared marker and answers the row with every key, as the list does', async (context) => {
  const before = Date.now();
  const created = await sendJson(context.stack, 'POST', PATH, context.token, write({ pinned: true }));
  assert.is(created.status, 200, JSON.stringify(created.body));
  const row = created.body;
  assert.equal(Object.keys(row), ROW_KEYS);
  assert.match(row.id, /^[0-9a-f]{16}$/);
  assert.equal({ ...row, id: 'x', created_at: 'x' }, {
    id: 'x', sport: 'cycling', marker: 'second_threshold', metric: 'power', value: 265, date: '2024-05-01', provenance: 'declared',
    pinned: true, source: null, application_id: null, activity_id: null, created_at: 'x',
  });
  assert.match(row.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z$/);
  assert.ok(Date.parse(row.created_at) >= before - 1000);
  assert.equal((await listed(context)).find((listedRow) => listedRow.id === row.id), row);
  await sendJson(context.stack, 'DELETE', `${PATH}/${row.id}`, context.token);
});

markers('records the calling app, maps legacy sport names and defaults pinned to false', async (context) => {
  const created = await sendJson(context.stack, 'POST', PATH, context.appToken, write({ sport: 'cross_country_skiing', provenance: 'external', pinned: undefined }));
  assert.is(created.status, 200, JSON.stringify(created.body));
  assert.is(created.body.application_id, context.appId);
  assert.is(created.body.sport, 'xc_skiing');
  assert.is(created.body.pinned, false);
  assert.is(created.body.provenance, 'external');
  await sendJson(context.stack, 'DELETE', `${PATH}/${created.body.id}`, context.token);
});

markers('accepts each marker in the metrics it admits: w_prime in kJ under power, d_prime in m under speed', async (context) => {
  const pairs: [string, string, number][] = [
    ['heart_rate_max', 'heart_rate', 191], ['fatmax', 'vo2', 2100], ['lt1', 'speed', 3.6], ['vt2', 'heart_rate', 171],
    ['critical_power', 'power', 280], ['max_aerobic_speed', 'speed', 5.4], ['w_prime', 'power', 22.5], ['d_prime', 'speed', 185], ['vo2max', 'vo2', 4300],
  ];
  for (const [marker, metric, value] of pairs) {
    const created = await sendJson(context.stack, 'POST', PATH, context.token, write({ sport: 'running', marker, metric, value }));
    assert.is(created.status, 200, `${marker}/${metric}: ${JSON.stringify(created.body)}`);
    await sendJson(context.stack, 'DELETE', `${PATH}/${created.body.id}`, context.token);
  }
});

markers('refuses every broken rule with a 422 naming it, and stores nothing', async (context) => {
  const cases: [Record<string, unknown>, string, RegExp][] = [
    [{ sport: 'cycling.road' }, 'sport', /root sport/],
    [{ sport: 'cycling+stationary' }, 'sport', /root sport/],
    [{ sport: 'cycling.trainer' }, 'sport', /root sport/],
    [{ sport: 'Cycling!' }, 'sport', /Open Sport Taxonomy/],
    [{ sport: null }, 'sport', /./],
    [{ marker: 'ftp' }, 'marker', /./],
    [{ marker: undefined }, 'marker', /Field required/],
    [{ metric: 'lactate' }, 'metric', /./],
    [{ marker: 'heart_rate_max', metric: 'power' }, 'metric', /heart_rate_max takes metric heart_rate/],
    [{ marker: 'critical_power', metric: 'speed' }, 'metric', /critical_power takes metric power/],
    [{ marker: 'd_prime', metric: 'power' }, 'metric', /d_prime takes metric speed/],
    [{ marker: 'vo2max', metric: 'heart_rate' }, 'metric', /vo2max takes metric vo2/],
    [{ value: 0 }, 'value', /./],
    [{ value: -3 }, 'value', /./],
    [{ value: '265' }, 'value', /valid number/],
    [{ value: null }, 'value', /./],
    [{ marker: 'w_prime', value: 20_000 }, 'value', /w_prime is in kJ/],
    [{ marker: 'vo2max', metric: 'vo2', value: 58 }, 'value', /absolute, in mL\/min/],
    [{ date: '2024-02-30' }, 'date', /YYYY-MM-DD/],
    [{ date: '2024-05-01T00:00:00Z' }, 'date', /YYYY-MM-DD/],
    [{ provenance: 'measured' }, 'provenance', /measured values come only from tests/],
    [{ provenance: 'modeled' }, 'provenance', /./],
    [{ provenance: 'external', pinned: true }, 'pinned', /only with provenance declared/],
    [{ pinned: 'yes' }, 'pinned', /./],
  ];
  for (const [over, field, message] of cases) {
    const response = await sendJson(context.stack, 'POST', PATH, context.token, write(over));
    assert.match(validationIssueAt(response, ['body', field]), message, JSON.stringify(over));
  }
  assert.match(validationIssueAt(await sendJson(context.stack, 'POST', PATH, context.token, '{"sport":'), ['body']), /JSON/);
  assert.equal(await listed(context), []);
});

markers('filters by root sport, marker and an inclusive date range, newest first, and refuses a sub-sport or reversed range', async (context) => {
  const ids: Record<string, string> = {};
  for (const [key, over] of [
    ['rideOld', { date: '2024-01-10' }], ['rideNew', { date: '2024-06-01' }], ['rideNewer', { date: '2024-06-01', marker: 'lt2' }],
    ['run', { sport: 'running', marker: 'lt2', metric: 'speed', value: 4.3, date: '2024-03-03' }],
  ] as const) {
    ids[key] = (await sendJson(context.stack, 'POST', PATH, context.token, write(over))).body.id;
  }
  // Two writes may share a millisecond: pin their creation times so the tie-break on created_at shows.
  await context.stack.store.markers.updateOne({ id: ids.rideNew!, user_id: context.userId }, { set: { created_at: Date.UTC(2024, 0, 1) } });
  const order = (rows: any[]) => rows.map((row) => Object.keys(ids).find((key) => ids[key] === row.id));
  assert.equal(order(await listed(context)), ['rideNewer', 'rideNew', 'run', 'rideOld'], 'by date, then the later write first');
  assert.equal(order(await listed(context, '?sport=running')), ['run']);
  assert.equal(order(await listed(context, '?sport=running&sport=cycling&marker=lt2')), ['rideNewer', 'run']);
  assert.equal(order(await listed(context, '?start=2024-01-10&end=2024-03-03')), ['run', 'rideOld']);
  assert.equal(order(await listed(context, '?start=2024-06-02')), []);
  validationIssueAt(await sendJson(context.stack, 'GET', `${PATH}?sport=cycling.road`, context.token), ['query', 'sport', 0]);
  validationIssueAt(await sendJson(context.stack, 'GET', `${PATH}?marker=ftp`, context.token), ['query', 'marker', 0]);
  validationIssueAt(await sendJson(context.stack, 'GET', `${PATH}?start=2024-02-01&end=2024-01-01`, context.token), ['query', 'start']);
  validationIssueAt(await sendJson(context.stack, 'GET', `${PATH}?end=yesterday`, context.token), ['query', 'end']);
  for (const id of Object.values(ids)) assert.is((await sendJson(context.stack, 'DELETE', `${PATH}/${id}`, context.token)).status, 204);
});

markers("never shows or deletes another user's markers: their ids are 404", async (context) => {
  const mine = (await sendJson(context.stack, 'POST', PATH, context.token, write())).body;
  assert.equal(await listed(context, '', context.otherToken), []);
  const foreign = await sendJson(context.stack, 'DELETE', `${PATH}/${mine.id}`, context.otherToken);
  assert.is(foreign.status, 404);
  assert.equal(foreign.body, { detail: 'Marker not found' });
  assert.is((await listed(context)).length, 1, 'still there');
  assert.is((await sendJson(context.stack, 'DELETE', `${PATH}/${mine.id}`, context.token)).status, 204);
  assert.is((await sendJson(context.stack, 'DELETE', `${PATH}/${mine.id}`, context.token)).status, 404, 'deleted once');
  assert.is((await sendJson(context.stack, 'DELETE', `${PATH}/0000000000000000`, context.token)).status, 404);
});

markers('needs activities:read to list and activities:write to write or delete, and names the missing scope', async (context) => {
  const noScope = (await context.stack.userWithToken(['openid'], { userId: context.userId })).token;
  const read = await sendJson(context.stack, 'GET', PATH, noScope);
  assert.is(read.status, 403);
  assert.match(read.body.detail, /activities:read/);
  assert.match(read.headers.get('www-authenticate') ?? '', /insufficient_scope.*activities:read/);
  assert.is((await sendJson(context.stack, 'GET', PATH, context.readOnly)).status, 200);
  for (const [method, path] of [['POST', PATH], ['DELETE', `${PATH}/0000000000000000`]] as const) {
    const refused = await sendJson(context.stack, method, path, context.readOnly, method === 'POST' ? write() : undefined);
    assert.is(refused.status, 403, method);
    assert.match(refused.body.detail, /activities:write/);
  }
  assert.is((await fetch(`${context.stack.baseUrl}${PATH}`)).status, 401);
});

markers("lists a test's results as measured rows, filtered alike, deletable only through the test", async (context) => {
  const { store } = context.stack;
  const start = Date.UTC(2024, 4, 20, 22, 0);
  await store.tests.insert({
    id: 'lab-test-1', user_id: context.userId, sport: 'cycling.road', start, start_offset: 180, local_date: '2024-05-21', end: start + 3_600_000, end_offset: 180,
    title: 'Lab', tags: [], created_by: context.appId, app_metadata: {}, created_at: start, updated_at: start,
    results: { lt2: { power: 281, speed: null, heart_rate: 169, lactate: 4.0, vo2: null }, heart_rate_max: 193, vo2peak: 4400 },
  });
  const declared = (await sendJson(context.stack, 'POST', PATH, context.token, write({ marker: 'lt2', date: '2024-05-21', value: 275 }))).body;
  const rows = await listed(context, '?marker=lt2&marker=heart_rate_max');
  const lt2Power = measuredMarkerId('lab-test-1', 'lt2', 'power');
  assert.equal(rows.map((row) => [row.id, row.provenance, row.value]), [
    [declared.id, 'declared', 275],
    ...[[measuredMarkerId('lab-test-1', 'heart_rate_max', 'heart_rate'), 193], [lt2Power, 281], [measuredMarkerId('lab-test-1', 'lt2', 'heart_rate'), 169]]
      .sort((a, b) => (a[0]! < b[0]! ? -1 : 1)).map(([id, value]) => [id, 'measured', value]),
  ], 'the later write first on the same date; measured rows by id');
  assert.equal(rows.find((row) => row.id === lt2Power), {
    id: lt2Power, sport: 'cycling', marker: 'lt2', metric: 'power', value: 281, date: '2024-05-21', provenance: 'measured',
    pinned: false, source: null, application_id: context.appId, activity_id: null, created_at: '2024-05-20T22:00:00Z',
  });
  assert.equal(await listed(context, '?sport=running'), []);
  assert.is((await listed(context, '?end=2024-05-20')).length, 0, "the test's local date is 2024-05-21");
  const refused = await sendJson(context.stack, 'DELETE', `${PATH}/${lt2Power}`, context.token);
  assert.is(refused.status, 409);
  assert.match(refused.body.detail, /measured by test lab-test-1/);
  assert.is((await sendJson(context.stack, 'DELETE', `${PATH}/${lt2Power}`, context.otherToken)).status, 404, "another user's measured id is unknown");
  await store.tests.deleteMany({ id: 'lab-test-1', user_id: context.userId });
  assert.equal((await listed(context)).map((row) => row.id), [declared.id], 'a deleted test takes its markers along');
  assert.is((await sendJson(context.stack, 'DELETE', `${PATH}/${lt2Power}`, context.token)).status, 404);
  await sendJson(context.stack, 'DELETE', `${PATH}/${declared.id}`, context.token);
});

markers.run();
