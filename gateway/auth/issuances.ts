/**
 * Issuances: what one code exchange hands out. The conditional write that redeems a code gives it an
 * issuance id (authorization-codes.ts); the refresh token issued by that exchange records it
 * (`RefreshTokenRecord.issuance_id`), and every access token minted from the exchange, from that
 * refresh token, or delegated from one of those carries it (claim `iid`, access-tokens.ts).
 *
 * RFC 6749 §4.1.2: "If an authorization code is used more than once, the authorization server MUST
 * deny the request and SHOULD revoke (when possible) all tokens previously issued based on that
 * authorization code." A replayed code revokes its issuance, and only it: the grant, and every other
 * session of the same user and application, keep working.
 *
 * Revoking writes the issuance onto its grant (`GrantRecord.revoked_issuances`) and deletes its
 * refresh token. The grant is the record the resource server already reads on every request, so the
 * access tokens end at once without another lookup. An entry is kept as long as an access token
 * carrying it can live, then dropped by the next revocation on that grant.
 *
 * Races, with linearisable single-document writes and no transaction: the replay marks the grant
 * first and deletes refresh tokens second; the winning exchange inserts its refresh token first and
 * reads the grant second (`issuanceStillLive`). Whichever order the four steps interleave in, either the
 * replay's delete finds the token or the winner's read finds the mark (and deletes it itself).
 *
 * Kept honest by test/gateway/token-endpoint.test.ts ("a replayed code revokes …").
 */
import type { GrantRecord, Store } from '../../storage/store.js';
import { ACCESS_TOKEN_TTL_S } from './signing-keys.js';

/**
 * How long a revoked issuance stays on its grant, milliseconds: an access token's lifetime after the
 * revocation, plus a minute for a token minted by a request that was already past its checks.
 */
export const REVOKED_ISSUANCE_KEPT_MS = ACCESS_TOKEN_TTL_S * 1000 + 60_000;

/** Optimistic-concurrency attempts before giving up on a contended grant. */
const ATTEMPTS = 20;

/** Whether `issuanceId` was revoked on this grant (null: a token from before issuances, never revoked this way). */
export function isRevokedIssuance(grant: Pick<GrantRecord, 'revoked_issuances'>, issuanceId: string | null | undefined): boolean {
  if (!issuanceId) return false;
  return (grant.revoked_issuances ?? []).some((entry) => entry.id === issuanceId);
}

/**
 * Revokes every token of one issuance: marks it on the grant (a conditional write on the grant's
 * `revocations` counter, retried under contention), then deletes its refresh token. Idempotent, so
 * any number of concurrent replays may call it. A grant that is gone took its tokens with it.
 */
export async function revokeIssuance(store: Store, grantId: string, issuanceId: string, now = Date.now()): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const grant = await store.grants.get(grantId);
    if (!grant) break;
    if (isRevokedIssuance(grant, issuanceId)) break;
    const kept = (grant.revoked_issuances ?? []).filter((entry) => entry.until > now);
    const marked = await store.grants.updateOne(
      { id: grant.id, revocations: grant.revocations ?? null },
      { set: { revoked_issuances: [...kept, { id: issuanceId, until: now + REVOKED_ISSUANCE_KEPT_MS }] }, inc: { revocations: 1 } },
    );
    if (marked) break;
    if (attempt + 1 >= ATTEMPTS) throw new Error('issuances: could not mark the grant under contention');
  }
  await store.refresh_tokens.deleteMany({ grant_id: grantId, issuance_id: issuanceId });
}

/**
 * The winning exchange's second step, after its refresh token is stored: when a replay revoked the
 * issuance meanwhile, deletes that refresh token and answers false (the exchange then fails).
 */
export async function issuanceStillLive(store: Store, grantId: string, issuanceId: string): Promise<boolean> {
  const grant = await store.grants.get(grantId);
  if (grant && !isRevokedIssuance(grant, issuanceId)) return true;
  await store.refresh_tokens.deleteMany({ grant_id: grantId, issuance_id: issuanceId });
  return false;
}
