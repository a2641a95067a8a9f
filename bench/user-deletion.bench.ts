/**
 * Question: what does deleting a user with 3,000 activities cost — as one transaction (`Store.deleteUser`, as
 * until issue 24 item 7) and as the deletion in batches (storage/user-deletion.ts: one small write after which
 * the user is gone, then the delete-user job's bounded writes)?
 *
 * Two users with the same history (bench/history.ts with extras: per ride a record, its series, its analysis
 * cache, an uploaded source with 8 KB of original bytes and a daily: 3,000 × 3 documents and 3,000 × 3 blobs).
 * One is deleted by `deleteUser`, the other by `beginUserDeletion` then `continueUserDeletion` (the job's walk,
 * run here). Reported: time until the user is gone, the job's time, its writes and the largest, against the
 * one transaction's time and size. On SQLite (in memory) and, with MONGODB_URI, MongoDB
 * (bench/history.ts benchBackends). Rows: the time until the user is gone, and the whole batched deletion,
 * against the one transaction's time in the same run.
 *
 *   npm run build && node dist/bench/run.js user-deletion
 */
import { beginUserDeletion, continueUserDeletion, deletionPayload } from '../storage/user-deletion.js';
import { user } from '../test/storage/records.js';
import { ms, onEachBackend, seedHistory } from './history.js';
import { share, type BenchResult } from './results.js';
import { quick } from './support.js';

export const question = 'Deleting a user with 3,000 activities: one transaction vs gone in one small write, then batches (time, writes, largest write)';

const RIDES = quick(3_000, 30);

export function run(): Promise<BenchResult> {
  return onEachBackend(async (store, pool) => {
    for (const id of ['bench-whole', 'bench-batched']) {
      await store.users.insert(user(id));
      await seedHistory(store, pool, id, RIDES, true);
    }
    let started = performance.now();
    const removedAtOnce = await store.deleteUser('bench-whole');
    const wholeMs = performance.now() - started;

    started = performance.now();
    const job = await beginUserDeletion(store, 'bench-batched');
    const goneMs = performance.now() - started;
    started = performance.now();
    const done = await continueUserDeletion(store, deletionPayload(job!));
    const jobMs = performance.now() - started;
    const whole = { unit: 'ms', anchor: wholeMs, anchorLabel: 'one transaction (Store.deleteUser)', dataset: 'synthetic' as const };
    return {
      text: `one transaction of ${removedAtOnce} documents and blobs, ${ms(wholeMs)} ms; ` +
        `batched: gone after ${ms(goneMs)} ms (one write), then ${done.removed} removed in ${done.batches} writes, the largest ${done.largest}, ${ms(jobMs)} ms`,
      rows: [
        { question: `a user of ${RIDES} activities gone (one small write)`, figure: goneMs, ratio: share(goneMs, wholeMs, 'lower'), ...whole },
        { question: `a user of ${RIDES} activities deleted in batches, in all`, figure: goneMs + jobMs, ratio: share(goneMs + jobMs, wholeMs, 'lower'), ...whole },
      ],
    };
  });
}
