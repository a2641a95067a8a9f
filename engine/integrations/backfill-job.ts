/**
 * The backfill job (`provider_backfill:<connection id>`): walks a connection's history newest to oldest
 * (interface §1), importing each activity through the upload path (import-activity.ts). Its place is the
 * adapter's opaque cursor, persisted on the connection after every page, and `backfill_loaded_until` after
 * every file it loaded: the earliest activity date loaded so far (interface §2 "Backfill status"), also once
 * the last page is done (never the history horizon, which no activity need reach); a restart resumes at the persisted page and skips what was imported already (keyed by the
 * provider's activity id), so a SIGKILL anywhere loses nothing and imports nothing twice.
 *
 * Rate limits: a short wait the provider names (`Retry-After`, a reset header) is waited out inside the job
 * (its lease is renewed meanwhile); a long one (a daily quota), or none named after repeated 429s, puts the
 * job back in the queue until then (RescheduleJob) with its place kept. A provider 5xx on one file is
 * retried, then that activity is skipped and reported (`sync_error`), never blocking the rest. A refused
 * token ends the backfill with the connection marked action_required. History the provider withholds (a
 * permission not granted, known beforehand or answered) ends it keeping its place, until granted again.
 *
 * test/engine/integrations/backfill.test.ts and test/gateway/backfill-crash.test.ts keep it honest.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from '../../domain/logger.js';
import type { ConnectionRecord, JobRecord } from '../../storage/store.js';
import { RescheduleJob, type JobHandler } from '../jobs/runner.js';
import { adapterFor, markActionRequired, tokensFor, type ConnectionDeps } from './connections.js';
import { importActivity, reportDownloadFailed } from './import-activity.js';
import { AuthorizationRevoked, backoffMs, ProviderError, ProviderRefused, RateLimited, type ProviderAdapter, type RemoteActivity } from './provider.js';
import { placeWait, rateLimitWaitMs } from './rate-limit-wait.js';
import type { ProviderTokens } from './credentials.js';
import { upsertDaily } from '../../storage/dailies.js';
import { describeWithheld, withheld } from '../../domain/provider-permissions.js';
import { HISTORY_NEEDS } from './permission-change.js';
import { ensurePollSchedule } from './poll-schedule.js';

/** Waits up to this long inside the job; longer waits requeue it, milliseconds. */
export const MAX_INLINE_WAIT_MS = 60_000;
/** Attempts at one file before it is skipped and reported. */
const FILE_ATTEMPTS = 3;

export function backfillJobHandler(deps: ConnectionDeps & { logger: Logger }): JobHandler {
  return {
    async run(job, signal) {
      const connectionId = String(job.payload.connection_id);
      const oldest = Number(job.payload.oldest);
      const newest = Number(job.payload.newest);
      const limiter = new Throttle(signal);
      for (;;) {
        const connection = await deps.store.connections.get(connectionId);
        if (!connection || connection.status !== 'connected' || connection.backfill_done) return;
        const missing = withheld(connection, ...HISTORY_NEEDS);
        if (missing.length > 0) return stopWithheld(deps, connection, newest, describeWithheld(connection.provider, missing));
        const adapter = adapterFor(deps, connection.provider);
        try {
          const tokens = await tokensFor(deps, connection);
          const page = await limiter.call(() => adapter.listHistory(tokens, { cursor: connection.backfill_cursor ?? null, oldest, newest }));
          if (page.withheld !== undefined) return stopWithheld(deps, connection, newest, page.withheld);
          let loadedUntil = connection.backfill_loaded_until;
          for (const activity of page.activities) {
            if (signal.aborted) throw signal.reason;
            if (activity.start < oldest) continue;
            const loaded = await importOne(deps, adapter, connection, tokens, activity, limiter);
            // A skipped file (no file, refused, failing) loaded nothing, so it does not move the date.
            if (loaded) loadedUntil = Math.min(loadedUntil ?? activity.start, activity.start);
            await deps.store.connections.updateOne({ id: connection.id, status: 'connected' }, {
              set: { backfill_loaded_until: loadedUntil, newest_seen: Math.max(connection.newest_seen ?? 0, activity.start), updated_at: Date.now() },
            });
          }
          const done = page.next === null;
          if (done && adapter.dailies && withheld(connection, 'dailies').length === 0) {
            try {
              await importDailies(deps.store, adapter, connection.user_id, tokens, oldest, newest, limiter);
            } catch (error) {
              if (!(error instanceof ProviderError)) throw error;
              // Daily measures are a bonus of the backfill: their failure is reported, never blocks the activities.
              deps.logger.warn({ err: error }, 'backfill: daily measures failed');
              await deps.store.connections.updateOne({ id: connection.id }, { set: { sync_error: { code: 'dailies_failed', message: error.message, at: Date.now() } } });
            }
          }
          // A rate-limit note is over once a page went through; other problems stay for backfill-status to tell.
          const clearNote = connection.sync_error?.code === 'rate_limited' ? { sync_error: null } : {};
          await deps.store.connections.updateOne({ id: connection.id, status: 'connected' }, {
            set: { backfill_cursor: page.next, backfill_done: done, ...clearNote, updated_at: Date.now() },
          });
          // Polling takes over (poll.ts); its schedule is revived if it ended (a reconnect after a refusal).
          if (done) return await ensurePollSchedule(deps.store, connection, Date.now());
        } catch (error) {
          if (error instanceof AuthorizationRevoked) return markActionRequired(deps.store, connectionId, error.message);
          // Asking again cannot change a refusal: reported now, as a failure after every retry would be.
          if (error instanceof ProviderRefused) return reportFailure(deps, connectionId, error);
          if (error instanceof RateLimited || error instanceof RescheduleJob) await reportWait(deps, connectionId, error);
          throw error;
        }
      }
    },
    async onGiveUp(job: JobRecord, error: unknown) {
      await reportFailure(deps, String(job.payload.connection_id), error);
    },
  };
}

