/**
 * A connection's poll schedule as a record of the shared job queue: `provider_poll:<connection id>`, one per
 * connection (the key is unique), re-queued by its own handler after each run (poll.ts). Here apart from
 * poll.ts so the connection's writes (connections.ts) can make and remove it without importing the poller.
 */
import type { ConnectionRecord, JobRecord, Store } from '../../storage/store.js';
import { newJob } from '../../storage/jobs.js';

export const POLL_JOB = 'provider_poll';

/** The schedule of one connection's polls, first run at `runAfter` (Unix ms). */
export function pollSchedule(connection: Pick<ConnectionRecord, 'id' | 'user_id'>, runAfter: number): JobRecord {
  const job = newJob(POLL_JOB, connection.user_id, `${POLL_JOB}:${connection.id}`, { connection_id: connection.id });
  return { ...job, run_after: runAfter };
}

/** Makes the connection's schedule, or revives it when it ended (done, failed); one that runs or waits is left alone. */
export async function ensurePollSchedule(store: Store, connection: Pick<ConnectionRecord, 'id' | 'user_id'>, runAfter: number): Promise<void> {
  const outcome = await store.jobs.insertIfAbsent(pollSchedule(connection, runAfter), ['key']);
  if (outcome.inserted || (outcome.existing.status !== 'done' && outcome.existing.status !== 'failed')) return;
  await store.jobs.updateOne({ id: outcome.existing.id, status: outcome.existing.status }, {
    set: { status: 'queued', attempts: 0, run_after: runAfter, error: null, updated_at: Date.now() },
  });
}
