/**
 * Refresh tokens (interface §5 "Access tokens"; gaps.md "Refresh tokens do not rotate"): opaque 256-bit
 * values stored as SHA-256 hashes, bound to the user, the application, the grant and the client secret
 * they were issued under (null for a PKCE client). They never rotate: the same token keeps working until
 * the user revokes the app, the secret is deleted or the user is deleted — each of those deletes the
 * record (services/grants.ts, Store.deleteUser) — or the code it was issued from is replayed
 * (auth/issuances.ts). Kept honest by test/gateway/token-endpoint.test.ts
 * ("the refresh issuance matrix", "refreshes twice with the same refresh token", "refuses a refresh …").
 */
import type { RefreshTokenRecord, Store } from '../../storage/store.js';
import { newId } from '../../storage/ids.js';
import { hashSecret, newSecret } from './secrets.js';

export interface NewRefreshToken {
  userId: string;
  applicationId: string;
  grantId: string;
  /** The client secret the code was redeemed with; null for a PKCE client. */
  clientSecretId: string | null;
  scopes: readonly string[];
  /** When the user signed in for the flow, epoch ms. */
  authTime: number;
  /** The issuance of the code exchange (auth/issuances.ts): a replay of the code deletes this token. */
  issuanceId?: string | null;
}

/**
 * "Apps using a client secret always receive a refresh token. Public PKCE clients receive one only
 * when they request offline_access."
 */
export function receivesRefreshToken(clientSecretId: string | null, scopes: readonly string[]): boolean {
  return clientSecretId !== null || scopes.includes('offline_access');
}

/** Stores a new refresh token and returns it in clear (the only time it exists in clear). */
export async function issueRefreshToken(store: Store, input: NewRefreshToken, now = Date.now()): Promise<string> {
  const token = newSecret('trt');
  await store.refresh_tokens.insert({
    id: newId(),
    token_hash: hashSecret(token),
    user_id: input.userId,
    application_id: input.applicationId,
    grant_id: input.grantId,
    client_secret_id: input.clientSecretId,
    scopes: [...input.scopes],
    auth_time: input.authTime,
    issuance_id: input.issuanceId ?? null,
    created_at: now,
    last_used_at: null,
  });
  return token;
}

/** The record of a live refresh token, or null. */
export function findRefreshToken(store: Store, token: string): Promise<RefreshTokenRecord | null> {
  return store.refresh_tokens.findOne({ token_hash: hashSecret(token) });
}

/** Records a use (the token itself does not change: "Refresh tokens do not rotate"). */
export async function touchRefreshToken(store: Store, id: string, now = Date.now()): Promise<void> {
  await store.refresh_tokens.updateOne({ id }, { set: { last_used_at: now } });
}
