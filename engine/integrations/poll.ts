/**
 * Polling for new activities, the fallback to pushes (intervals.icu "no missed-delivery feed: reconcile by
 * polling"; Wahoo has no deauthorization webhook): every INTEGRATION_POLL_MS each connection whose backfill
 * is done gets one `provider_poll:<connection id>` job, which lists from now back to a day before the
 * newest activity seen and imports what is new (import-activity.ts skips what was imported already).
 * One job per connection at a time: the key is unique, and a finished one is queued again. A connection
 * whose user withdrew activities at the provider (domain/provider-permissions.ts) is not polled.
 */
import type { Logger } from '../../domain/logger.js';
import type { ConnectionRecord } from '../../storage/store.js';
import { newJob } from '../../storage/jobs.js';
import type { JobHandler } from '../jobs/runner.js';
import { withheld } from '../../domain/provider-permissions.js';
import { AuthorizationRevoked } from './provider.js';
import { adapterFor, markActionRequired, tokensFor, type ConnectionDeps } from './connections.js';
import { importActivity } from './import-activity.js';

export const POLL_JOB = 'provider_poll';
/** Look back this far before the newest activity seen: late uploads land with older start times, milliseconds. */
const POLL_OVERLAP_MS = 86_400_000;
/** Pages one poll reads at most. */
const POLL_PAGES = 5;

export function pollJobHandler(deps: ConnectionDeps): JobHandler {
  return {
    async run(job, signal) {
      const connection = await deps.store.connections.get(String(job.payload.connection_id));
      if (!connection || connection.status !== 'connected') return;
      if (withheld(connection, 'activities').length > 0) return; // the user withdrew activities at the provider
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
        throw error;
      } finally {
        if (newestSeen > 0) await deps.store.connections.updateOne({ id: connection.id }, { set: { newest_seen: newestSeen } });
      }
    },
  };
}

/** Queues a poll for every connection whose backfill is done, every `intervalMs`. */
export function startPolling(deps: ConnectionDeps & { logger: Logger; intervalMs: number }): { stop(): void } {
  const timer = setInterval(() => {
    void pollAll(deps).catch((error: unknown) => deps.logger.warn({ err: error }, 'integrations: queueing polls failed'));
  }, deps.intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

async function pollAll(deps: ConnectionDeps): Promise<void> {
  const providers = Object.keys(deps.adapters) as ConnectionRecord['provider'][];
  if (providers.length === 0) return;
  const connections = await deps.store.connections.findFields({ status: 'connected', backfill_done: true, provider: { $in: providers } }, ['id', 'user_id']);
  for (const connection of connections) {
    const job = newJob(POLL_JOB, connection.user_id, `${POLL_JOB}:${connection.id}`, { connection_id: connection.id });
    const outcome = await deps.store.jobs.insertIfAbsent(job, ['key']);
    if (!outcome.inserted && (outcome.existing.status === 'done' || outcome.existing.status === 'failed')) {
      await deps.store.jobs.updateOne({ id: outcome.existing.id, status: outcome.existing.status }, { set: { status: 'queued', attempts: 0, run_after: Date.now(), error: null, updated_at: Date.now() } });
    }
  }
  deps.wake?.();
}
