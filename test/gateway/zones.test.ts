/**
 * GET /api/v1/profile/zones on the real stack (gateway → GetZones → store): the hand-computed tables of
 * test/support/zone-tables.ts from markers declared through the API, for each system and quantity; the
 * markers valid on `date` (none dated after it; precedence among written and measured values; a test's
 * result, sub-sport included); each problem as application/problem+json; parameter validation; scope; and
 * another user's markers. Modeled values are not wired yet (engine/service/modeled-markers.ts), so every
 * zone here comes from written or measured values.
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { jsonClient, sendJson, validationIssueAt, type JsonClient, type JsonResponse } from '../support/json-api.js';
import { ZONE_TABLES, type ZoneRow, type ZoneTable } from '../support/zone-tables.js';

interface Context {
  stack: TestStack;
}

const zones = suite<Context>('zones');
const PATH = '/api/v1/profile/zones';
const READ_WRITE = ['activities:read', 'activities:write'];
const PROBLEM_KEYS = ['type', 'title', 'status', 'detail', 'code'];

/** A new user who can write markers and tests and read zones. */
async function athlete(context: Context): Promise<JsonClient> {
  return jsonClient(context.stack, (await context.stack.userWithToken(READ_WRITE)).token);
}

/** Writes a marker through the API (declared, unpinned unless `over` says otherwise). */
async function declare(user: JsonClient, marker: string, metric: string, value: number, date: string, over: Record<string, unknown> = {}): Promise<void> {
  const response = await user.post('/api/v1/profile/markers', { sport: 'cycling', marker, metric, value, date, provenance: 'declared', pinned: null, ...over });
  assert.is(response.status, 200, JSON.stringify(response.body));
}

function query(params: Record<string, string>): string {
  return `${PATH}?${new URLSearchParams(params)}`;
}

const asRows = (body: any): ZoneRow[] => body.zones.map((z: any) => [z.name, z.label, z.lower, z.upper]);

/** The sport a table's markers are declared under: speed tables are running, the others cycling. */
const sportOf = (table: ZoneTable): string => (table.quantity === 'speed' ? 'running' : 'cycling');

