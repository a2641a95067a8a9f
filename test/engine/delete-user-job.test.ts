/**
 * A user's deletion as a job in the shared queue (storage/user-deletion.ts, engine/jobs/delete-user-job.ts),
 * on a SQLite file: the user is gone after the first write, the rest goes in bounded batches, and a job whose
 * engine died after some batches (its lease still held) is claimed again once the lease has run out and
 * finishes — everything of the user removed, nothing of anyone else's, the totals carried over.
 */
import path from 'node:path';
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { deleteUserJobHandler } from '../../engine/jobs/delete-user-job.js';
import { startJobRunner } from '../../engine/jobs/runner.js';
import { openStore } from '../../storage/open-store.js';
import type { Store } from '../../storage/store.js';
import { DELETE_USER_JOB, DELETION_BATCH, DELETION_BLOB_BATCH, beginUserDeletion } from '../../storage/user-deletion.js';
import { daily, user } from '../storage/records.js';
import { until } from '../support/integrations.js';
import { tempDir } from '../support/stack.js';
import { silentLogger } from './support.js';

const DAILIES = 1_100;
const BLOBS = 60;
const DEAD_LEASE_MS = 400;

let store: Store;

test.before(async () => {
  store = await openStore({ mongodbUri: null, sqliteFile: path.join(tempDir(), 'threshold.sqlite') });
  for (const id of ['A', 'B']) await store.users.insert(user(id));
  for (let i = 0; i < DAILIES; i++) await store.dailies.insert(daily(`dA${i}`, 'A', { date: `2024-01-01`, measure: `m${i}` }));
  for (let i = 0; i < 10; i++) await store.dailies.insert(daily(`dB${i}`, 'B', { measure: `m${i}` }));
  for (let i = 0; i < BLOBS; i++) await store.blobs.put(`series/A${i}`, new Uint8Array(1000).fill(i), { userId: 'A' });
  await store.blobs.put('series/B0', new Uint8Array([1]), { userId: 'B' });
});

test.after(async () => {
  await store.close();
});

test('a deletion job killed after two batches is finished by the next claim after its lease, in bounded batches', async () => {
  const queued = await beginUserDeletion(store, 'A');
  assert.ok(queued !== null);
  assert.is(await store.users.get('A'), null, 'the user is gone after the first write');
  assert.is(await store.dailies.count({ user_id: 'A' }), DAILIES, 'the rest is still there');

  // An engine claims the job, removes two batches and dies: its lease is still held, nothing is settled.
  const claimed = (await store.claimJob([DELETE_USER_JOB], 'engine-that-dies', DEAD_LEASE_MS))!;
  assert.is(claimed.id, queued.id);
  const killed = new AbortController();
  let writes = 0;
  const jobs = Object.create(store.jobs, {
    updateOne: {
      value: async (...args: Parameters<Store['jobs']['updateOne']>) => {
        const recorded = await store.jobs.updateOne(...args);
        if (++writes === 2) killed.abort(new Error('engine killed'));
        return recorded;
      },
    },
  }) as Store['jobs'];
  const dying = deleteUserJobHandler({ store: { ...store, jobs }, logger: silentLogger() });
  await dying.run(claimed, killed.signal).then(() => assert.unreachable('the killed run should not finish'), () => {});
  const left = await store.dailies.count({ user_id: 'A' });
  assert.is(left, DAILIES - 2 * DELETION_BATCH, 'two batches went before the engine died');
  const abandoned = (await store.jobs.get(queued.id))!;
  assert.is(abandoned.status, 'running');
  assert.is(abandoned.payload.batches, 3, 'the first write and two batches are recorded');

  const runner = startJobRunner({
    store, logger: silentLogger(), handlers: { [DELETE_USER_JOB]: deleteUserJobHandler({ store, logger: silentLogger() }) },
    concurrency: 1, leaseMs: 5_000, pollMs: 20,
  });
  try {
    const done = await until('the deletion job to finish', async () => {
      const job = await store.jobs.get(queued.id);
      return job?.status === 'done' ? job : undefined;
    }, 20_000);
    assert.is(done.attempts, 2, 'claimed again once');
    assert.ok(done.updated_at >= abandoned.lease_until!, 'not before the dead engine\'s lease ran out');
    assert.is(await store.dailies.count({ user_id: 'A' }), 0);
    assert.equal(await store.blobs.getMany(['series/A0', `series/A${BLOBS - 1}`]), [null, null]);
    assert.is(await store.dailies.count({ user_id: 'B' }), 10, 'another user keeps everything');
    assert.is(await store.blobs.size('series/B0'), 1);
    assert.is(await store.users.get('B') !== null, true);
    const { removed, batches, largest } = done.payload as { removed: number; batches: number; largest: number };
    assert.is(removed, 1 + DAILIES + BLOBS, 'every document and blob counted once, across both runs');
    assert.is(batches, 1 + Math.ceil(DAILIES / DELETION_BATCH) + Math.ceil(BLOBS / DELETION_BLOB_BATCH));
    assert.is(largest, DELETION_BATCH, 'no write larger than a batch');
  } finally {
    await runner.close();
  }
});

test.run();
