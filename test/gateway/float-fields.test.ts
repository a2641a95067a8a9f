/**
 * Float-typed fields are written with a decimal point (gaps.md: "`4998.0`, as the reference service's
 * serializer writes them; typed clients build float columns from them"), integer-typed ones without, on
 * the real stack: the raw body text (never JSON.parse'd first) of single GETs, writes and list pages —
 * list pages built from stored listings included, and one stored before this format. Also: the writer
 * (gateway/presenters/json-writer.ts) against JSON.stringify, NaN and Infinity, and /openapi.json typing
 * the same fields `number` and `integer` as the writer writes them.
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { startStack, type TestStack } from '../support/stack.js';
import { recordCallers, type RecordCallers } from '../support/record-callers.js';
import { activity, T0 } from '../storage/records.js';
import { floatText, jsonWriter } from '../../gateway/presenters/json-writer.js';
import { listingOf } from '../../gateway/presenters/listing.js';
import { ACTIVITY_LISTING_TAIL, ACTIVITY_LISTING_VERSION, presentActivityListing } from '../../gateway/presenters/activity.js';
import { ActivitySummary } from '../../gateway/schemas/resources.js';
import { Trace } from '../../gateway/schemas/records.js';

interface Context extends RecordCallers {
  stack: TestStack;
  wellness: string;
}

const floats = suite<Context>('float fields');
const HOUR = 3_600_000;

floats.before(async (context) => {
  context.stack = await startStack();
  Object.assign(context, await recordCallers(context.stack, 'Float app'));
  context.wellness = (await context.stack.userWithToken(['wellness:read', 'wellness:write'], { userId: context.userId })).token;
  // A ride whose every statistic and distance is whole: the case JSON.stringify writes as integers.
  await context.stack.store.activities.insert(activity('whole', context.userId, {
    distance: 4998, start: T0, end: T0 + HOUR,
    summary: { power: { mean: 200, max: 812, min: 0 }, distance: { sum: 4998 }, heart_rate: { mean: 150, max: 181 } },
    laps: [{ start: T0, end: T0 + HOUR / 2, offset: 60, blocks: { distance: { sum: 2499 }, speed: { mean: 4, max: 7.5 } } }],
  }));
});
floats.after(async (context) => {
  await context.stack.close();
});

/** The raw text of a 2xx answer, checked to be JSON with neither NaN nor Infinity in it. */
async function raw(context: Context, method: string, path: string, token: string, body?: unknown): Promise<string> {
  const response = await fetch(`${context.stack.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  assert.ok(response.status >= 200 && response.status < 300, `${method} ${path}: ${response.status} ${text}`);
  assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
  JSON.parse(text);
  assert.not.match(text, /NaN|Infinity/);
  return text;
}

function includesAll(text: string, parts: string[], what: string): void {
  for (const part of parts) assert.ok(text.includes(part), `${what}: ${part} in ${text}`);
}

floats('writes a float with a decimal point as the reference serializer does, and NaN and Infinity as null', () => {
  const cases: [number, string][] = [
    [4998, '4998.0'], [0, '0.0'], [-0, '-0.0'], [-12, '-12.0'], [0.5, '0.5'], [0.1 + 0.2, '0.30000000000000004'],
    [1e21, '1e+21'], [1e20, '100000000000000000000.0'], [5e-7, '5e-7'], [NaN, 'null'], [Infinity, 'null'], [-Infinity, 'null'],
  ];
  for (const [value, text] of cases) {
    assert.is(floatText(value), text, String(value));
    assert.is(JSON.parse(text), Number.isFinite(value) ? value : null);
  }
});

floats('the writer is JSON.stringify but for float-typed numbers: same keys, order, omissions and escapes; always valid JSON', () => {
  const Shape = z.object({
    f: z.number().nullable(), i: z.number().int(), s: z.string(), free: z.record(z.string(), z.unknown()),
    list: z.array(z.object({ f: z.number(), i: z.number().int() })), either: z.union([z.number().int(), z.number()]), blocks: z.record(z.string(), z.object({ mean: z.number() })),
  });
  const write = jsonWriter(Shape);
  const value = {
    i: 3, f: 7, s: 'é "q" \u2028 </script>', free: { n: 1, deep: { x: 2 } }, skipped: undefined, fn: () => 1,
    list: [{ f: 1, i: 2 }, { f: 1.5, i: -0, extra: 4 }], either: 5, blocks: { power: { mean: 200 }, hr: { mean: NaN } }, unknown: 9,
  };
  const text = write(value);
  assert.is(text, '{"i":3,"f":7.0,"s":"é \\"q\\" \u2028 </script>","free":{"n":1,"deep":{"x":2}},'
    + '"list":[{"f":1.0,"i":2},{"f":1.5,"i":0,"extra":4}],"either":5.0,"blocks":{"power":{"mean":200.0},"hr":{"mean":null}},"unknown":9}');
  assert.equal(JSON.parse(text), JSON.parse(JSON.stringify(value)));
  assert.is(write({ ...value, f: null, list: [], blocks: {} }), JSON.stringify({ ...value, f: null, list: [], blocks: {} }).replace('"either":5', '"either":5.0'));
  assert.is(jsonWriter(z.array(z.number()))([1, Infinity, undefined, 2.5]), '[1.0,null,null,2.5]');
  assert.is(jsonWriter(z.object({ s: z.string() }))({ s: 'x', n: 1 }), '{"s":"x","n":1}', 'a shape without floats is JSON.stringify');
});

floats('an activity: whole distance, summary and lap statistics with .0, and its traces with speed, lactate and vo2 with .0 but integer power, heart rate and rpe', async (context) => {
  const trace = await raw(context, 'POST', '/api/v1/traces/', context.token, {
    timestamp: new Date(T0 + 10 * 60_000).toISOString(), test_id: null, lactate: 2, rpe: 7, notes: null, power: 250, speed: 4, heart_rate: 150, vo2: 3000, tags: [], sport: null,
  });
  includesAll(trace, ['"lactate":2.0', '"rpe":7,', '"power":250,', '"speed":4.0', '"heart_rate":150,', '"vo2":3000.0', '"sum":2499.0', '"sum":4998.0'], 'the written trace (its lap and activity)');
  const id = (JSON.parse(trace) as { id: string }).id;
  includesAll(await raw(context, 'GET', `/api/v1/traces/${id}`, context.token), ['"lactate":2.0', '"power":250,', '"speed":4.0', '"vo2":3000.0'], 'one trace');
  includesAll(await raw(context, 'GET', '/api/v1/traces/', context.token), ['"lactate":2.0', '"power":250,', '"speed":4.0', '"vo2":3000.0'], 'the trace list');

  const single = await raw(context, 'GET', '/api/v1/activities/whole', context.token);
  const expected = [
    '"power":{"mean":200.0,"min":0.0,"max":812.0}', '"distance":{"sum":4998.0}', '"heart_rate":{"mean":150.0,"max":181.0}',
    '"distance":{"sum":2499.0},"speed":{"mean":4.0,"max":7.5}', '"distance":4998.0,"devices"',
    '"lactate":2.0', '"rpe":7,', '"power":250,', '"speed":4.0', '"heart_rate":150,', '"vo2":3000.0',
  ];
  includesAll(single, expected, 'one activity');
  includesAll(await raw(context, 'GET', '/api/v1/activities/latest', context.token), expected, 'the latest activity');
  const listExpected = expected.filter((part) => !part.includes('devices'));
  includesAll(await raw(context, 'GET', '/api/v1/activities/', context.token), listExpected, 'the first page (listings derived)');
  includesAll(await raw(context, 'GET', '/api/v1/activities/', context.token), listExpected, 'a page of stored listings');
  includesAll(await raw(context, 'GET', '/api/v1/activities/', context.appToken), listExpected, 'a page for an app token');
  const deleted = await fetch(`${context.stack.baseUrl}/api/v1/traces/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${context.token}` } });
  assert.ok(deleted.ok);
});

floats('a listing stored before floats had a decimal point comes out with one: it is derived again on its next read', async (context) => {
  const record = (await context.stack.store.activities.findOne({ id: 'whole', user_id: context.userId }))!;
  const old = listingOf(presentActivityListing(record), ACTIVITY_LISTING_TAIL, (value) => JSON.stringify(value));
  assert.ok(old.includes('"sum":4998}'), 'the old format wrote a whole float as an integer');
  await context.stack.store.activities.updateOne({ id: 'whole', user_id: context.userId }, { set: { listing: old, listing_version: 2 } });
  const page = await raw(context, 'GET', '/api/v1/activities/', context.token);
  includesAll(page, ['"distance":{"sum":4998.0}', '"power":{"mean":200.0,"min":0.0,"max":812.0}'], 'the page');
  assert.not.ok(page.includes('4998}'));
  const stored = (await context.stack.store.activities.findOne({ id: 'whole', user_id: context.userId }))!;
  assert.is(stored.listing_version, ACTIVITY_LISTING_VERSION);
  assert.ok(stored.listing!.includes('"sum":4998.0}'), 'the new listing is stored');
});

floats('dailies: a whole value written, read back and listed with .0', async (context) => {
  const written = await raw(context, 'POST', '/api/v1/dailies/body_mass', context.wellness, { date: '2024-01-02', value: 70 });
  includesAll(written, ['"value":70.0'], 'the written daily');
  const listed = await raw(context, 'GET', '/api/v1/dailies/body_mass?start=2024-01-01&end=2024-01-03&interpolate=false', context.wellness);
  includesAll(listed, ['"date":"2024-01-02","value":70.0'], 'the listed dailies');
});

floats('markers and max efforts: whole values with .0, integer durations without', async (context) => {
  const marker = await raw(context, 'POST', '/api/v1/profile/markers', context.token, {
    sport: 'cycling', marker: 'second_threshold', metric: 'power', value: 265, date: '2024-05-01', provenance: 'declared', pinned: null,
  });
  includesAll(marker, ['"value":265.0'], 'the written marker');
  includesAll(await raw(context, 'GET', '/api/v1/profile/markers', context.token), ['"value":265.0'], 'the marker list');
  const effort = await raw(context, 'POST', '/api/v1/profile/max-efforts', context.token, {
    sport: 'running', metric: 'speed', date: '2024-05-01', duration: 1200, distance: 5000, value: null, provenance: 'declared', title: null,
  });
  includesAll(effort, ['"duration":1200,', '"distance":5000.0'], 'the written max effort');
  includesAll(await raw(context, 'GET', '/api/v1/profile/max-efforts', context.token), ['"duration":1200,', '"distance":5000.0'], 'the max effort list');
});

floats('tests: float results with .0, integer ones (power, heart rates, critical power) without', async (context) => {
  const written = await raw(context, 'POST', '/api/v1/tests/', context.token, {
    sport: 'cycling', start: '2024-02-01T09:00:00Z', end: null, title: 'Ramp', tags: [],
    results: { lt1: { power: 200, speed: null, heart_rate: 140, lactate: 2, vo2: null }, vo2max: 4300, critical_power: 280, w_prime: 20, heart_rate_max: 190 },
  });
  const expected = ['"power":200,', '"heart_rate":140,', '"lactate":2.0', '"vo2max":4300.0', '"critical_power":280,', '"w_prime":20.0', '"heart_rate_max":190,'];
  includesAll(written, expected, 'the written test');
  const id = (JSON.parse(written) as { id: string }).id;
  includesAll(await raw(context, 'GET', `/api/v1/tests/${id}`, context.token), expected, 'one test');
  includesAll(await raw(context, 'GET', '/api/v1/tests/', context.token), expected, 'the test list');
});

floats('/openapi.json types as number what the writer writes as a float, and as integer what it leaves whole; an activity lists Traces', async (context) => {
  const response = await fetch(`${context.stack.baseUrl}/openapi.json`);
  const { components } = (await response.json()) as { components: { schemas: Record<string, { properties: Record<string, any> }> } };
  const trace = components.schemas.Trace!.properties;
  for (const field of ['lactate', 'speed', 'vo2']) assert.equal(trace[field].type, ['number', 'null'], field);
  for (const field of ['power', 'heart_rate', 'rpe']) assert.is(trace[field].anyOf[0].type, 'integer', field);
  assert.equal(components.schemas.ActivitySummary!.properties.traces.anyOf[0].items, { $ref: '#/components/schemas/Trace' });
  const text = jsonWriter(z.array(ActivitySummary))([{ ...presentActivityListing((await context.stack.store.activities.findOne({ id: 'whole', user_id: context.userId }))!), traces: [] }]);
  assert.ok(text.includes('"sum":4998.0'));
  assert.is(jsonWriter(Trace)({ speed: 4, power: 250 }), '{"speed":4.0,"power":250}');
});

floats.run();