/** A 422 application/problem+json `{type, title, status, detail, code}` with `code`; returns its detail. */
function problem(response: JsonResponse, code: string): string {
  assert.is(response.status, 422, JSON.stringify(response.body));
  assert.match(response.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.equal(Object.keys(response.body), PROBLEM_KEYS);
  assert.is(response.body.status, 422);
  assert.is(response.body.code, code);
  assert.is(typeof response.body.title, 'string');
  assert.is(response.headers.get('threshold-algorithm'), 'zones/2');
  return response.body.detail;
}

zones.before(async (context) => {
  context.stack = await startStack();
});
zones.after(async (context) => {
  await context.stack.close();
});

zones('declared markers give the hand-computed table of each system and quantity, with the algorithm header', async (context) => {
  for (const [name, table] of Object.entries(ZONE_TABLES) as [string, ZoneTable][]) {
    const user = await athlete(context);
    const sport = sportOf(table);
    for (const [marker, value] of Object.entries(table.markers)) {
      await declare(user, marker, marker === 'heart_rate_max' ? 'heart_rate' : table.quantity, value, '2024-05-01', { sport });
    }
    const response = await user.get(query({ sport, quantity: table.quantity, zone_system: table.system, date: '2024-06-01' }));
    assert.is(response.status, 200, `${name}: ${JSON.stringify(response.body)}`);
    assert.equal(Object.keys(response.body), ['sport', 'quantity', 'zone_system', 'date', 'zones'], name);
    assert.equal({ ...response.body, zones: asRows(response.body) }, {
      sport, quantity: table.quantity, zone_system: table.system, date: '2024-06-01', zones: table.rows,
    }, name);
    for (const zone of response.body.zones) assert.equal(Object.keys(zone), ['name', 'label', 'lower', 'upper'], name);
    assert.is(response.headers.get('threshold-algorithm'), 'zones/2', name);
  }
});

zones('a marker dated after date is not used; on its date and later it is', async (context) => {
  const user = await athlete(context);
  await declare(user, 'second_threshold', 'power', 250, '2024-05-01');
  await declare(user, 'second_threshold', 'power', 300, '2024-06-10');
  const on = (date: string) => user.get(query({ sport: 'cycling', quantity: 'power', zone_system: 'seven_zone', date }));
  assert.equal(asRows((await on('2024-06-09')).body), ZONE_TABLES.sevenZonePower.rows);
  assert.is((await on('2024-06-10')).body.zones[0].upper, 165); // 0.55 × 300
  assert.match(problem(await on('2024-04-30'), 'missing_marker'), /second_threshold/);
});

zones('precedence decides among written values: a stale declared value outranks a fresh external one', async (context) => {
  const user = await athlete(context);
  await declare(user, 'second_threshold', 'power', 250, '2024-01-02'); // 151 days before 2024-06-01: stale
  await declare(user, 'second_threshold', 'power', 300, '2024-05-30', { provenance: 'external' });
  const stale = await user.get(query({ sport: 'cycling', quantity: 'power', zone_system: 'seven_zone', date: '2024-06-01' }));
  assert.equal(asRows(stale.body), ZONE_TABLES.sevenZonePower.rows);
  // With no measured or declared value at all, the external one counts.
  const onlyExternal = await athlete(context);
  await declare(onlyExternal, 'second_threshold', 'power', 300, '2024-05-30', { provenance: 'external' });
  const fromExternal = await onlyExternal.get(query({ sport: 'cycling', quantity: 'power', zone_system: 'seven_zone', date: '2024-06-01' }));
  assert.is(fromExternal.body.zones[0].upper, 165);
});

zones("a test's results are measured markers of its root sport, and on the same date beat a declared value", async (context) => {
  const user = await athlete(context);
  await declare(user, 'second_threshold', 'power', 300, '2024-05-01');
  const created = await user.post('/api/v1/tests/', {
    title: null, sport: 'cycling.road', start: '2024-05-01T09:00:00+02:00', end: null, tags: null,
    results: { second_threshold: { power: 250, speed: null, heart_rate: 172, lactate: null, vo2: null }, first_threshold: { power: null, speed: null, heart_rate: 150, lactate: null, vo2: null }, heart_rate_max: 192 },
  });
  assert.is(created.status, 200, JSON.stringify(created.body));
  const power = await user.get(query({ sport: 'cycling', quantity: 'power', zone_system: 'seven_zone', date: '2024-06-01' }));
  assert.equal(asRows(power.body), ZONE_TABLES.sevenZonePower.rows);
  // Heart-rate thresholds and heart_rate_max from the same test: the five-zone heart-rate table.
  const heartRate = await user.get(query({ sport: 'cycling', quantity: 'heart_rate', zone_system: 'five_zone', date: '2024-06-01' }));
  assert.equal(asRows(heartRate.body), ZONE_TABLES.fiveZoneHeartRate.rows);
  // Not a running marker.
  problem(await user.get(query({ sport: 'running', quantity: 'power', zone_system: 'seven_zone', date: '2024-06-01' })), 'missing_marker');
});

zones("another user's markers are never used", async (context) => {
  const other = await athlete(context);
  for (const [marker, value] of Object.entries(ZONE_TABLES.threeZonePower.markers)) await declare(other, marker, 'power', value, '2024-05-01');
  const user = await athlete(context);
  const detail = problem(await user.get(query({ sport: 'cycling', quantity: 'power', zone_system: 'three_zone', date: '2024-06-01' })), 'missing_marker');
  for (const marker of ['first_threshold', 'second_threshold', 'max_aerobic_power']) assert.ok(detail.includes(marker), detail);
});

zones('each problem is a 422 application/problem+json naming what is wrong', async (context) => {
  const user = await athlete(context);
  const get = (system: string, quantity: string) => user.get(query({ sport: 'cycling', quantity, zone_system: system, date: '2024-06-01' }));
  assert.match(problem(await get('seven_zone', 'heart_rate'), 'unsupported_quantity'), /seven_zone is defined for power, speed, not heart_rate/);
  assert.match(problem(await get('olt_i_scale', 'power'), 'unsupported_quantity'), /heart_rate/);
  assert.match(problem(await get('five_zone', 'heart_rate'), 'missing_marker'), /first_threshold and second_threshold and heart_rate_max/);
  await declare(user, 'heart_rate_max', 'heart_rate', 190, '2024-05-01');
  await declare(user, 'first_threshold', 'heart_rate', 175, '2024-05-01');
  assert.match(problem(await get('five_zone', 'heart_rate'), 'missing_marker'), /need second_threshold, which has no value/);
  await declare(user, 'second_threshold', 'heart_rate', 170, '2024-05-01');
  assert.match(problem(await get('three_zone', 'heart_rate'), 'inconsistent_markers'), /bounds must increase/);
});

zones('each parameter is validated: a 422 in the interface shape at its location', async (context) => {
  const user = await athlete(context);
  const good = { sport: 'cycling', quantity: 'power', zone_system: 'seven_zone', date: '2024-06-01' };
  const issue = async (over: Record<string, string | null>, loc: string) => {
    const params = Object.fromEntries(Object.entries({ ...good, ...over }).filter(([, value]) => value !== null)) as Record<string, string>;
    return validationIssueAt(await user.get(query(params)), ['query', loc]);
  };
  await issue({ zone_system: 'nine_zone' }, 'zone_system');
  await issue({ zone_system: null }, 'zone_system');
  await issue({ quantity: 'cadence' }, 'quantity');
  await issue({ quantity: null }, 'quantity');
  assert.match(await issue({ sport: 'cycling.road' }, 'sport'), /root sport/);
  await issue({ sport: 'not-a-sport' }, 'sport');
  await issue({ sport: null }, 'sport');
  await issue({ date: '2024-02-30' }, 'date');
  // Legacy sport names map to their root: cross_country_skiing is xc_skiing.
  await declare(user, 'second_threshold', 'power', 250, '2024-05-01', { sport: 'xc_skiing' });
  const legacy = await user.get(query({ ...good, sport: 'cross_country_skiing' }));
  assert.is(legacy.status, 200, JSON.stringify(legacy.body));
  assert.is(legacy.body.sport, 'xc_skiing');
});

zones('needs activities:read and names it; date defaults to today', async (context) => {
  const { token, userId } = await context.stack.userWithToken(['activities:write']);
  const response = await sendJson(context.stack, 'GET', query({ sport: 'cycling', quantity: 'power', zone_system: 'seven_zone' }), token);
  assert.is(response.status, 403);
  assert.match(response.headers.get('www-authenticate') ?? '', /insufficient_scope.*activities:read/);
  const reader = jsonClient(context.stack, (await context.stack.userWithToken(READ_WRITE, { userId })).token);
  await declare(reader, 'second_threshold', 'power', 250, '2024-05-01', { pinned: true });
  const today = await reader.get(query({ sport: 'cycling', quantity: 'power', zone_system: 'seven_zone' }));
  assert.is(today.status, 200, JSON.stringify(today.body));
  assert.is(today.body.date, new Date().toISOString().slice(0, 10));
  assert.equal(asRows(today.body), ZONE_TABLES.sevenZonePower.rows); // pinned: never stale
});

zones.run();
