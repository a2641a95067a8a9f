/** Job records: what the engine's job runner claims. One ingest job per source, keyed by it. */
import type { JobRecord, JsonObject } from './records.js';
import { newId } from './ids.js';

export const INGEST_JOB = 'ingest';

export function newJob(kind: string, userId: string | null, key: string | null, payload: JsonObject, now = Date.now()): JobRecord {
  return {
    id: newId(), user_id: userId, kind, key, payload, status: 'queued', attempts: 0, run_after: now,
    lease_owner: null, lease_until: null, progress: null, error: null, created_at: now, updated_at: now,
  };
}

export function ingestJob(userId: string, sourceId: string, now = Date.now()): JobRecord {
  return newJob(INGEST_JOB, userId, `ingest:${sourceId}`, { source_id: sourceId }, now);
}
