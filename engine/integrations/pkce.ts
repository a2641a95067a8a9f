/**
 * PKCE (RFC 7636) for the provider side of a connection: we are the OAuth client here. S256 only —
 * Garmin requires it, Wahoo accepts it; `plain` is never sent. The verifier is 43 characters of
 * base64url (32 random bytes), the shortest RFC 7636 allows.
 */
import { createHash, randomBytes } from 'node:crypto';

export interface PkcePair {
  verifier: string;
  challenge: string;
}

export function newPkcePair(): PkcePair {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: s256(verifier) };
}

export function s256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}
