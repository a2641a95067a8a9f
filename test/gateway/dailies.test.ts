/**
 * Dailies on the real stack (interface §4 "Dailies", gaps.md "Daily"): writes, the one-entry-per-date
 * range with its estimates, deletion, every validation rule, the scope matrix (wellness and
 * reproductive_health, standalone both ways), users kept apart, and an API value surviving a later
 * provider import.
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { upsertDaily } from '../../storage/dailies.js';
import { DAILY_MEASURES, DAILY_MEASURE_NAMES } from '../../domain/daily-measures.js';
import { addDays } from '../../domain/time.js';
import type { Scope } from '../../gateway/auth/scopes.js';

interface Context {
  stack: TestStack;
}

const dailies = suite<Context>('dailies');

dailies.before(async (context) => {
  context.stack = await startStack();
});
dailies.after(async (context) => {
  await context.stack.close();
});

const ALL: Scope[] = ['wellness:read', 'wellness:write', 'reproductive_health:read', 'reproductive_health:write'];

interface Daily { date: string; value: number | null; status: string; source: string | null }
interface Issue { loc: (string | number)[]; msg: string; type: string }

function send(stack: TestStack, token: string, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${stack.baseUrl}/api/v1/dailies/${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
}

async function record(stack: TestStack, token: string, measure: string, date: string, value: number): Promise<void> {
  const response = await send(stack, token, 'POST', measure, { date, value });
  assert.is(response.status, 200, `${measure} ${date} ${value}: ${await response.clone().text()}`);
}

async function range(stack: TestStack, token: string, measure: string, query: string): Promise<Daily[]> {
  const response = await send(stack, token, 'GET', `${measure}?${query}`);
  assert.is(response.status, 200, await response.clone().text());
  return (await response.json()) as Daily[];
}

async function rejected(response: Response): Promise<Issue[]> {
  assert.is(response.status, 422);
  return ((await response.json()) as { detail: Issue[] }).detail;
}

/** [value, status, source] per date, the shape the interpolation tests compare. */
const triples = (entries: Daily[]) => entries.map((entry) => [entry.date, entry.value, entry.status, entry.source]);

dailies('records a value and answers {date, value, status, source} with source manual; a second write replaces it', async ({ stack }) => {
  const { token } = await stack.userWithToken(ALL);
  const response = await send(stack, token, 'POST', 'body_mass', { date: '2024-05-01', value: 71.4 });
  assert.is(response.status, 200);
  assert.equal(await response.json(), { date: '2024-05-01', value: 71.4, status: 'stored', source: 'manual' });
  await record(stack, token, 'body_mass', '2024-05-01', 70.9);
  assert.equal(await range(stack, token, 'body_mass', 'start=2024-05-01&end=2024-05-01'), [{ date: '2024-05-01', value: 70.9, status: 'stored', source: 'manual' }]);
});

dailies('accepts every measure at both ends of its range and refuses just outside them, naming the bound', async ({ stack }) => {
  const { token } = await stack.userWithToken(ALL);
  for (const measure of DAILY_MEASURE_NAMES) {
    const { min, max } = DAILY_MEASURES[measure];
    await record(stack, token, measure, '2024-01-01', min);
    await record(stack, token, measure, '2024-01-02', max);
    const below = await rejected(await send(stack, token, 'POST', measure, { date: '2024-01-03', value: min - 0.001 }));
    assert.equal(below.map((issue) => [issue.loc, issue.type]), [[['body', 'value'], 'greater_than_equal']], measure);
    const above = await rejected(await send(stack, token, 'POST', measure, { date: '2024-01-03', value: max + 0.001 }));
    assert.equal(above.map((issue) => [issue.loc, issue.type]), [[['body', 'value'], 'less_than_equal']], measure);
    assert.match(above[0]!.msg, String(max));
    const stored = await range(stack, token, measure, 'start=2024-01-01&end=2024-01-03&interpolate=false');
    assert.equal(stored.map((entry) => entry.value), [min, max, null], measure);
  }
});

dailies('refuses an unknown measure with 422 on every method', async ({ stack }) => {
  const { token } = await stack.userWithToken(ALL);
  for (const [method, path, body] of [['POST', 'weight', { date: '2024-01-01', value: 1 }], ['GET', 'weight?start=2024-01-01&end=2024-01-02', undefined], ['DELETE', 'weight?date=2024-01-01', undefined]] as const) {
    const issues = await rejected(await send(stack, token, method, path, body));
    assert.equal(issues.map((issue) => [issue.loc, issue.type]), [[['path', 'measure'], 'enum']], method);
  }
});

