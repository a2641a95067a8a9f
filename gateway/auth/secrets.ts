/**
 * Opaque secrets (client secrets, refresh tokens, codes): 256 random bits, base64url, with a prefix
 * that says what they are; stored only as SHA-256 hashes and compared through the hash.
 */
import { createHash, randomBytes } from 'node:crypto';

export function newSecret(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}
