/**
 * /api/v1/profile/max-efforts on the real stack: the row shape with every key, the race whose speed is
 * derived, each write rule as a 422 in the interface's shape, filters and order, another user's ids (404)
 * and scopes.
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { okJson, sendJson, validationIssueAt } from '../support/json-api.js';
import { recordCallers, type RecordCallers } from '../support/record-callers.js';

interface Context extends RecordCallers {
  stack: TestStack;
}

const efforts = suite<Context>('max efforts');
const PATH = '/api/v1/profile/max-efforts';
const ROW_KEYS = ['id', 'sport', 'metric', 'duration', 'distance', 'value', 'date', 'provenance', 'title', 'source', 'application_id', 'activity_id', 'created_at'];

/** A complete write as clients send it: every key present, null included. */
function write(over: Record<string, unknown> = {}): Record<string, unknown> {
  return { sport: 'cycling', metric: 'power', date: '2024-04-14', duration: 1200, distance: null, value: 301.5, provenance: 'measured', title: null, ...over };
}

efforts.before(async (context) => {
  context.stack = await startStack();
  Object.assign(context, await recordCallers(context.stack, 'Effort app'));
});
efforts.after(async (context) => {
  await context.stack.close();
});

const listed = (context: Context, query = '', token = context.token): Promise<any[]> => okJson(context.stack, 'GET', `${PATH}${query}`, token);

const created = (context: Context, over: Record<string, unknown>, token = context.token): Promise<any> => okJson(context.stack, 'POST', PATH, token, write(over));

async function removeAll(context: Context): Promise<void> {
  for (const row of await listed(context)) assert.is((await sendJson(context.stack, 'DELETE', `${PATH}/${row.id}`, context.token)).status, 204);
}

efforts('writes a power effort and answers the row with every key, as the list does', async (context) => {
  const row = await created(context, { title: 'FTP test' });
  assert.equal(Object.keys(row), ROW_KEYS);
  assert.match(row.id, /^[0-9a-f]{16}$/);
  assert.match(row.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z$/);
  assert.equal({ ...row, id: 'x', created_at: 'x' }, {
    id: 'x', sport: 'cycling', metric: 'power', duration: 1200, distance: null, value: 301.5, date: '2024-04-14', provenance: 'measured',
    title: 'FTP test', source: null, application_id: null, activity_id: null, created_at: 'x',
  });
  assert.equal(await listed(context), [row]);
  await removeAll(context);
});

efforts('derives a race speed from distance and duration, accepts an agreeing value and records the app', async (context) => {
  const race = await created(context, { sport: 'running', metric: 'speed', duration: 2400, distance: 10_000, value: null, provenance: 'measured', title: 'Oslo 10K' }, context.appToken);
  assert.is(race.value, 10_000 / 2400);
  assert.is(race.distance, 10_000);
  assert.is(race.application_id, context.appId);
  const agreeing = await created(context, { sport: 'running', metric: 'speed', duration: 2400, distance: 10_000, value: 4.17 });
  assert.is(agreeing.value, 10_000 / 2400, 'the derived speed is stored, not the rounded one sent');
  const estimate = await created(context, { sport: 'running', metric: 'speed', duration: 600, value: 5.1, provenance: 'declared' });
  assert.is(estimate.distance, null);
  assert.is(estimate.value, 5.1);
  const runningPower = await created(context, { sport: 'running', metric: 'power', value: 330 });
  assert.is(runningPower.value, 330);
  await removeAll(context);
});

efforts('refuses every broken rule with a 422 naming it, and stores nothing', async (context) => {
  const speed = { sport: 'running', metric: 'speed', value: 4.2 };
  const cases: [Record<string, unknown>, string, RegExp][] = [
    [{ sport: 'cycling.road' }, 'sport', /root sport cycling or running/],
    [{ sport: 'swimming' }, 'sport', /root sport cycling or running/],
    [{ sport: undefined }, 'sport', /Field required/],
    [{ metric: 'heart_rate' }, 'metric', /./],
    [{ sport: 'cycling', metric: 'speed', value: 11 }, 'metric', /speed efforts are running only/],
    [{ date: '14/04/2024' }, 'date', /YYYY-MM-DD/],
    [{ date: null }, 'date', /./],
    [{ duration: 0 }, 'duration', /./],
    [{ duration: -60 }, 'duration', /./],
    [{ duration: 12.5 }, 'duration', /integer/],
    [{ duration: 'PT20M' }, 'duration', /./],
    [{ duration: undefined }, 'duration', /Field required/],
    [{ distance: 40_000 }, 'distance', /power effort takes no distance/],
    [{ value: null }, 'value', /power effort needs a value/],
    [{ value: 0 }, 'value', /./],
    [{ ...speed, value: null }, 'value', /speed effort needs a value \(m\/s\) or a distance/],
    [{ ...speed, distance: 0 }, 'distance', /./],
    [{ ...speed, duration: 2400, distance: 10_000, value: 4.5 }, 'value', /disagrees with distance ÷ duration = 4\.167/],
    [{ provenance: 'external' }, 'provenance', /measured .* or declared/],
    [{ provenance: null }, 'provenance', /./],
    [{ title: 'x'.repeat(81) }, 'title', /./],
    [{ title: 7 }, 'title', /./],
  ];
  for (const [over, field, message] of cases) {
    const response = await sendJson(context.stack, 'POST', PATH, context.token, write(over));
    assert.match(validationIssueAt(response, ['body', field]), message, JSON.stringify(over));
  }
  assert.equal(await listed(context), []);
  assert.is((await created(context, { title: 'x'.repeat(80) })).title.length, 80, 'a title of 80 characters is fine');
  await removeAll(context);
});