dailies('refuses a write without date or value, a value that is not a number and a date that is not a real calendar date', async ({ stack }) => {
  const { token } = await stack.userWithToken(ALL);
  const cases: [unknown, string[][]][] = [
    [{ value: 70 }, [['body', 'date']]],
    [{ date: '2024-01-01' }, [['body', 'value']]],
    [{ date: '2024-01-01', value: null }, [['body', 'value']]],
    [{ date: '2024-01-01', value: '70' }, [['body', 'value']]],
    [{ date: '2024-02-30', value: 70 }, [['body', 'date']]],
    [{ date: '2024-1-01', value: 70 }, [['body', 'date']]],
    [{ date: '2024-01-01T00:00:00Z', value: 70 }, [['body', 'date']]],
  ];
  for (const [body, locs] of cases) {
    const issues = await rejected(await send(stack, token, 'POST', 'body_mass', body));
    assert.equal(issues.map((issue) => issue.loc), locs, JSON.stringify(body));
  }
  assert.equal(await range(stack, token, 'body_mass', 'start=2024-01-01&end=2024-03-01&interpolate=false').then((entries) => entries.filter((entry) => entry.value !== null)), []);
});

dailies('requires start and end on a range, strict dates, end not before start, at most 3660 days', async ({ stack }) => {
  const { token } = await stack.userWithToken(ALL);
  const locs = async (query: string) => (await rejected(await send(stack, token, 'GET', `hrv?${query}`))).map((issue) => [issue.loc, issue.type]);
  assert.equal(await locs(''), [[['query', 'start'], 'missing'], [['query', 'end'], 'missing']]);
  assert.equal(await locs('start=2024-01-01'), [[['query', 'end'], 'missing']]);
  assert.equal(await locs('start=2024-02-30&end=2024-03-01'), [[['query', 'start'], 'value_error']]);
  assert.equal(await locs('start=2024-01-01&end=2024-01-01&interpolate=perhaps'), [[['query', 'interpolate'], 'boolean_type']]);
  assert.equal(await locs('start=2024-01-02&end=2024-01-01'), [[['query', 'end'], 'value_error']]);
  const tooLong = await rejected(await send(stack, token, 'GET', `hrv?start=2020-01-01&end=${addDays('2020-01-01', 3660)}`));
  assert.match(tooLong[0]!.msg, '3660');
  const longest = await range(stack, token, 'hrv', `start=2020-01-01&end=${addDays('2020-01-01', 3659)}`);
  assert.is(longest.length, 3660);
  assert.is(longest[3659]!.date, addDays('2020-01-01', 3659));
  assert.equal(await range(stack, token, 'hrv', 'start=2024-01-01&end=2024-01-01'), [{ date: '2024-01-01', value: null, status: 'missing', source: null }]);
});

dailies('estimates body_mass on gaps at the start, middle and end of a range from stored values inside and outside it', async ({ stack }) => {
  const { token } = await stack.userWithToken(ALL);
  await record(stack, token, 'body_mass', '2024-02-26', 80); // before the range
  await record(stack, token, 'body_mass', '2024-03-02', 75);
  await record(stack, token, 'body_mass', '2024-03-05', 78);
  await record(stack, token, 'body_mass', '2024-03-10', 70); // after the range
  // An independent calculation: value = a + (b - a) * (d - da) / (db - da); source of the nearer, a tie to the earlier.
  assert.equal(triples(await range(stack, token, 'body_mass', 'start=2024-02-29&end=2024-03-07')), [
    ['2024-02-29', 80 - 5 * (3 / 5), 'estimated', 'manual'],
    ['2024-03-01', 80 - 5 * (4 / 5), 'estimated', 'manual'],
    ['2024-03-02', 75, 'stored', 'manual'],
    ['2024-03-03', 75 + 3 * (1 / 3), 'estimated', 'manual'],
    ['2024-03-04', 75 + 3 * (2 / 3), 'estimated', 'manual'],
    ['2024-03-05', 78, 'stored', 'manual'],
    ['2024-03-06', 78 - 8 * (1 / 5), 'estimated', 'manual'],
    ['2024-03-07', 78 - 8 * (2 / 5), 'estimated', 'manual'],
  ]);
  // Beyond the last stored value the last is held; before the first, the first.
  assert.equal(triples(await range(stack, token, 'body_mass', 'start=2024-03-11&end=2024-03-12')).map((entry) => entry[1]), [70, 70]);
  assert.equal(triples(await range(stack, token, 'body_mass', 'start=2024-02-20&end=2024-02-21')).map((entry) => entry[1]), [80, 80]);
  // interpolate=false: only what is stored.
  assert.equal(triples(await range(stack, token, 'body_mass', 'start=2024-03-01&end=2024-03-03&interpolate=false')), [
    ['2024-03-01', null, 'missing', null],
    ['2024-03-02', 75, 'stored', 'manual'],
    ['2024-03-03', null, 'missing', null],
  ]);
});

