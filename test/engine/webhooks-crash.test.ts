/**
 * "Delivery survives a SIGKILL of the process (nothing lost, duplicates only within at-least-once)": the
 * service (`threshold serve`, a child process) is killed while deliveries are in flight (the receiver holds
 * their answers), started again, and every event reaches the receiver, each user's in order; an event is
 * received twice only when its attempt was cut off by the kill.
 */
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { startProcessUntil, type RunningProcess } from '../support/processes.js';
import { tempDir } from '../support/stack.js';
import { startReceiver } from '../support/webhook-receiver.js';
import { openStore } from '../../storage/open-store.js';
import { createApplication, createUser, unionGrant } from '../../gateway/services/accounts.js';
import { newEvent } from '../../storage/events.js';

const USERS = 5;
const EVENTS_PER_USER = 60;
/** Requests answered before the receiver starts holding answers; the kill comes while they are held. */
const ANSWERED_BEFORE_KILL = 40;

async function startService(env: Record<string, string>): Promise<RunningProcess> {
  // A start-up that times out kills the service's whole process group before the test fails.
  return (await startProcessUntil('dist/cli/threshold.js', env, ['serve'], (line) => line.msg === 'gateway listening')).running;
}

test('a service killed with deliveries in flight delivers every event after a restart, in order per user', async () => {
  const dataDir = tempDir();
  const receiver = await startReceiver();
  const env = {
    DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', ENGINE_ADDRESS: '127.0.0.1:0', BASE_URL: 'http://localhost:8080', ENGINE_THREADS: '1', LOG_LEVEL: 'info',
    WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_LEASE_MS: '1000', WEBHOOK_RETRY_BASE_MS: '20', WEBHOOK_POLL_MS: '50', WEBHOOK_TIMEOUT_MS: '60000',
  };
  // The outbox, as changes leave it, written before the service starts.
  const store = await openStore({ mongodbUri: null, sqliteFile: path.join(dataDir, 'threshold.sqlite') });
  const owner = await createUser(store, { email: 'dev@example.com' });
  const app = await createApplication(store, owner.id, { name: 'Receiver' });
  await store.applications.updateOne({ id: app.id }, { set: { webhook_endpoints: [receiver.url], webhook_secret: 'whsec_crash' } });
  const written = new Map<string, string[]>();
  for (let u = 0; u < USERS; u++) {
    const user = await createUser(store, { email: `athlete${u}@example.com` });
    await unionGrant(store, user.id, app.id, ['activities:read']);
    const events = Array.from({ length: EVENTS_PER_USER }, (_, i) => newEvent(user.id, 'test_created', `t${u}-${i}`));
    await store.batch(events.map((event) => ({ collection: 'events' as const, insert: event })));
    written.set(user.id, events.map((event) => event.id));
  }
  await store.close();

  receiver.answer = (_request, index) => (index < ANSWERED_BEFORE_KILL ? 200 : 'hang');
  let service = await startService(env);
  try {
    await receiver.waitFor((all) => all.length >= ANSWERED_BEFORE_KILL + USERS, 30_000);
    const cutOff = receiver.received.slice(ANSWERED_BEFORE_KILL).map((request) => JSON.parse(request.body).id as string);
    await service.stop('SIGKILL');
    receiver.answer = () => 200;

    service = await startService(env);
    const all = [...written.values()].flat();
    const received = await receiver.waitFor((requests) => new Set(requests.map((request) => JSON.parse(request.body).id)).size >= all.length, 60_000);
    const ids = received.map((request) => JSON.parse(request.body).id as string);
    assert.equal(new Set(ids), new Set(all), 'every event, nothing lost, nothing else');
    for (const [userId, events] of written) {
      const mine = received.map((request) => JSON.parse(request.body)).filter((body) => body.user_id === userId).map((body) => body.id as string);
      assert.equal(mine.filter((id, index) => mine.indexOf(id) === index), events, `user ${userId}: in the order written`);
      for (let i = 1; i < mine.length; i++) assert.ok(events.indexOf(mine[i]!) >= events.indexOf(mine[i - 1]!), 'never an earlier event after a later one');
    }
    const twice = ids.filter((id, index) => ids.indexOf(id) !== index);
    assert.ok(twice.every((id) => cutOff.includes(id)), `duplicates only of attempts the kill cut off: ${JSON.stringify(twice)} vs ${JSON.stringify(cutOff)}`);
  } finally {
    await service.kill();
    await receiver.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
