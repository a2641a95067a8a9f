/**
 * The LactateThresholds RPC on the real engine over real gRPC: through the gateway's engine client (the
 * reply's exact keys, explicit nulls) and raw (every INVALID_ARGUMENT the proto documents).
 */
import { status } from '@grpc/grpc-js';
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { MAX_LACTATE_POINTS, type LactatePoint } from '../../engine/contract.js';
import { LACTATER_DEMO } from '../support/lactate.js';
import type { Store } from '../../storage/store.js';
import { EngineClient } from '../../gateway/engine-client.js';
import { HttpError } from '../../gateway/errors.js';
import { callUnary, openTestStore, startTestEngine, statusName, type TestEngine } from './support.js';

let store: Store;
let engine: TestEngine;
let client: EngineClient;

const DEMO = LACTATER_DEMO;

test.before(async () => {
  store = await openTestStore();
  engine = await startTestEngine(store);
  client = new EngineClient(engine.address, { token: null, deadlineMs: 10_000 });
});

test.after(async () => {
  client.close();
  await engine.close();
  await store.close();
});

test('the gateway client gets both thresholds of the demo test with exactly the contract keys', async () => {
  const reply = await client.lactateThresholds({ sport_kind: 'power', points: DEMO });
  assert.equal(Object.keys(reply).sort(), ['lt1', 'lt2']);
  for (const threshold of [reply.lt1, reply.lt2]) {
    assert.ok(threshold !== null);
    assert.equal(Object.keys(threshold).sort(), ['heart_rate', 'intensity', 'lactate', 'vo2']);
    assert.is(typeof threshold.heart_rate, 'number');
    assert.is(threshold.vo2, null);
  }
  assert.ok(Math.abs(reply.lt1!.intensity - 83.4) <= 0.5, `LT1 ${reply.lt1!.intensity}`);
  assert.ok(Math.abs(reply.lt2!.intensity - 140.1) <= 0.5, `LT2 ${reply.lt2!.intensity}`);
  assert.ok(Math.abs(reply.lt2!.lactate - 3.6) <= 0.05, `LT2 lactate ${reply.lt2!.lactate}`);
});

test('a resting point sent without intensity or heart rate counts as the resting point', async () => {
  const unset = [{ ...DEMO[0]!, intensity: null, heart_rate: null }, ...DEMO.slice(1)];
  const reply = await client.lactateThresholds({ sport_kind: 'power', points: unset });
  const demo = await client.lactateThresholds({ sport_kind: 'power', points: DEMO });
  assert.equal(reply, demo);
});

test('the gateway client gets explicit nulls when nothing can be derived', async () => {
  assert.equal(await client.lactateThresholds({ sport_kind: 'speed', points: [] }), { lt1: null, lt2: null });
  assert.equal(await client.lactateThresholds({ sport_kind: 'power', points: DEMO.slice(1) }), { lt1: null, lt2: null });
});

test('the gateway client turns an invalid request into a 400', async () => {
  try {
    await client.lactateThresholds({ sport_kind: 'power', points: [{ intensity: 100, lactate: 0, heart_rate: null, vo2: null }] });
    assert.unreachable('expected a rejection');
  } catch (error) {
    assert.instance(error, HttpError);
    assert.is((error as HttpError).status, 400);
    assert.match((error as HttpError).message, 'lactate thresholds: point 0: lactate 0 must be a number > 0');
  }
});

test('rejects every malformed request with INVALID_ARGUMENT naming the value', async () => {
  const point = (overrides: Partial<LactatePoint>): LactatePoint => ({ intensity: 100, lactate: 2, heart_rate: null, vo2: null, ...overrides });
  const cases: [object, string][] = [
    [{ sport_kind: '', points: [] }, 'sport_kind must be power or speed'],
    [{ sport_kind: 'cadence', points: [] }, "sport_kind must be power or speed, not 'cadence'"],
    [{ sport_kind: 'power', points: Array.from({ length: MAX_LACTATE_POINTS + 1 }, () => point({})) }, `at most ${MAX_LACTATE_POINTS} points, not ${MAX_LACTATE_POINTS + 1}`],
    [{ sport_kind: 'power', points: [point({}), point({ lactate: -1 })] }, 'point 1: lactate -1 must be a number > 0'],
    [{ sport_kind: 'power', points: [point({ lactate: Number.NaN })] }, 'point 0: lactate NaN must be a number > 0'],
    [{ sport_kind: 'power', points: [point({ intensity: -5 })] }, 'point 0: intensity -5 must be a number from 0 to 10000 (W)'],
    [{ sport_kind: 'power', points: [point({ intensity: 20_000 })] }, 'point 0: intensity 20000 must be a number from 0 to 10000 (W)'],
    [{ sport_kind: 'speed', points: [point({ intensity: 150 })] }, 'point 0: intensity 150 must be a number from 0 to 100 (m/s)'],
    [{ sport_kind: 'power', points: [point({ intensity: Number.POSITIVE_INFINITY })] }, 'point 0: intensity Infinity must be a number from 0 to 10000 (W)'],
    [{ sport_kind: 'power', points: [point({ heart_rate: -1 })] }, 'point 0: heart_rate -1 must be a number ≥ 0'],
    [{ sport_kind: 'power', points: [point({ vo2: Number.NaN })] }, 'point 0: vo2 NaN must be a number ≥ 0'],
  ];
  for (const [request, message] of cases) {
    const outcome = await callUnary(engine.client, 'LactateThresholds', request);
    assert.ok(!outcome.ok, `${message}: expected a failure`);
    if (outcome.ok) continue;
    assert.is(statusName(outcome.error.code), statusName(status.INVALID_ARGUMENT), outcome.error.details);
    assert.is(outcome.error.details, `lactate thresholds: ${message}`);
  }
});

test.run();
