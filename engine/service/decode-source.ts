/**
 * DecodeSource: a stored upload source → its recorded series, one Arrow table per activity.
 * Validate → load the source and its bytes → decode in the pool → answer. Writes nothing.
 */
import { status } from '@grpc/grpc-js';
import type { Store } from '../../storage/store.js';
import { EngineError, type CallContext } from '../errors.js';
import { requireField } from './request-fields.js';
import type { EnginePool } from '../pool/pool.js';
import type { DecodeOutcome } from '../pool/tasks.js';
import type { DecodeSourceRequest, DecodeSourceResponse } from '../contract.js';

export interface DecodeSourceDeps {
  store: Store;
  pool: EnginePool;
}

export function decodeSource(deps: DecodeSourceDeps) {
  return async function decodeSourceCall(request: DecodeSourceRequest, { signal }: CallContext): Promise<DecodeSourceResponse> {
    const userId = requireField(request.user_id, 'user_id', 'decode source');
    const sourceId = requireField(request.source_id, 'source_id', 'decode source');
    // "Format of `DecodedActivity.series`; only ARROW_IPC for now."
    const format = request.format ?? 'TABLE_FORMAT_UNSPECIFIED';
    if (format !== 'ARROW_IPC' && format !== 'TABLE_FORMAT_UNSPECIFIED') {
      throw new EngineError(status.INVALID_ARGUMENT, `decode source: format ${String(format)} is not offered; use ARROW_IPC`);
    }

    return respond(await decodeStoredSource(deps, userId, sourceId, signal));
  };
}

/**
 * Loads a user's source and its original bytes and decodes them in the pool. Shared by DecodeSource
 * and IngestSource. NOT_FOUND for an unknown or another user's source; FAILED_PRECONDITION when the
 * bytes are missing or the type is unknown. A file that does not decode is an `ok: false` outcome.
 */
export async function decodeStoredSource(deps: DecodeSourceDeps, userId: string, sourceId: string, signal: AbortSignal): Promise<DecodeOutcome> {
  const source = await deps.store.sources.findOne({ id: sourceId, user_id: userId });
  // "a source of another user is NOT_FOUND"
  if (source === null || source.user_id !== userId) {
    throw new EngineError(status.NOT_FOUND, `engine: source ${sourceId} not found`);
  }
  const stored = await deps.store.blobs.get(source.bytes_key);
  if (stored === null) {
    throw new EngineError(status.FAILED_PRECONDITION, `decode source: source ${sourceId} has no stored bytes`, 'source_bytes_missing');
  }
  if (source.type !== 'csv' && source.type !== 'fit') {
    throw new EngineError(status.FAILED_PRECONDITION, `decode source: source ${sourceId} is neither a FIT nor a CSV file`, 'source_type_unknown');
  }
  signal.throwIfAborted();
  // A standalone buffer: transferring it to the worker must not detach the store's memory.
  const bytes = stored.slice().buffer as ArrayBuffer;
  return deps.pool.run('decodeFile', { bytes, type: source.type }, { signal, transferList: [bytes] });
}

/** A failed decode is FAILED_PRECONDITION carrying the decoder's code (`threshold-error-code`). */
function respond(outcome: DecodeOutcome): DecodeSourceResponse {
  if (!outcome.ok) throw new EngineError(status.FAILED_PRECONDITION, outcome.message, outcome.code);
  return {
    activities: outcome.activities.map((activity) => ({
      sport: activity.sport,
      start: activity.start,
      end: activity.end,
      offset: activity.offset,
      samples: activity.samples,
      metrics: activity.metrics,
      series: Buffer.from(activity.series),
    })),
    warnings: outcome.warnings,
  };
}
