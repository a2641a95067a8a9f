/**
 * The per-activity analysis caches (engine/analysis/activity-analysis.ts) in the store: read them for a
 * longitudinal call, compute the missing or stale ones from the series in the pool, and bring every
 * activity to the current ANALYSIS_VERSION in the background after the engine starts.
 *
 * Consistency without locks: each computation writes a blob under a fresh key, then points the record at
 * it with a conditional update (only if the record still names the key the computation started from). If
 * ingest replaced the activity meanwhile, the update matches nothing and the new blob is deleted; the
 * replaced blob is deleted once the record no longer names it. A reader therefore never pairs a record with
 * a cache of another series. test/engine/analysis-cache.test.ts covers it.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from '../../domain/logger.js';
import type { ActivityRecord, Store } from '../../storage/store.js';
import { ANALYSIS_VERSION } from '../analysis/activity-analysis.js';
import type { EnginePool } from '../pool/pool.js';
import { mapLimit } from './map-limit.js';

export interface CacheDeps {
  store: Store;
  pool: EnginePool;
}

/** A fresh blob key for an activity's analysis cache. */
export function analysisKey(activityId: string): string {
  return `analysis:${activityId}:${Date.now().toString(36)}${randomBytes(4).toString('hex')}`;
}

/**
 * The current caches of `records`, in order (null for an activity whose series is gone), each a standalone
 * buffer the caller may transfer. Missing or stale ones are computed, `parallel` at a time.
 */
export async function loadAnalyses(deps: CacheDeps, records: readonly ActivityRecord[], signal: AbortSignal, parallel = 2): Promise<(ArrayBuffer | null)[]> {
  const out: (ArrayBuffer | null)[] = new Array(records.length).fill(null);
  const stale: number[] = [];
  for (const [index, record] of records.entries()) {
    const bytes = record.analysis_version === ANALYSIS_VERSION && record.analysis_key ? await deps.store.blobs.get(record.analysis_key) : null;
    if (bytes === null) stale.push(index);
    else out[index] = bytes.slice().buffer as ArrayBuffer;
  }
  signal.throwIfAborted();
  await mapLimit(stale, parallel, async (index) => {
    out[index] = await refreshAnalysis(deps, records[index]!, signal);
  });
  return out;
}

/** Computes an activity's cache from its stored series and points the record at it; null without a series. */
export async function refreshAnalysis(deps: CacheDeps, record: ActivityRecord, signal: AbortSignal): Promise<ArrayBuffer | null> {
  const stored = await deps.store.blobs.get(record.series_key);
  if (stored === null) return null;
  const series = stored.slice().buffer as ArrayBuffer;
  const { analysis } = await deps.pool.run('analyzeSeries', { series }, { signal, transferList: [series] });
  const key = analysisKey(record.id);
  await deps.store.blobs.put(key, new Uint8Array(analysis), { userId: record.user_id });
  const updated = await deps.store.activities.updateOne(
    { id: record.id, analysis_key: record.analysis_key ?? null },
    { set: { analysis_key: key, analysis_version: ANALYSIS_VERSION } },
  );
  if (updated === null) await deps.store.blobs.delete(key);
  else if (record.analysis_key) await deps.store.blobs.delete(record.analysis_key);
  return analysis.slice(0);
}

export interface Backfill {
  /** Resolves when the pass is over (or was stopped). */
  readonly done: Promise<void>;
  stop(): Promise<void>;
}

/** Activities refreshed per store query. */
const BACKFILL_PAGE = 50;

/**
 * One pass over every activity whose cache is missing or of another version, oldest id first, one at a
 * time (it yields the pool to requests). Failures are logged and skipped; the next start tries them again.
 */
export function startAnalysisBackfill(deps: CacheDeps & { logger: Logger }): Backfill {
  const stop = new AbortController();
  const run = async (): Promise<void> => {
    let after = '';
    let refreshed = 0;
    for (;;) {
      const page = await deps.store.activities.find(
        { analysis_version: { $ne: ANALYSIS_VERSION }, id: { $gt: after } },
        { sort: { id: 1 }, limit: BACKFILL_PAGE },
      );
      if (page.length === 0 || stop.signal.aborted) break;
      for (const record of page) {
        if (stop.signal.aborted) break;
        try {
          await refreshAnalysis(deps, record, stop.signal);
          refreshed++;
        } catch (error) {
          if (stop.signal.aborted) break;
          deps.logger.warn({ err: error, activityId: record.id }, 'analysis backfill: activity skipped');
        }
      }
      after = page[page.length - 1]!.id;
    }
    if (refreshed > 0) deps.logger.info({ refreshed, version: ANALYSIS_VERSION }, 'analysis backfill: caches brought to the current version');
  };
  const done = run().catch((error: unknown) => {
    if (!stop.signal.aborted) deps.logger.error({ err: error }, 'analysis backfill failed');
  });
  return {
    done,
    async stop() {
      stop.abort();
      await done;
    },
  };
}
