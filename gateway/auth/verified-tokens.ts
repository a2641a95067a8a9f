/**
 * Access tokens whose signature and claims were verified (auth/access-tokens.ts), kept so a token used again
 * skips the RSA verification (about 8 % of a list request, measured by bench/list-endpoint.bench.ts) and the
 * claim checks. Only that is skipped: every request still looks up what the token stands on (user, grant,
 * issuance, client secret, delegation — `assertLive`), so a revocation ends a cached token at once, and the
 * signing key is asked for again, so a retired or reloaded key ends it too. An entry is keyed by the SHA-256
 * of the token (the token itself is never held), lives no later than the token's `exp`, and the least
 * recently used entry goes first once `capacity` are held. Kept honest by test/gateway/resource-server.test.ts.
 */
import { createHash } from 'node:crypto';
import type { CryptoKey } from 'jose';

/**
 * What a verified token established: its claims as a principal (auth/access-tokens.ts `Principal`, named
 * here only by what the cache reads, so the two files do not import each other), and the key that verified it.
 */
export interface Verified<P extends { expiresAt: number } = { expiresAt: number }> {
  principal: P;
  kid: string;
  key: CryptoKey;
}

/** How many verified tokens a gateway keeps (about 1 KB each). */
export const VERIFIED_TOKENS_CAPACITY = 10_000;

export class VerifiedTokens<P extends { expiresAt: number } = { expiresAt: number }> {
  private readonly entries = new Map<string, Verified<P>>();

  constructor(private readonly capacity = VERIFIED_TOKENS_CAPACITY) {}

  /** The token's verification, while the token has not expired (`now` in ms); none otherwise. */
  get(token: string, now: number): Verified<P> | undefined {
    const key = hashOf(token);
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    // jose refuses a token once its `exp` (whole seconds) is reached: so does the cache.
    if (now >= entry.principal.expiresAt) return undefined;
    this.entries.set(key, entry);
    return entry;
  }

  set(token: string, verified: Verified<P>): void {
    const key = hashOf(token);
    this.entries.delete(key);
    this.entries.set(key, verified);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }

  get size(): number {
    return this.entries.size;
  }
}

function hashOf(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}
