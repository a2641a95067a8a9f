/**
 * OpenID Connect ID tokens and the user claims they share with userinfo (AUTH.md "minting"; interface §5
 * "Scopes": openid → sub, profile → name claims, email → email).
 *
 * An ID token is an RS256 JWT signed with the current key, header `typ: JWT` — so the resource server,
 * which requires `typ: at+jwt`, never takes it for an access token. It lives as long as an access token.
 * It carries `nonce` only when the authorization request had one, so a refresh yields an ID token
 * without it. Kept honest by test/gateway/oidc.test.ts.
 */
import { SignJWT } from 'jose';
import type { UserRecord } from '../../storage/store.js';
import { ACCESS_TOKEN_TTL_S, type SigningKeys } from './signing-keys.js';
import { displayName } from '../presenters/user.js';

export const ID_TOKEN_TTL_S = ACCESS_TOKEN_TTL_S;

/** Every claim an ID token or userinfo may carry; discovery lists exactly these. */
export const CLAIMS = [
  'iss', 'sub', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'name', 'given_name', 'family_name', 'email', 'registered_at',
] as const;

export interface UserClaims {
  /** gaps.md Userinfo: "name (never null)". */
  name?: string;
  given_name?: string;
  family_name?: string;
  email?: string;
}

/** "First Last" when known, else the part of the email before @, else "Athlete". */
/**
 * The name and email claims a token with `scopes` may see. `email` only with the email scope and never
 * on a delegated token (interface §5: "userinfo works on a delegated token and returns the athlete's id
 * and name, never the email"). No name claim at all without profile, on userinfo too (issue 23).
 */
export function userClaims(user: UserRecord, scopes: ReadonlySet<string>, options: { delegated: boolean }): UserClaims {
  const claims: UserClaims = {};
  // "profile: name claims: name, given_name, family_name"
  if (scopes.has('profile')) {
    claims.name = displayName(user, { revealEmail: mayShowEmail(scopes, options) });
    if (user.first_name) claims.given_name = user.first_name;
    if (user.last_name) claims.family_name = user.last_name;
  }
  // "email: email claim on userinfo"
  if (mayShowEmail(scopes, options) && user.email) claims.email = user.email;
  return claims;
}

/** The email (and so its local part as a name) only with the email scope, never on a delegated token. */
export function mayShowEmail(scopes: ReadonlySet<string>, options: { delegated: boolean }): boolean {
  return scopes.has('email') && !options.delegated;
}

export interface IdTokenRequest {
  issuer: string;
  user: UserRecord;
  /** The client id: the ID token's audience. */
  clientId: string;
  scopes: readonly string[];
  /** The authorization request's nonce; null on a refresh or when none was sent. */
  nonce: string | null;
  /** When the user signed in, epoch ms. */
  authTime: number;
  now?: number;
}

export async function mintIdToken(keys: SigningKeys, request: IdTokenRequest): Promise<string> {
  const { kid, privateKey } = keys.current();
  const now = Math.floor((request.now ?? Date.now()) / 1000);
  const claims: Record<string, unknown> = {
    auth_time: Math.floor(request.authTime / 1000),
    ...userClaims(request.user, new Set(request.scopes), { delegated: false }),
  };
  if (request.nonce !== null) claims.nonce = request.nonce;
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid })
    .setIssuer(request.issuer)
    .setSubject(request.user.id)
    .setAudience(request.clientId)
    .setIssuedAt(now)
    .setExpirationTime(now + ID_TOKEN_TTL_S)
    .sign(privateKey);
}