/** The backfill stops: `backfill_failed` for backfill-status to tell, with the provider's reason. */
async function reportFailure(deps: ConnectionDeps, connectionId: string, error: unknown): Promise<void> {
  const now = Date.now();
  await deps.store.connections.updateOne({ id: connectionId }, {
    set: { sync_error: { code: 'backfill_failed', message: error instanceof Error ? error.message : String(error), at: now }, updated_at: now },
  });
}

/**
 * The provider withholds history (a permission the user did not grant): the backfill ends here as done, so
 * polling takes over, keeping its place (`backfill_cursor`) and saying so (`backfill_withheld`) for
 * permission-change.ts to resume it once granted. Loaded back to the connection; reported once.
 */
async function stopWithheld(deps: ConnectionDeps, connection: ConnectionRecord, newest: number, message: string): Promise<void> {
  const note = connection.sync_error?.code === 'permission_missing' ? {} : { sync_error: { code: 'permission_missing', message, at: Date.now() } };
  await deps.store.connections.updateOne({ id: connection.id, status: 'connected' }, {
    set: { backfill_done: true, backfill_withheld: true, backfill_loaded_until: connection.backfill_loaded_until ?? newest, ...note },
  });
}

/** Imports one activity's file; false when it was skipped (no file, refused, failing after retries). */
async function importOne(deps: ConnectionDeps & { logger: Logger }, adapter: ProviderAdapter, connection: ConnectionRecord, tokens: ProviderTokens, activity: RemoteActivity, limiter: Throttle): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    try {
      const outcome = await limiter.call(() => importActivity(deps, adapter, connection.user_id, tokens, activity));
      if (outcome === 'no_file') {
        deps.logger.info({ provider: adapter.provider, activity: activity.id }, 'backfill: no file (gone or a stub), skipped');
        return false;
      }
      return true;
    } catch (error) {
      if (!(error instanceof ProviderError) || attempt >= FILE_ATTEMPTS || error instanceof ProviderRefused) {
        if (!(error instanceof ProviderError)) throw error;
        deps.logger.warn({ err: error, activity: activity.id }, 'backfill: file refused or failed repeatedly, skipped');
        await reportDownloadFailed(deps.store, connection.id, activity.id, error);
        return false;
      }
      await delay(backoffMs(attempt, 500, 10_000), undefined, { signal: limiter.signal });
    }
  }
}

/** Daily measures over the backfill's span (intervals.icu wellness); a manual value is never overwritten (upsertDaily). */
async function importDailies(store: ConnectionDeps['store'], adapter: ProviderAdapter, userId: string, tokens: ProviderTokens, oldest: number, newest: number, limiter: Throttle): Promise<void> {
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const dailies = await limiter.call(() => adapter.dailies!(tokens, { oldest: day(oldest), newest: day(newest + 86_400_000) }));
  for (const daily of dailies) await upsertDaily(store, { userId, measure: daily.measure, date: daily.date, value: daily.value, source: adapter.provider });
}

async function reportWait(deps: ConnectionDeps, connectionId: string, error: RateLimited | RescheduleJob): Promise<void> {
  const now = Date.now();
  const until = error instanceof RescheduleJob ? error.runAfter : error.retryAt;
  await deps.store.connections.updateOne({ id: connectionId }, {
    set: { sync_error: { code: 'rate_limited', message: `the provider is rate limiting; resuming${until ? ` at ${new Date(until).toISOString()}` : ' later'}`, at: now } },
  });
}

/**
 * Honours 429s: waits the named time when it is short, backs off with jitter when none is named, and hands
 * long waits to the queue (RescheduleJob). Clears the connection's rate-limit note when calls succeed again.
 */
class Throttle {
  private streak = 0;
  constructor(readonly signal: AbortSignal) {}

  async call<T>(work: () => Promise<T>): Promise<T> {
    for (;;) {
      try {
        const result = await work();
        this.streak = 0;
        return result;
      } catch (error) {
        if (!(error instanceof RateLimited)) throw error;
        this.streak += 1;
        const wait = rateLimitWaitMs(error.retryAt, this.streak, Date.now());
        if (placeWait(wait, { inlineMaxMs: MAX_INLINE_WAIT_MS, capMs: Infinity, queue: error.daily || this.streak > 20 }) !== 'inline') {
          throw new RescheduleJob(Date.now() + wait, error.message);
        }
        await delay(wait, undefined, { signal: this.signal });
      }
    }
  }
}
