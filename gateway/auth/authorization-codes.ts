/**
 * Authorization codes (AUTH.md "token"): 256-bit opaque values, stored as hashes, short-lived, and
 * single use by a conditional write, so of any number of parallel redemptions exactly one wins.
 * CONTRACT (filled in by the token-endpoint work): the signatures below are used by the authorize flow.
 */
import type { AuthorizationCodeRecord, Store } from '../../storage/store.js';

/** How long a code can be redeemed, milliseconds. */
export const CODE_TTL_MS = 120_000;

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
  void store; void input; void now;
  throw new Error('authorization codes: not implemented yet');
}

/** Consumes the code: the record when this call won the redemption, null when unknown, used or expired. */
export async function redeemCode(store: Store, code: string, now = Date.now()): Promise<AuthorizationCodeRecord | null> {
  void store; void code; void now;
  throw new Error('authorization codes: not implemented yet');
}
