/**
 * The engine's machine-readable error codes on the wire: an `EngineError` with a code (e.g.
 * `csv_naive_timestamp`) sends it in the trailing metadata entry `threshold-error-code`; callers read it
 * back with `errorCodeOf`. Kept apart from errors.ts (the server's call wrappers) so callers import
 * only this. It also names the metadata key that carries the HTTP request id to the engine.
 * test/engine/errors.test.ts covers both sides.
 */
import type { ServiceError } from '@grpc/grpc-js';

/** Trailing-metadata key that carries `EngineError.errorCode` to callers. */
export const ERROR_CODE_KEY = 'threshold-error-code';

/** Caller side: the `threshold-error-code` a failed call carried, or null. */
export function errorCodeOf(error: Pick<ServiceError, 'metadata'>): string | null {
  const value = error.metadata?.get(ERROR_CODE_KEY)[0];
  return typeof value === 'string' ? value : null;
}

/** The metadata key an engine call carries its HTTP request's id in, so both sides log the same id. */
export const REQUEST_ID_KEY = 'x-request-id';
