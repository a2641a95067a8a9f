/** Request checks shared by the RPC handlers: the engine trusts its callers, but not their typos. */
import { status } from '@grpc/grpc-js';
import { EngineError } from '../errors.js';

/** A non-blank string field; INVALID_ARGUMENT `<subsystem>: <field> must not be empty` otherwise. */
export function requireField(value: string | undefined, field: string, subsystem: string): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new EngineError(status.INVALID_ARGUMENT, `${subsystem}: ${field} must not be empty`);
  }
  return value;
}
