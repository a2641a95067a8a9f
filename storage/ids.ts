/** Opaque record ids: 16 lowercase hex characters (64 random bits), the shape the interface's ids take. */
import { randomBytes } from 'node:crypto';

export function newId(): string {
  return randomBytes(8).toString('hex');
}