efforts('filters by sport, metric and an inclusive date range, newest first, and refuses a reversed range', async (context) => {
  const ids: Record<string, string> = {};
  for (const [key, over] of [
    ['rideOld', { date: '2023-08-01' }], ['rideNew', { date: '2024-05-05' }], ['rideNewer', { date: '2024-05-05', duration: 300, value: 380 }],
    ['run', { sport: 'running', metric: 'speed', value: 4.8, date: '2024-02-02' }],
  ] as const) {
    ids[key] = (await created(context, over)).id;
  }
  // Two writes may share a millisecond: pin their creation times so the tie-break on created_at shows.
  await context.stack.store.max_efforts.updateOne({ id: ids.rideNew!, user_id: context.userId }, { set: { created_at: Date.UTC(2024, 0, 1) } });
  const order = (rows: any[]) => rows.map((row) => Object.keys(ids).find((key) => ids[key] === row.id));
  assert.equal(order(await listed(context)), ['rideNewer', 'rideNew', 'run', 'rideOld'], 'by date, then the later write first');
  assert.equal(order(await listed(context, '?sport=running')), ['run']);
  assert.equal(order(await listed(context, '?metric=power&sport=cycling&sport=running')), ['rideNewer', 'rideNew', 'rideOld']);
  assert.equal(order(await listed(context, '?start=2024-02-02&end=2024-05-04')), ['run']);
  assert.equal(order(await listed(context, '?end=2023-08-01')), ['rideOld']);
  validationIssueAt(await sendJson(context.stack, 'GET', `${PATH}?sport=cycling.road`, context.token), ['query', 'sport', 0]);
  validationIssueAt(await sendJson(context.stack, 'GET', `${PATH}?metric=vo2`, context.token), ['query', 'metric', 0]);
  validationIssueAt(await sendJson(context.stack, 'GET', `${PATH}?start=2024-06-01&end=2024-05-01`, context.token), ['query', 'start']);
  await removeAll(context);
});

efforts("never shows or deletes another user's efforts: their ids are 404", async (context) => {
  const mine = await created(context, {});
  assert.equal(await listed(context, '', context.otherToken), []);
  const foreign = await sendJson(context.stack, 'DELETE', `${PATH}/${mine.id}`, context.otherToken);
  assert.is(foreign.status, 404);
  assert.equal(foreign.body, { detail: 'Max effort not found' });
  assert.is((await listed(context)).length, 1, 'still there');
  assert.is((await sendJson(context.stack, 'DELETE', `${PATH}/${mine.id}`, context.token)).status, 204);
  assert.is((await sendJson(context.stack, 'DELETE', `${PATH}/${mine.id}`, context.token)).status, 404, 'deleted once');
});

efforts('needs activities:read to list and activities:write to write or delete, and names the missing scope', async (context) => {
  const noScope = (await context.stack.userWithToken(['profile'], { userId: context.userId })).token;
  const read = await sendJson(context.stack, 'GET', PATH, noScope);
  assert.is(read.status, 403);
  assert.match(read.body.detail, /activities:read/);
  assert.is((await sendJson(context.stack, 'GET', PATH, context.readOnly)).status, 200);
  for (const [method, path] of [['POST', PATH], ['DELETE', `${PATH}/0000000000000000`]] as const) {
    const refused = await sendJson(context.stack, method, path, context.readOnly, method === 'POST' ? write() : undefined);
    assert.is(refused.status, 403, method);
    assert.match(refused.body.detail, /activities:write/);
    assert.match(refused.headers.get('www-authenticate') ?? '', /scope="activities:write"/);
  }
});

efforts.run();
