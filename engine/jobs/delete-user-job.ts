/**
 * The `delete-user` job (storage/user-deletion.ts): removes what a deleted user left behind, in bounded
 * batches, recording its totals in the job's payload after every write. A job whose engine died mid-way is
 * claimed again after its lease and goes on from what is left. Kept honest by
 * test/storage/user-deletion.test.ts (a run cut off after some batches, finished by the next claim).
 */
import type { Logger } from '../../domain/logger.js';
import type { Store } from '../../storage/store.js';
import { continueUserDeletion, deletionPayload } from '../../storage/user-deletion.js';
import type { JobHandler } from './runner.js';

export function deleteUserJobHandler(deps: { store: Store; logger: Logger }): JobHandler {
  return {
    async run(job, signal) {
      const done = await continueUserDeletion(deps.store, deletionPayload(job), {
        signal,
        async onBatch(payload) {
          const recorded = await deps.store.jobs.updateOne({ id: job.id, lease_owner: job.lease_owner }, { set: { payload, updated_at: Date.now() } });
          if (recorded === null) throw new Error(`user deletion: job ${job.id} was claimed by another runner`);
        },
      });
      deps.logger.info({ job: job.id, users: done.users.length, removed: done.removed, batches: done.batches, largest: done.largest }, 'user deletion: finished');
    },
  };
}
