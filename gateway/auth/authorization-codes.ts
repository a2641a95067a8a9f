/**
 * Authorization codes (AUTH.md "token"): 256-bit opaque values, stored as hashes, short-lived, and
 * single use by a conditional write, so of any number of parallel redemptions exactly one wins.
 * The token endpoint first reads a code (`findCode`, no write) to check the client, redirect URI and
 * PKCE against it, and only then consumes it (`redeemCode`): a request that fails those checks does not
 * burn the legitimate client's code. The winning write also gives the code its issuance id
 * (auth/issuances.ts), and a used code is kept a day past its expiry, so a replay is recognised as one
 * and revokes what the first exchange issued. Kept honest by test/gateway/token-endpoint.test.ts
 * ("redeems a code once even when ten requests race for it", "refuses an expired code", "a replayed code …").
 */
import type { AuthorizationCodeRecord, Store } from '../../storage/store.js';
import { sometimesSweep } from './sweep.js';
import { newId } from '../../storage/ids.js';
import { hashSecret, newSecret } from './secrets.js';

/** How long a code can be redeemed, milliseconds. */
export const CODE_TTL_MS = 120_000;
/** How long a code is kept after it expires, milliseconds, so that a replay is still recognised: a day. */
export const CODE_KEPT_MS = 24 * 60 * 60_000;

export interface NewCode {
  userId: string;
  applicationId: string;
  grantId: string;
  /** The redirect URI exactly as the authorization request sent it. */
  redirectUri: string;
  scopes: readonly string[];
  /** PKCE S256 challenge, already validated. */
  codeChallenge: string | null;
  nonce: string | null;
  /** When the user signed in, epoch ms. */
  authTime: number;
}

/** Stores a new code and returns it in clear (the only time it exists in clear). */
export async function issueCode(store: Store, input: NewCode, now = Date.now()): Promise<string> {
  const code = newSecret('tac');
  await store.authorization_codes.insert({
    id: newId(),
    code_hash: hashSecret(code),
    user_id: input.userId,
    application_id: input.applicationId,
    grant_id: input.grantId,
    redirect_uri: input.redirectUri,
    scopes: [...input.scopes],
    code_challenge: input.codeChallenge,
    nonce: input.nonce,
    auth_time: input.authTime,
    expires_at: now + CODE_TTL_MS,
    consumed_at: null,
    issuance_id: null,
    created_at: now,
  });
  await sometimesSweep(store.authorization_codes, now, CODE_KEPT_MS);
  return code;
}

/** A known code: `usable` (unconsumed, unexpired) or already `used` (presenting it again is a replay). */
export type FoundCode = { state: 'usable' | 'used'; record: AuthorizationCodeRecord };

/** The code's record without consuming it; null when unknown, or expired without ever being used. */
export async function findCode(store: Store, code: string, now = Date.now()): Promise<FoundCode | null> {
  const record = await store.authorization_codes.findOne({ code_hash: hashSecret(code) });
  if (!record) return null;
  if (record.consumed_at !== null) return { state: 'used', record };
  return record.expires_at > now ? { state: 'usable', record } : null;
}

/** Consumes the code: the record when this call won the redemption, null when unknown, used or expired. */
export async function redeemCode(store: Store, code: string, now = Date.now()): Promise<AuthorizationCodeRecord | null> {
  // "codes are single use by a conditional write (parallel redemptions: exactly one wins)"
  const record = await store.authorization_codes.updateOne(
    { code_hash: hashSecret(code), consumed_at: null },
    { set: { consumed_at: now, issuance_id: newId() } },
  );
  if (!record) return null;
  // An expired code is burnt as well: it can never be redeemed later.
  return record.expires_at > now ? record : null;
}
