/**
 * The ingest job's handler over the real embedded store and worker pool: a source that is not visible
 * while its job is (a MongoDB read racing a commit) is retried, not finished, and is processed once it
 * is visible; a source whose job is gone too (its user was deleted) is nothing to do.
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { ingestJobHandler } from '../../engine/jobs/ingest-job.js';
import { createPool, type EnginePool } from '../../engine/pool/pool.js';
import { ingestJob } from '../../storage/jobs.js';
import { newId } from '../../storage/ids.js';
import type { Store } from '../../storage/store.js';
import { csvActivity } from '../support/uploads.js';
import { openTestStore, putSource } from './support.js';

const test = suite('ingest job');
let store: Store;
let pool: EnginePool;

test.before(async () => {
  store = await openTestStore();
  pool = createPool({ threads: 1 });
});
test.after(async () => {
  await pool.destroy();
  await store.close();
});

test('a source not visible yet beside its job is retried, then processed once it is', async () => {
  const userId = newId();
  const sourceId = newId();
  const job = ingestJob(userId, sourceId);
  await store.jobs.insert(job);
  const handler = ingestJobHandler({ store, pool });
  try {
    await handler.run(job, new AbortController().signal);
    assert.unreachable('a job whose source is missing must not finish while the job exists');
  } catch (error) {
    assert.match(String(error), `source ${sourceId} is not visible yet`);
  }
  await putSource(store, userId, new TextEncoder().encode(csvActivity()), { id: sourceId, bytes_key: `source:${sourceId}` });
  await handler.run(job, new AbortController().signal);
  const source = await store.sources.findOne({ id: sourceId, user_id: userId });
  assert.is(source?.status, 'processed');
  assert.is(source?.activity_ids.length, 1);
});

test('a source whose job is gone too (a deleted user) is nothing to do', async () => {
  const job = ingestJob(newId(), newId());
  await ingestJobHandler({ store, pool }).run(job, new AbortController().signal);
});

test.run();
