/**
 * GetTemplateWeek and GetZones on the real engine over real gRPC (every INVALID_ARGUMENT the proto
 * documents, the reply shapes through the gateway's client), and GetZones' modeled-marker hook driven by a
 * test double through the handler itself: the model enters precedence as one more candidate, and is not
 * asked when fresh measured or declared values already decide. The contract's name lists match the models'.
 */
import { status } from '@grpc/grpc-js';
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import {
  createEngineClient, TEMPLATE_WEEKDAYS, ZONE_QUANTITY_NAMES, ZONE_SYSTEM_NAMES, type EngineClient as EngineStub,
} from '../../engine/contract.js';
import type { CallContext } from '../../engine/errors.js';
import { WEEKDAYS } from '../../engine/models/template-week.js';
import { ZONE_SYSTEMS } from '../../engine/models/zones.js';
import { getZones } from '../../engine/service/zones.js';
import type { ModeledMarkers, ModeledMarkersQuery } from '../../engine/service/modeled-markers.js';
import { EngineClient } from '../../gateway/engine-client.js';
import type { MarkerRecord, Store } from '../../storage/store.js';
import { newId } from '../../storage/ids.js';
import { ZONE_TABLES } from '../support/zone-tables.js';
import { callUnary, openTestStore, startTestEngine, statusName, type TestEngine } from './support.js';

let store: Store;
let engine: TestEngine;
let client: EngineClient;
let raw: EngineStub;

test.before(async () => {
  store = await openTestStore();
  engine = await startTestEngine(store);
  client = new EngineClient(engine.address, { token: null, deadlineMs: 10_000 });
  raw = createEngineClient(engine.address);
});

test.after(async () => {
  raw.close();
  client.close();
  await engine.close();
  await store.close();
});

function marker(userId: string, over: Partial<MarkerRecord>): MarkerRecord {
  return {
    id: newId(), user_id: userId, sport: 'cycling', marker: 'second_threshold', metric: 'power', value: 250, date: '2024-05-01',
    provenance: 'declared', pinned: false, source: null, application_id: null, activity_id: null, test_id: null, created_at: Date.now(), ...over,
  };
}

const CALL: CallContext = { signal: new AbortController().signal, deadline: Date.now() + 60_000 };

/** GetZones' handler with a modeled-marker double that records what it was asked. */
function zonesWithModel(values: Awaited<ReturnType<ModeledMarkers>>) {
  const asked: ModeledMarkersQuery[] = [];
  const handler = getZones({ store, modeledMarkers: async (query) => (asked.push(query), values) });
  return { asked, call: (request: Record<string, string>) => handler(request, CALL) };
}

test("the contract's name lists are the models' lists", () => {
  assert.equal([...TEMPLATE_WEEKDAYS], [...WEEKDAYS]);
  assert.equal([...ZONE_SYSTEM_NAMES].sort(), [...ZONE_SYSTEMS].sort());
  assert.equal([...ZONE_QUANTITY_NAMES], ['power', 'speed', 'heart_rate']);
});

test('GetTemplateWeek answers every weekday and the algorithm through the gateway client', async () => {
  const week = await client.templateWeek({ user_id: 'nobody', date: '2024-06-19' });
  assert.equal(Object.keys(week).sort(), [...TEMPLATE_WEEKDAYS, 'algorithm'].sort());
  assert.equal(week.sunday, { sports: [], avg_training_duration: 'PT0S', typical_training_duration: 'PT0S' });
  assert.is(week.algorithm, 'template-week/1');
});

