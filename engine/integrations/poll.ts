/**
 * Polling for new activities, the fallback to pushes (intervals.icu "no missed-delivery feed: reconcile by
 * polling"; Wahoo has no deauthorization webhook): one schedule per connection in the shared job queue,
 * `provider_poll:<connection id>`, a keyed job that re-queues itself INTEGRATION_POLL_MS after each run
 * (RunAgain), so any number of engines together poll each connection once per interval. It is made with
 * the connection (connections.ts), revived when a backfill completes, and at every engine's start for
 * connections that have none (idempotent: the key is unique). A run lists from now back to a day before the
 * newest activity seen and imports what is new (import-activity.ts skips what was imported already); until
 * the backfill is done it only waits. A connection that is gone, disconnected or refused ends its schedule
 * (disconnect removes it); one whose user withdrew activities at the provider (domain/provider-permissions.ts)
 * keeps its schedule without polling. A spent request budget (provider-budget.ts) or a provider's 429 moves
 * the next run to when it resets.
 * Kept honest by test/gateway/integration-polling.test.ts and test/gateway/cluster-jobs.test.ts.
 */
import type { Logger } from '../../domain/logger.js';
import type { ConnectionRecord } from '../../storage/store.js';
import type { JobHandler, RunAgain } from '../jobs/runner.js';
import { withheld } from '../../domain/provider-permissions.js';
import { AuthorizationRevoked, backoffMs, RateLimited } from './provider.js';
import { adapterFor, markActionRequired, tokensFor, type ConnectionDeps } from './connections.js';
import { importActivity } from './import-activity.js';

import { ensurePollSchedule, POLL_JOB, pollSchedule } from './poll-schedule.js';

export { POLL_JOB } from './poll-schedule.js';
/** Look back this far before the newest activity seen: late uploads land with older start times, milliseconds. */
const POLL_OVERLAP_MS = 86_400_000;
/** Pages one poll reads at most. */
const POLL_PAGES = 5;

export function pollJobHandler(deps: ConnectionDeps & { intervalMs: number }): JobHandler {
  const next = (): RunAgain => ({ runAfter: Date.now() + deps.intervalMs });
  return {
    async run(job, signal) {
      const connection = await deps.store.connections.findOne({ id: String(job.payload.connection_id), user_id: job.user_id! });
      if (!connection || connection.status !== 'connected') return; // gone: the schedule ends
      if (!deps.adapters[connection.provider] || !connection.backfill_done) return next();
      if (withheld(connection, 'activities').length > 0) return next(); // the user withdrew activities at the provider
      const adapter = adapterFor(deps, connection.provider);
      const now = Date.now();
      const oldest = (connection.newest_seen ?? now - 30 * 86_400_000) - POLL_OVERLAP_MS;
      let newestSeen = connection.newest_seen ?? 0;
      try {
        const tokens = await tokensFor(deps, connection);
        let cursor: string | null = null;
        for (let page = 0; page < POLL_PAGES && !signal.aborted; page++) {
          const listed = await adapter.listHistory(tokens, { cursor, oldest, newest: now });
          for (const activity of listed.activities) {
            if (activity.start < oldest) continue;
            await importActivity(deps, adapter, connection.user_id, tokens, activity);
            newestSeen = Math.max(newestSeen, activity.start);
          }
          if (listed.next === null) break;
          cursor = listed.next;
        }
      } catch (error) {
        if (error instanceof AuthorizationRevoked) return markActionRequired(deps.store, connection.id, error.message);
        // Throttled (the provider, or the shared budget spent): the next poll waits until it resets.
        if (error instanceof RateLimited) return { runAfter: Math.max(error.retryAt ?? 0, Date.now() + backoffMs(1, 60_000)) };
        throw error;
      } finally {
        if (newestSeen > 0) await deps.store.connections.updateOne({ id: connection.id, user_id: connection.user_id }, { set: { newest_seen: newestSeen } });
      }
      return next();
    },
    async onGiveUp(job) {
      // A poll that failed every retry is one missed interval, not the end of the schedule.
      await deps.store.jobs.updateOne({ id: job.id, status: 'failed' }, { set: { status: 'queued', attempts: 0, run_after: Date.now() + deps.intervalMs, updated_at: Date.now() } });
    },
  };
}

/**
 * At an engine's start: every live connection of a configured provider gets its schedule if it has none
 * (connections made before schedules existed, or whose schedule ended). Idempotent across engines.
 */
export async function schedulePolls(deps: ConnectionDeps & { logger: Logger; intervalMs: number }): Promise<void> {
  const providers = Object.keys(deps.adapters) as ConnectionRecord['provider'][];
  if (providers.length === 0) return;
  // Read first, write only what is missing: every engine runs this at start, and most schedules are there.
  const live = new Set((await deps.store.jobs.findFields({ kind: POLL_JOB, status: { $in: ['queued', 'running'] } }, ['key'])).map((job) => job.key));
  const connections = await deps.store.connections.findFields({ status: 'connected', provider: { $in: providers } }, ['id', 'user_id']);
  const missing = connections.filter((connection) => !live.has(pollSchedule(connection, 0).key));
  for (const connection of missing) await ensurePollSchedule(deps.store, connection, Date.now() + deps.intervalMs);
  if (missing.length > 0) deps.wake?.();
}
