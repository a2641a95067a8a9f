/**
 * The engine's background writers share group commits (engine/server.ts, store.withGroupCommit): a provider
 * backfill's stored files, its ingest jobs' results and the job queue all write through the store's
 * group-commit view, as `threshold import` does, while calls keep writing directly. Against the
 * intervals.icu stand-in on the real stack over a store that counts its calls (the view's as `grouped.…`).
 * That grouped writes share one synced commit is test/storage/sqlite-group-commit.test.ts's.
 */
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import path from 'node:path';
import fs from 'node:fs';
import { startStack, tempDir } from '../support/stack.js';
import { startIntervalsIcuStandin } from '../support/standins/intervals-icu.js';
import { connectThroughPortal, ICU_CLIENT, intervalsIcuEnv, until } from '../support/integrations.js';
import { fitActivity } from '../support/fit-writer.js';
import { countingStore } from '../support/counting-store.js';
import { createApplication, createUser } from '../../gateway/services/accounts.js';
import { openStore } from '../../storage/open-store.js';

const DAY = 86_400_000;
const ACTIVITIES = 6;

test("a backfill's files, its ingest results and the job queue are written through the engine's group-commit view", async () => {
  const dataDir = tempDir();
  const counting = countingStore(await openStore({ mongodbUri: null, sqliteFile: path.join(dataDir, 'threshold.sqlite') }));
  const standin = await startIntervalsIcuStandin({ clientId: ICU_CLIENT.id, clientSecret: ICU_CLIENT.secret });
  const base = Math.floor(Date.now() / DAY) * DAY - DAY;
  standin.activities.push(...Array.from({ length: ACTIVITIES }, (_, i) => ({ id: `i${i}`, start: base - i * DAY, file: fitActivity({ start: base - i * DAY, seconds: 120, power: 150 + i }) })));
  const stack = await startStack({ ...intervalsIcuEnv(standin), DATA_DIR: dataDir, JOB_POLL_MS: '20' }, { store: counting.store });
  try {
    const owner = await createUser(stack.store, { email: 'owner@example.com' });
    const app = await createApplication(stack.store, owner.id, { name: 'Group commit', redirect_uris: ['https://app.example.com/cb'] });
    const user = await stack.userWithToken(['activities:read'], { appId: app.id });
    await connectThroughPortal(stack.baseUrl, user.token);
    await until('every activity stored', async () => ((await stack.store.activities.count({ user_id: user.userId })) >= ACTIVITIES ? true : undefined), 60_000);
    const count = (key: string) => counting.counts.get(key) ?? 0;
    assert.ok(count('grouped.store.claimJob') >= ACTIVITIES + 1, `jobs claimed through the view: ${count('grouped.store.claimJob')}`);
    assert.is(count('store.claimJob'), 0, 'no job claimed directly');
    // Each file: its original (acceptSource), its series and its analysis cache (the ingest job).
    assert.ok(count('grouped.blobs.put') >= 3 * ACTIVITIES, `blobs stored through the view: ${count('grouped.blobs.put')}`);
    assert.is(count('blobs.put'), 0, 'no blob stored directly');
    assert.ok(count('grouped.connections.updateOne') >= ACTIVITIES, 'the backfill\'s place, after each file, through the view');
  } finally {
    await stack.close();
    await standin.close();
    await counting.store.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
