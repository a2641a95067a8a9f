/**
 * The list pages each gateway process keeps in memory (gateway/services/listing-page-cache.ts) under
 * `threshold serve` with two gateway processes, while another process writes to the same SQLite file: after
 * every write — an activity's edit, its laps, a new activity, a deletion, app metadata through the API (one
 * gateway), a trace — every answer, whichever process gives it, is byte for byte the page built afresh from
 * the store, never a page kept from before the write; after the user's deletion, no page at all.
 */
import fs from 'node:fs';
import path from 'node:path';
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { startProcess } from '../support/processes.js';
import { freePort } from '../support/free-port.js';
import { tempDir } from '../support/stack.js';
import { activity, T0 } from '../storage/records.js';
import { openStore } from '../../storage/open-store.js';
import { beginUserDeletion } from '../../storage/user-deletion.js';
import type { Store } from '../../storage/store.js';
import { createApplication, createUser, unionGrant } from '../../gateway/services/accounts.js';
import { SigningKeys } from '../../gateway/auth/signing-keys.js';
import { mintAccessToken, type Principal } from '../../gateway/auth/access-tokens.js';
import { presentActivitySummary } from '../../gateway/presenters/activity.js';
import { jsonWriter } from '../../gateway/presenters/json-writer.js';
import { ActivitySummary } from '../../gateway/schemas/resources.js';

const ISSUER = 'http://localhost:8080';
const HOUR = 3_600_000;
/** Requests per check: the cluster hands connections out round-robin, so both processes answer some. */
const READS = 8;

/** The page built afresh: the presenter over `find`'s records (traces resolved as the API does). */
async function fresh(store: Store, userId: string, applicationId: string | null, baseUrl: string, token: string): Promise<string> {
  const found = await store.activities.find({ user_id: userId }, { sort: { start: -1 } });
  const hasTraces = (await store.traces.count({ user_id: userId })) > 0;
  // Traces are presented by the service itself; compare them through one uncached detail call each.
  const traces = hasTraces
    ? await Promise.all(found.map(async (record) => ((await (await fetch(`${baseUrl}/api/v1/activities/${record.id}`, { headers: { authorization: `Bearer ${token}` } })).json()) as { traces: object[] }).traces))
    : found.map(() => []);
  return jsonWriter(z.array(ActivitySummary))(found.map((record, i) => presentActivitySummary(record, { applicationId } as Principal, traces[i] as never)));
}

test('two gateway processes never answer a list page kept from before another process wrote', async () => {
  const dataDir = tempDir();
  const store = await openStore({ mongodbUri: null, sqliteFile: path.join(dataDir, 'threshold.sqlite') });
  const user = await createUser(store, { email: 'lister@example.com' });
  const owner = await createUser(store, { email: 'owner@example.com' });
  const app = await createApplication(store, owner.id, { name: 'Lister' });
  const keys = await SigningKeys.open(store);
  const scopes = ['activities:read', 'activities:write'];
  const personal = (await mintAccessToken(keys, { issuer: ISSUER, userId: user.id, applicationId: null, grantId: null, scopes })).access_token;
  const grant = await unionGrant(store, user.id, app.id, scopes);
  const appToken = (await mintAccessToken(keys, { issuer: ISSUER, userId: user.id, applicationId: app.id, grantId: grant.id, scopes })).access_token;
  for (let k = 0; k < 5; k++) await store.activities.insert(activity(`a${k}`, user.id, { start: T0 + k * HOUR, end: T0 + k * HOUR + HOUR / 2 }));

  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const service = startProcess('dist/cli/threshold.js', {
    DATA_DIR: dataDir, PORT: String(port), PAGES_PORT: String(await freePort()), HOST: '127.0.0.1', BASE_URL: ISSUER,
    ENGINE_ADDRESS: '127.0.0.1:0', ENGINE_THREADS: '1', GATEWAY_PROCESSES: '2', LOG_LEVEL: 'info',
  }, ['serve']);
  const get = (token: string) => fetch(`${baseUrl}/api/v1/activities/?limit=50`, { headers: { authorization: `Bearer ${token}`, connection: 'close' } });
  /** READS answers of each token's list, each the fresh page. */
  const check = async (step: string): Promise<void> => {
    for (const [token, applicationId] of [[personal, null], [appToken, app.id]] as const) {
      const expected = await fresh(store, user.id, applicationId, baseUrl, token);
      for (let i = 0; i < READS; i++) {
        const response = await get(token);
        assert.is(response.status, 200, step);
        assert.is(await response.text(), expected, `${step}: answer ${i + 1} of ${READS} (${applicationId ? 'app' : 'personal'} token)`);
      }
    }
  };
  try {
    await service.waitForLog((line) => line.msg === 'threshold is running', 60_000);
    await check('first pages');
    await check('pages kept');
    await store.activities.updateOne({ id: 'a2', user_id: user.id }, { set: { tags: ['edited by another process'] } });
    await check('after an edit');
    const laps = [{ start: T0 + 4 * HOUR, end: T0 + 4 * HOUR + 60_000, offset: 60, blocks: { heart_rate: { mean: 150, max: 170 } } }];
    await store.activities.updateOne({ id: 'a4', user_id: user.id }, { set: { laps } });
    await check('after new laps');
    await store.activities.insert(activity('a9', user.id, { start: T0 + 9 * HOUR, end: T0 + 10 * HOUR }));
    await check('after a new activity');
    await store.activities.deleteMany({ id: 'a0', user_id: user.id });
    await check('after a deletion');
    const put = await fetch(`${baseUrl}/api/v1/activities/a1/app-metadata`, {
      method: 'PUT', headers: { authorization: `Bearer ${appToken}`, 'content-type': 'application/json', connection: 'close' }, body: '{"plan":"z2"}',
    });
    assert.is(put.status, 200);
    await check('after app metadata through one gateway');
    await store.traces.insert({
      id: 'tr1', user_id: user.id, timestamp: T0 + 3 * HOUR + 60_000, offset: 0, local_date: '2024-01-01', test_id: null, lactate: 2.1, rpe: null,
      notes: null, power: 210, speed: null, heart_rate: 150, vo2: null, tags: [], sport: 'cycling', app_metadata: {}, created_at: T0, updated_at: T0,
    });
    await check('after a trace');
    assert.match(await (await get(personal)).text(), /"lactate":2\.1/, 'the trace is in the page');
    const pids = new Set(service.output().split('\n').filter((line) => line.includes('"path":"/api/v1/activities/"')).map((line) => (JSON.parse(line) as { pid: number }).pid));
    assert.is(pids.size, 2, 'both gateway processes answered lists');
    await beginUserDeletion(store, user.id);
    assert.is((await get(personal)).status, 401, 'no page of a deleted user');
  } finally {
    await service.kill();
    await store.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
