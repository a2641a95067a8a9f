/**
 * The ingest job: one per uploaded source (`ingest:<source id>`), decoding and storing it through
 * IngestSource's code path. When every retry failed, the source is marked failed with `ingest_failed`
 * so it never stays `processing` forever.
 *
 * A source that cannot be found is nothing to do only when its job is gone too: deleting a user removes
 * both, and sources are never deleted alone. A job that still exists while its source does not is a
 * source that is not visible yet, although the two were written in one batch. MongoDB does not promise
 * otherwise on a sharded cluster (a read outside a transaction may see one shard's part of a committed
 * transaction before another's), and the bundled test server (jongodb) shows it on one node. That case
 * is retried like any failure, so the source is processed once it is visible instead of staying
 * `processing` under a job marked done.
 * Kept honest by test/engine/ingest-job.test.ts.
 */
import { status } from '@grpc/grpc-js';
import { EngineError } from '../errors.js';
import { ingestStoredSource, recordFailure, type IngestDeps } from '../service/ingest-source.js';
import type { JobHandler } from './runner.js';

export function ingestJobHandler(deps: IngestDeps): JobHandler {
  return {
    async run(job, signal) {
      const sourceId = String(job.payload.source_id);
      try {
        await ingestStoredSource(deps, job.user_id!, sourceId, signal);
      } catch (error) {
        if (!(error instanceof EngineError && error.status === status.NOT_FOUND)) throw error;
        if ((await deps.store.jobs.get(job.id)) === null) return;
        throw new Error(`ingest: source ${sourceId} is not visible yet although its job is; trying again`);
      }
    },
    async onGiveUp(job, error) {
      const message = `ingest: processing failed repeatedly (${error instanceof Error ? error.message : String(error)})`;
      await recordFailure(deps.store, job.user_id!, String(job.payload.source_id), 'ingest_failed', message, Date.now());
      deps.wakeEvents?.();
    },
  };
}
