/**
 * Bringing every activity's analysis cache to the current analysis version after a version change, as
 * cluster-wide work in the shared job queue: each engine at start enqueues the version's plan
 * (`analysis_plan:v<version>`, keyed: the second engine finds it there), and the plan walks the stale
 * activities user by user, by id, enqueueing one keyed batch job per BATCH_SIZE of them
 * (`analysis_batch:v<version>:<user>:<first id>`). Any engine claims any batch, so N engines together compute each stale activity's cache once.
 *
 * The plan keeps at most AHEAD batches queued at a time and re-queues itself while they are worked off
 * (RunAgain), its place (the user and the last id enqueued) kept in its payload: uploads queued meanwhile are not stuck
 * behind a whole backfill, and a plan that dies mid-walk resumes where it was (a batch enqueued twice is
 * the same key). A batch skips an activity that is gone or current already (read on demand, or ingested
 * again), and retries when one failed (the others are current by then).
 * Kept honest by test/engine/analyses.test.ts and test/gateway/cluster-jobs.test.ts (two engines).
 */
import type { Logger } from '../../domain/logger.js';
import type { JsonObject, Store } from '../../storage/store.js';
import { newJob } from '../../storage/jobs.js';
import { ANALYSIS_VERSION } from '../analysis/activity-analysis.js';
import { refreshAnalysis, type CacheDeps } from '../service/analysis-cache.js';
import type { JobHandler } from './runner.js';

export const ANALYSIS_PLAN_JOB = 'analysis_plan';
export const ANALYSIS_BATCH_JOB = 'analysis_batch';
/** Activities per batch job. */
export const BATCH_SIZE = 50;
/** Batches queued or running at once, cluster-wide, before the plan waits. */
const AHEAD = 8;
/** How long the plan waits for batches to be worked off before looking again, milliseconds. */
const PLAN_RECHECK_MS = 1_000;

type Deps = CacheDeps & { logger: Logger };

/** Enqueues the plan of `version` unless it is there already (done, running or waiting). */
export async function enqueueAnalysisPlan(store: Store, version = ANALYSIS_VERSION): Promise<boolean> {
  const plan = newJob(ANALYSIS_PLAN_JOB, null, `${ANALYSIS_PLAN_JOB}:v${version}`, { version, user: '', after: '' });
  return (await store.jobs.insertIfAbsent(plan, ['key'])).inserted;
}

/** Where the walk is: the user whose activities it is in, and the last activity id enqueued of theirs. */
interface Place {
  user: string;
  after: string;
}

/**
 * The next stale activities from `place`: the user's next ones, else the next user's. Activities are sharded
 * by user (storage/schema.ts), so the walk lists users (unsharded) and reads each one's activities by user.
 */
async function nextStale(store: Store, version: number, place: Place): Promise<{ user: string; ids: string[] } | null> {
  let { user, after } = place;
  for (;;) {
    if (user !== '') {
      const page = await store.activities.findFields(
        { user_id: user, analysis_version: { $ne: version }, id: { $gt: after } }, ['id'], { sort: { id: 1 }, limit: BATCH_SIZE },
      );
      if (page.length > 0) return { user, ids: page.map((activity) => activity.id) };
    }
    const next = await store.users.findFields({ id: { $gt: user } }, ['id'], { sort: { id: 1 }, limit: 1 });
    if (next.length === 0) return null;
    user = next[0]!.id;
    after = '';
  }
}

export function analysisPlanHandler(deps: Deps): JobHandler {
  const version = deps.version ?? ANALYSIS_VERSION;
  return {
    async run(job, signal) {
      // Another version's plan (engines of other code share the queue in a rolling upgrade) is left to them.
      if (job.payload.version !== version) return { runAfter: Date.now() + PLAN_RECHECK_MS };
      let place: Place = { user: String(job.payload.user ?? ''), after: String(job.payload.after ?? '') };
      let room = AHEAD - (await deps.store.jobs.count({ kind: ANALYSIS_BATCH_JOB, status: { $in: ['queued', 'running'] } }));
      while (room > 0 && !signal.aborted) {
        const stale = await nextStale(deps.store, version, place);
        if (stale === null) {
          deps.logger.info({ version }, 'analysis backfill: every stale activity is in a batch');
          return;
        }
        const activities: JsonObject[] = stale.ids.map((id) => ({ id, user_id: stale.user }));
        const key = `${ANALYSIS_BATCH_JOB}:v${version}:${stale.user}:${stale.ids[0]!}`;
        await deps.store.jobs.insertIfAbsent(newJob(ANALYSIS_BATCH_JOB, null, key, { version, activities }), ['key']);
        place = { user: stale.user, after: stale.ids[stale.ids.length - 1]! };
        await deps.store.jobs.updateOne({ id: job.id, lease_owner: job.lease_owner }, { set: { payload: { ...job.payload, ...place }, updated_at: Date.now() } });
        room -= 1;
      }
      return { runAfter: Date.now() + PLAN_RECHECK_MS };
    },
  };
}

export function analysisBatchHandler(deps: Deps): JobHandler {
  const version = deps.version ?? ANALYSIS_VERSION;
  return {
    async run(job, signal) {
      if (job.payload.version !== version) return { runAfter: Date.now() + PLAN_RECHECK_MS };
      const activities = (job.payload.activities ?? []) as { id: string; user_id: string }[];
      let failed = 0;
      let refreshed = 0;
      for (const { id, user_id } of activities) {
        signal.throwIfAborted();
        const record = await deps.store.activities.findOne({ id, user_id });
        if (record === null || record.analysis_version === version) continue;
        try {
          await refreshAnalysis(deps, record, signal);
          refreshed++;
        } catch (error) {
          if (signal.aborted) throw error;
          failed++;
          deps.logger.warn({ err: error, activityId: id }, 'analysis backfill: activity failed');
        }
      }
      if (failed > 0) throw new Error(`analysis backfill: ${failed} of ${activities.length} activities failed; retrying the batch`);
      if (refreshed > 0) deps.logger.info({ refreshed, version }, 'analysis backfill: batch brought to the current version');
      return undefined;
    },
  };
}