dailies('never estimates hrv: gaps at the start, middle and end stay missing whatever interpolate says', async ({ stack }) => {
  const { token } = await stack.userWithToken(ALL);
  await record(stack, token, 'hrv', '2024-02-26', 80);
  await record(stack, token, 'hrv', '2024-03-02', 75);
  await record(stack, token, 'hrv', '2024-03-04', 78);
  await record(stack, token, 'hrv', '2024-03-10', 70);
  const expected = [
    ['2024-03-01', null, 'missing', null],
    ['2024-03-02', 75, 'stored', 'manual'],
    ['2024-03-03', null, 'missing', null],
    ['2024-03-04', 78, 'stored', 'manual'],
    ['2024-03-05', null, 'missing', null],
  ];
  assert.equal(triples(await range(stack, token, 'hrv', 'start=2024-03-01&end=2024-03-05')), expected);
  assert.equal(triples(await range(stack, token, 'hrv', 'start=2024-03-01&end=2024-03-05&interpolate=true')), expected);
  assert.equal(triples(await range(stack, token, 'hrv', 'start=2024-03-01&end=2024-03-05&interpolate=false')), expected);
});

dailies('deletes the value of a date, then answers 404 for that date and for a date that never had one', async ({ stack }) => {
  const { token } = await stack.userWithToken(ALL);
  await record(stack, token, 'resting_hr', '2024-06-01', 48);
  await record(stack, token, 'resting_hr', '2024-06-02', 50);
  assert.is((await send(stack, token, 'DELETE', 'resting_hr?date=2024-06-01')).status, 204);
  assert.equal(triples(await range(stack, token, 'resting_hr', 'start=2024-06-01&end=2024-06-02&interpolate=false')), [
    ['2024-06-01', null, 'missing', null],
    ['2024-06-02', 50, 'stored', 'manual'],
  ]);
  for (const query of ['date=2024-06-01', 'date=2024-06-03']) {
    const response = await send(stack, token, 'DELETE', `resting_hr?${query}`);
    assert.is(response.status, 404, query);
    assert.ok(typeof ((await response.json()) as { detail: unknown }).detail === 'string');
  }
  assert.is((await send(stack, token, 'DELETE', 'body_mass?date=2024-06-02')).status, 404, 'another measure on a stored date');
  assert.equal((await rejected(await send(stack, token, 'DELETE', 'resting_hr'))).map((issue) => issue.loc), [['query', 'date']]);
  assert.equal((await rejected(await send(stack, token, 'DELETE', 'resting_hr?date=2024-06-31'))).map((issue) => issue.loc), [['query', 'date']]);
});

dailies("never shows, estimates from or deletes another user's values", async ({ stack }) => {
  const owner = await stack.userWithToken(ALL);
  const other = await stack.userWithToken(ALL);
  await record(stack, owner.token, 'body_mass', '2024-07-01', 66);
  await record(stack, owner.token, 'menstrual_cycle_day', '2024-07-01', 12);
  for (const measure of ['body_mass', 'menstrual_cycle_day']) {
    assert.equal(triples(await range(stack, other.token, measure, 'start=2024-06-30&end=2024-07-02')).map((entry) => entry[2]), ['missing', 'missing', 'missing'], measure);
    assert.is((await send(stack, other.token, 'DELETE', `${measure}?date=2024-07-01`)).status, 404, measure);
  }
  await record(stack, other.token, 'body_mass', '2024-07-01', 90);
  assert.equal(triples(await range(stack, owner.token, 'body_mass', 'start=2024-07-01&end=2024-07-01')), [['2024-07-01', 66, 'stored', 'manual']]);
});

