/**
 * A permission change the provider pushed (Garmin `userPermissionsChange`, providers.md §1), applied to one
 * connection: its plain `permissions` become the pushed list, and `permissions_at` the change's time. A
 * change dated before the stored one is stale and ignored (Garmin re-sends failed deliveries for days, so
 * an old change can arrive after a newer one or after a reconnect); the same change twice writes the same
 * thing. Nothing is disconnected: the gates of domain/provider-permissions.ts stop the work a missing
 * permission forbids, and a backfill that stopped because history was withheld resumes, at the place it
 * kept, once history is granted again.
 *
 * Deliberately not here: the sealed tokens (their `scope` stays what was granted at connect; the plain
 * list is what everything reads), and `updated_at` (token refreshes use it as their version).
 * Kept honest by test/gateway/garmin-permissions.test.ts.
 */
import { withheld } from '../../domain/provider-permissions.js';
import type { ConnectionRecord } from '../../storage/store.js';
import { newJob } from '../../storage/jobs.js';
import { BACKFILL_JOB, backfillJob, type ConnectionDeps } from './connections.js';

/** Compare-and-set attempts before giving up on a connection whose permissions keep changing under us. */
const ATTEMPTS = 5;

/** What a backfill needs granted: the activities themselves and their history. */
export const HISTORY_NEEDS = ['activities', 'activity_history'] as const;

export type PermissionChangeOutcome = 'applied' | 'stale' | 'gone';

/** `changedAt` Unix ms; null (an undated change) counts as now. */
export async function applyPermissionChange(deps: Pick<ConnectionDeps, 'store' | 'wake'>, connectionId: string, permissions: string[], changedAt: number | null): Promise<PermissionChangeOutcome> {
  const at = changedAt ?? Date.now();
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const connection = await deps.store.connections.get(connectionId);
    if (!connection || connection.status !== 'connected') return 'gone';
    if (connection.permissions_at !== null && connection.permissions_at !== undefined && at < connection.permissions_at) return 'stale';
    const unchanged = { id: connection.id, permissions_at: connection.permissions_at ?? null };
    const set: Partial<ConnectionRecord> = { permissions, permissions_at: at };
    if (!resumesHistory(connection, permissions)) {
      if (await deps.store.connections.updateOne(unchanged, { set })) return 'applied';
      continue;
    }
    // History granted again: the backfill goes on from where it stopped, with its original span.
    const previous = await deps.store.jobs.findOne({ key: `${BACKFILL_JOB}:${connection.id}` });
    const job = previous
      ? newJob(BACKFILL_JOB, connection.user_id, previous.key, previous.payload)
      : backfillJob(connection.user_id, connection.id, connection.created_at);
    const problem = connection.sync_error?.code === 'permission_missing' ? { sync_error: null } : {};
    await deps.store.batch([
      { collection: 'connections', update: unchanged, change: { set: { ...set, ...problem, backfill_withheld: false, backfill_done: false } } },
      { collection: 'jobs', delete: { key: job.key } },
      { collection: 'jobs', insert: job },
    ]);
    const after = await deps.store.connections.get(connection.id);
    if (after?.permissions_at === at && after.backfill_withheld === false) {
      deps.wake?.();
      return 'applied';
    }
  }
  throw new Error(`integrations: the permissions of connection ${connectionId} kept changing; the change is retried later`);
}

/** The backfill stopped for lack of history, and `permissions` grant everything it needs. */
function resumesHistory(connection: ConnectionRecord, permissions: string[]): boolean {
  return connection.backfill_withheld === true && withheld({ provider: connection.provider, permissions }, ...HISTORY_NEEDS).length === 0;
}
