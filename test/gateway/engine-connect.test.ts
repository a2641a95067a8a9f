/**
 * The gateway's engine channel connects at start, not at the first request (issue 27, item 5): the
 * engine client's connect() against a real engine, and against an address where none listens.
 */
import * as grpc from '@grpc/grpc-js';
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import type { Store } from '../../storage/store.js';
import { EngineClient } from '../../gateway/engine-client.js';
import { freePort } from '../support/free-port.js';
import { openTestStore, startTestEngine, type TestEngine } from '../engine/support.js';

let store: Store;
let engine: TestEngine;

test.before(async () => {
  store = await openTestStore();
  engine = await startTestEngine(store);
});

test.after(async () => {
  await engine.close();
  await store.close();
});

test('connects to the engine before any call: the channel is ready once connect() resolves true', async () => {
  const client = new EngineClient(engine.address, { token: null, deadlineMs: 10_000 });
  try {
    const channel = (client as unknown as { engine: grpc.Client }).engine.getChannel();
    assert.is(channel.getConnectivityState(false), grpc.connectivityState.IDLE, 'a new channel has not connected');
    assert.is(await client.connect(), true);
    assert.is(channel.getConnectivityState(false), grpc.connectivityState.READY);
  } finally {
    client.close();
  }
});

test('reports false within its deadline when no engine listens', async () => {
  const client = new EngineClient(`127.0.0.1:${await freePort()}`, { token: null, deadlineMs: 10_000 });
  try {
    assert.is(await client.connect(200), false);
  } finally {
    client.close();
  }
});

test.run();