test('GetTemplateWeek and GetZones refuse malformed requests with INVALID_ARGUMENT', async () => {
  const zones = { user_id: 'u', sport: 'cycling', quantity: 'power', zone_system: 'seven_zone', date: '2024-06-01' };
  const cases: [string, object, RegExp][] = [
    ['GetTemplateWeek', { user_id: '', date: '2024-06-01' }, /user_id must not be empty/],
    ['GetTemplateWeek', { user_id: 'u', date: '' }, /date '' is not a date/],
    ['GetTemplateWeek', { user_id: 'u', date: '2024-02-30' }, /is not a date/],
    ['GetZones', { ...zones, user_id: '' }, /user_id must not be empty/],
    ['GetZones', { ...zones, sport: 'cycling.road' }, /root sport/],
    ['GetZones', { ...zones, sport: '' }, /root sport/],
    ['GetZones', { ...zones, quantity: 'cadence' }, /quantity must be power, speed, heart_rate/],
    ['GetZones', { ...zones, zone_system: 'nine_zone' }, /zone_system must be/],
    ['GetZones', { ...zones, date: '06/01/2024' }, /is not a date/],
  ];
  for (const [method, request, message] of cases) {
    const outcome = await callUnary(raw, method, request);
    assert.ok(!outcome.ok, `${method} ${JSON.stringify(request)} should fail`);
    assert.is(statusName(outcome.error.code), statusName(status.INVALID_ARGUMENT));
    assert.match(outcome.error.details, message);
  }
});

test('GetZones answers zones or a problem with exactly the contract keys through the gateway client', async () => {
  await store.markers.insert(marker('rpc-user', {}));
  const ok = await client.zones({ user_id: 'rpc-user', sport: 'cycling', quantity: 'power', zone_system: 'seven_zone', date: '2024-06-01' });
  assert.equal(Object.keys(ok).sort(), ['algorithm', 'problem', 'zones']);
  assert.equal(ok.zones.map((z) => [z.name, z.label, z.lower, z.upper]), ZONE_TABLES.sevenZonePower.rows);
  assert.is(ok.problem, null);
  assert.is(ok.algorithm, 'zones/2');
  const missing = await client.zones({ user_id: 'rpc-user', sport: 'cycling', quantity: 'power', zone_system: 'three_zone', date: '2024-06-01' });
  assert.equal(missing.zones, []);
  assert.equal(missing.problem, {
    code: 'missing_marker', markers: ['first_threshold', 'max_aerobic_power'],
    detail: 'zones: three_zone power zones need first_threshold and max_aerobic_power, which have no value',
  });
});

test('the modeled value fills a marker without a fresh written one, in precedence: fresh beats it, stale yields to it', async () => {
  const userId = 'model-user';
  await store.markers.insert(marker(userId, { marker: 'second_threshold', value: 280, date: '2024-05-01' })); // fresh on 2024-06-01
  await store.markers.insert(marker(userId, { marker: 'first_threshold', value: 150, date: '2023-01-01' })); // stale
  const { asked, call } = zonesWithModel({ first_threshold: 200, second_threshold: 999, max_aerobic_power: 350 });
  const reply = await call({ user_id: userId, sport: 'cycling', quantity: 'power', zone_system: 'three_zone', date: '2024-06-01' });
  // first_threshold: the model's 200 over the stale 150; second_threshold: the fresh 280 over the model's 999.
  assert.equal(reply.zones.map((z) => [z.name, z.label, z.lower, z.upper]), ZONE_TABLES.threeZonePower.rows);
  assert.equal(asked, [{ userId, sport: 'cycling', quantity: 'power', date: '2024-06-01' }]);
});

test('the model is not asked when fresh measured or declared values decide every marker the system reads', async () => {
  const userId = 'fresh-user';
  await store.markers.insert(marker(userId, { value: 250, date: '2024-05-01' }));
  await store.markers.insert(marker(userId, { value: 400, date: '2024-05-20', provenance: 'external' }));
  const { asked, call } = zonesWithModel({ second_threshold: 999 });
  const reply = await call({ user_id: userId, sport: 'cycling', quantity: 'power', zone_system: 'seven_zone', date: '2024-06-01' });
  assert.equal(reply.zones.map((z) => [z.name, z.label, z.lower, z.upper]), ZONE_TABLES.sevenZonePower.rows);
  assert.equal(asked, []);
  // A stale value only: the model is asked and wins.
  const stale = await call({ user_id: userId, sport: 'cycling', quantity: 'power', zone_system: 'seven_zone', date: '2024-12-01' });
  assert.is(stale.zones[0]!.upper, 549); // 0.55 × 999 = 549.45
  assert.is(asked.length, 1);
});

test('without a modeled value the production hook leaves missing markers missing', async () => {
  const reply = await client.zones({ user_id: 'no-markers', sport: 'running', quantity: 'speed', zone_system: 'seven_zone', date: '2024-06-01' });
  assert.is(reply.problem?.code, 'missing_marker');
});

test.run();