dailies('keeps a value written through the API when a provider import writes the same date later', async ({ stack }) => {
  const { userId, token } = await stack.userWithToken(ALL);
  await record(stack, token, 'body_mass', '2024-08-01', 64);
  // As an import calls it (a later issue): the one write function, with the provider as source.
  const imported = await upsertDaily(stack.store, { userId, measure: 'body_mass', date: '2024-08-01', value: 99, source: 'garmin_connect' });
  assert.is(imported.written, false);
  await upsertDaily(stack.store, { userId, measure: 'body_mass', date: '2024-08-03', value: 66, source: 'garmin_connect' });
  assert.equal(triples(await range(stack, token, 'body_mass', 'start=2024-08-01&end=2024-08-04')), [
    ['2024-08-01', 64, 'stored', 'manual'],
    ['2024-08-02', 65, 'estimated', 'manual'],
    ['2024-08-03', 66, 'stored', 'garmin_connect'],
    ['2024-08-04', 66, 'estimated', 'garmin_connect'],
  ]);
  // The API replaces a provider value.
  await record(stack, token, 'body_mass', '2024-08-03', 67);
  assert.equal(triples(await range(stack, token, 'body_mass', 'start=2024-08-03&end=2024-08-03')), [['2024-08-03', 67, 'stored', 'manual']]);
});

dailies('needs wellness for every measure but the cycle day and reproductive_health for the cycle day, neither implying the other', async ({ stack }) => {
  const { userId } = await stack.userWithToken([]);
  const requests = (measure: string) => ({
    read: ['GET', `${measure}?start=2024-01-01&end=2024-01-02`, undefined],
    write: ['POST', measure, { date: '2024-01-01', value: 10 }],
    delete: ['DELETE', `${measure}?date=2024-01-01`, undefined],
  }) as const;
  for (const measure of DAILY_MEASURE_NAMES) {
    const family = measure === 'menstrual_cycle_day' ? 'reproductive_health' : 'wellness';
    for (const [kind, [method, path, body]] of Object.entries(requests(measure))) {
      const needed = `${family}:${kind === 'read' ? 'read' : 'write'}` as Scope;
      // Every other scope there is, the other family's same-named one included: 403 naming the scope.
      const { token: without } = await stack.userWithToken(['activities:read', 'activities:write', ...ALL.filter((scope) => scope !== needed)], { userId });
      const refused = await send(stack, without, method, path, body);
      assert.is(refused.status, 403, `${method} ${measure} without ${needed}`);
      assert.equal(await refused.json(), { detail: `Missing required scope: ${needed}` });
      assert.is(refused.headers.get('www-authenticate'), `Bearer error="insufficient_scope", scope="${needed}"`);
      const { token: only } = await stack.userWithToken([needed], { userId });
      assert.ok([200, 204].includes((await send(stack, only, method, path, body)).status), `${method} ${measure} with ${needed} alone`);
    }
  }
});

dailies('reads an unknown measure under wellness: 422 with wellness, 403 naming wellness with reproductive_health alone', async ({ stack }) => {
  const { token } = await stack.userWithToken(['reproductive_health:read']);
  const response = await send(stack, token, 'GET', 'menstrual_cycle_dya?start=2024-01-01&end=2024-01-01');
  assert.is(response.status, 403);
  assert.equal(await response.json(), { detail: 'Missing required scope: wellness:read' });
});

dailies('documents the three routes in /openapi.json with the Daily shape and both scopes', async ({ stack }) => {
  type Operation = { security: { bearer: string[] }[]; description: string; parameters: { name: string; in: string; required: boolean }[]; responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }> };
  const document = (await (await stack.get('/openapi.json')).json()) as { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> } };
  const path = document.paths['/api/v1/dailies/{measure}']!;
  assert.equal(Object.keys(path).sort(), ['delete', 'get', 'post']);
  assert.equal(path.get!.security, [{ bearer: ['wellness:read'] }, { bearer: ['reproductive_health:read'] }]);
  assert.equal(path.post!.security, [{ bearer: ['wellness:write'] }, { bearer: ['reproductive_health:write'] }]);
  assert.match(path.get!.description, 'menstrual_cycle_day');
  assert.equal(path.get!.parameters.map((parameter) => [parameter.name, parameter.in, parameter.required]), [
    ['measure', 'path', true], ['start', 'query', true], ['end', 'query', true], ['interpolate', 'query', false],
  ]);
  assert.equal(path.get!.responses['200']!.content!['application/json']!.schema.items, { $ref: '#/components/schemas/Daily' });
  const item = document.components.schemas['Daily'] as { properties: Record<string, unknown>; required: string[] };
  assert.equal(Object.keys(item.properties).sort(), ['date', 'source', 'status', 'value']);
  assert.equal([...item.required].sort(), ['date', 'source', 'status', 'value']);
  assert.ok(path.delete!.responses['404'] && path.post!.responses['422']);
});

dailies.run();
