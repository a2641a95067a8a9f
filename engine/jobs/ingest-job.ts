/**
 * The ingest job: one per uploaded source (`ingest:<source id>`), decoding and storing it through
 * IngestSource's code path. A source that no longer exists (its user was deleted) is nothing to do.
 * When every retry failed, the source is marked failed with `ingest_failed` so it never stays
 * `processing` forever.
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
        if (error instanceof EngineError && error.status === status.NOT_FOUND) return;
        throw error;
      }
    },
    async onGiveUp(job, error) {
      const message = `ingest: processing failed repeatedly (${error instanceof Error ? error.message : String(error)})`;
      await recordFailure(deps.store, job.user_id!, String(job.payload.source_id), 'ingest_failed', message, Date.now());
      deps.wakeEvents?.();
    },
  };
}
