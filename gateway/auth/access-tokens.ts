/**
 * Access tokens (AUTH.md "minting" and "resource server"): RS256 JWTs with `typ: at+jwt`, living
 * 15 minutes (only `threshold token mint --expires-in` asks for longer). Verification pins the
 * algorithm, the type and the issuer, refuses key-carrying headers (`jku`, `x5u`, `jwk`, `x5c`), looks
 * the `kid` up only in our own key ring, and then checks that what the token stands on is still live:
 * the user, and for app tokens the application, the user's grant and the client secret it was issued
 * under, and that its issuance (claim `iid`, auth/issuances.ts) was not revoked by a replayed code —
 * read from the grant, so no lookup is added. Revoking any of them ends the token at once. A delegated
 * token (`act.sub`, auth/delegation.ts) also stands on its delegation basis: the managed relation, or
 * the team authorization and the actor's membership; losing it ends the token at once as well.
 *
 * Revoking a grant ends its tokens for good: an app token names the grant it was issued under (claim
 * `gid`; for a delegated token the actor's) and the grant is loaded by that id, so consenting to the
 * app again (a new grant, a new id) does not revive it. An app token without `gid` is refused, with no
 * fallback to the user's current grant: that would keep the hole open for tokens minted with
 * `threshold token mint --expires-in` (up to 30 days). Kept honest by test/gateway/resource-server.test.ts
 * and the revoke-then-consent-again tests of token-endpoint, authorize, delegation and test/cli.
 */
import { randomBytes } from 'node:crypto';
import { SignJWT, decodeProtectedHeader, jwtVerify, errors as joseErrors } from 'jose';
import type { Store } from '../../storage/store.js';
import { ACCESS_TOKEN_TTL_S, type SigningKeys } from './signing-keys.js';
import { splitScopes } from './scopes.js';
import { delegationHolds } from './delegation.js';
import { isRevokedIssuance } from './issuances.js';
import type { Verified, VerifiedTokens } from './verified-tokens.js';

/** Who a verified token speaks for. */
export interface Principal {
  userId: string;
  /** The application the token was issued to; null for a personal token. */
  applicationId: string | null;
  /**
   * For an app token: the grant it was issued under (claim `gid`), the actor's for a delegated token;
   * null for a personal token.
   */
  grantId: string | null;
  scopes: ReadonlySet<string>;
  /** The client secret the token was issued under, when any. */
  clientSecretId: string | null;
  /** The code exchange the token descends from (claim `iid`, auth/issuances.ts); null for tokens not issued through a code. */
  issuanceId: string | null;
  /** For a delegated token: the user who minted it (RFC 8693 `act.sub`). */
  actorId: string | null;
  /** For a token delegated through a team: the team id. */
  org: string | null;
  /**
   * For a delegated token: the scopes of the token it was minted from (private claim `principal_scope`),
   * the ceiling of GET /api/v1/oauth/principal-token; null otherwise.
   */
  mintingScopes: ReadonlySet<string> | null;
  tokenId: string;
  expiresAt: number;
}

export interface MintRequest {
  issuer: string;
  userId: string;
  applicationId?: string | null;
  /**
   * The grant an app token is issued under (claim `gid`): required with `applicationId`, never without.
   * For a delegated token, the actor's grant.
   */
  grantId?: string | null;
  scopes: readonly string[];
  clientSecretId?: string | null;
  /** The code exchange the token descends from, carried on by refreshes, delegated and principal tokens. */
  issuanceId?: string | null;
  actorId?: string | null;
  org?: string | null;
  /** With `actorId`: the minting token's scopes, recorded so the principal token is never wider. */
  mintingScopes?: readonly string[] | null;
  /**
   * Lifetime in seconds; omitted means ACCESS_TOKEN_TTL_S (15 minutes), what every OAuth endpoint
   * issues. Only `threshold token mint --expires-in` asks for another. Verification does not bound
   * it: a retired signing key stops verifying 15 minutes (plus 30 s) after `keys rotate`, whatever
   * the token's `exp`.
   */
  lifetimeS?: number;
  now?: number;
}

export interface MintedToken {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
}

const FORBIDDEN_HEADERS = ['jku', 'x5u', 'jwk', 'x5c', 'crit'];

export async function mintAccessToken(keys: SigningKeys, request: MintRequest): Promise<MintedToken> {
  const { kid, privateKey } = keys.current();
  const now = Math.floor((request.now ?? Date.now()) / 1000);
  const lifetimeS = request.lifetimeS ?? ACCESS_TOKEN_TTL_S;
  if (!Number.isSafeInteger(lifetimeS) || lifetimeS <= 0) throw new RangeError(`access token: lifetime must be a positive whole number of seconds, got ${lifetimeS}`);
  if (Boolean(request.applicationId) !== Boolean(request.grantId)) {
    throw new RangeError('access token: an app token names the grant it is issued under, and a personal token names none');
  }
  const claims: Record<string, unknown> = { scope: request.scopes.join(' ') };
  if (request.applicationId) claims.client_id = request.applicationId;
  if (request.grantId) claims.gid = request.grantId;
  if (request.clientSecretId) claims.cs = request.clientSecretId;
  if (request.issuanceId) claims.iid = request.issuanceId;
  if (request.actorId) claims.act = { sub: request.actorId };
  if (request.org) claims.org = request.org;
  if (request.actorId && request.mintingScopes) claims.principal_scope = request.mintingScopes.join(' ');
  let jwt = new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid })
    .setIssuer(request.issuer)
    .setSubject(request.userId)
    .setIssuedAt(now)
    .setExpirationTime(now + lifetimeS)
    .setJti(randomBytes(16).toString('base64url'));
  if (request.applicationId) jwt = jwt.setAudience(request.applicationId);
  return { access_token: await jwt.sign(privateKey), token_type: 'Bearer', expires_in: lifetimeS };
}

/** Why a token was refused; the message is safe to show (it never echoes the token). */
export class InvalidTokenError extends Error {}

/**
 * The principal a token speaks for, once it is verified and what it stands on is live. With `verified`, a
 * token verified before (same signing key, not expired) skips the signature and claim checks; the liveness
 * checks run on every call (auth/verified-tokens.ts).
 */
export async function verifyAccessToken(
  token: string,
  context: { keys: SigningKeys; issuer: string; store: Store; verified?: VerifiedTokens<Principal> },
): Promise<Principal> {
  const cached = context.verified?.get(token, Date.now());
  let principal: Principal;
  if (cached !== undefined && (await context.keys.verificationKey(cached.kid)) === cached.key) {
    principal = { ...cached.principal };
  } else {
    const verified = await verifySignedToken(token, context);
    // A token with `nbf` is not kept: the cache checks only `exp`.
    if (context.verified && !verified.notBefore) context.verified.set(token, verified);
    principal = { ...verified.principal };
  }
  await assertLive(principal, context.store);
  return principal;
}

/** The signature, header and claim checks of a token: what it says, and the key that verified it. */
async function verifySignedToken(token: string, context: { keys: SigningKeys; issuer: string }): Promise<Verified<Principal> & { notBefore: boolean }> {
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(token);
  } catch {
    throw new InvalidTokenError('Malformed access token');
  }
  if (header.alg !== 'RS256') throw new InvalidTokenError('Unsupported token algorithm');
  if (header.typ !== 'at+jwt') throw new InvalidTokenError('Not an access token');
  if (FORBIDDEN_HEADERS.some((name) => name in header)) throw new InvalidTokenError('Unsupported token header');
  const key = typeof header.kid === 'string' ? await context.keys.verificationKey(header.kid) : null;
  if (!key) throw new InvalidTokenError('Unknown signing key');

  let payload: Awaited<ReturnType<typeof jwtVerify>>['payload'];
  try {
    ({ payload } = await jwtVerify(token, key, {
      algorithms: ['RS256'],
      typ: 'at+jwt',
      issuer: context.issuer,
      requiredClaims: ['sub', 'exp', 'iat', 'jti', 'scope'],
    }));
  } catch (error) {
    if (error instanceof joseErrors.JWTExpired) throw new InvalidTokenError('Access token expired');
    throw new InvalidTokenError('Invalid access token');
  }

  const applicationId = typeof payload.client_id === 'string' ? payload.client_id : null;
  if (applicationId !== null && payload.aud !== applicationId) throw new InvalidTokenError('Invalid access token audience');
  if (applicationId === null && payload.aud !== undefined) throw new InvalidTokenError('Invalid access token audience');
  // An app token stands on the grant it names; a personal token on none.
  const grantId = typeof payload.gid === 'string' ? payload.gid : null;
  if (applicationId !== null && grantId === null) throw new InvalidTokenError('Access token does not name its grant');
  if (applicationId === null && payload.gid !== undefined) throw new InvalidTokenError('Invalid access token');
  if (typeof payload.scope !== 'string') throw new InvalidTokenError('Invalid access token');
  const act = payload.act as { sub?: unknown } | undefined;
  if (act !== undefined && (typeof act !== 'object' || act === null || typeof act.sub !== 'string')) throw new InvalidTokenError('Invalid access token');
  const principal: Principal = {
    userId: payload.sub!,
    applicationId,
    grantId,
    scopes: new Set(splitScopes(payload.scope)),
    clientSecretId: typeof payload.cs === 'string' ? payload.cs : null,
    issuanceId: typeof payload.iid === 'string' ? payload.iid : null,
    actorId: act && typeof act.sub === 'string' ? act.sub : null,
    org: typeof payload.org === 'string' ? payload.org : null,
    mintingScopes: act && typeof payload.principal_scope === 'string' ? new Set(splitScopes(payload.principal_scope)) : null,
    tokenId: payload.jti!,
    expiresAt: payload.exp! * 1000,
  };
  return { principal, kid: header.kid as string, key, notBefore: payload.nbf !== undefined };
}

/**
 * The user, application, grant and client secret behind a token must all still exist; the grant is the
 * very one the token was issued under (a later grant to the same app, after a revocation, is another),
 * and a delegated token's grant is the actor's (they consented, not the subject); its delegation must
 * still hold.
 */
async function assertLive(principal: Principal, store: Store): Promise<void> {
  const grantHolder = principal.actorId ?? principal.userId;
  const [user, grant, secret, delegated] = await Promise.all([
    store.users.get(principal.userId),
    principal.grantId ? store.grants.get(principal.grantId) : null,
    principal.clientSecretId ? store.client_secrets.get(principal.clientSecretId) : null,
    principal.actorId ? delegationHolds(store, { ...principal, actorId: principal.actorId }) : true,
  ]);
  if (!user) throw new InvalidTokenError('Access token revoked');
  if (principal.applicationId && (!grant || grant.user_id !== grantHolder || grant.application_id !== principal.applicationId)) {
    throw new InvalidTokenError('Access token revoked');
  }
  // RFC 6749 §4.1.2: the tokens of a replayed code are revoked, and the grant already read says which.
  if (grant && isRevokedIssuance(grant, principal.issuanceId)) throw new InvalidTokenError('Access token revoked');
  if (principal.clientSecretId && (!secret || secret.application_id !== principal.applicationId)) {
    throw new InvalidTokenError('Access token revoked');
  }
  if (!delegated) throw new InvalidTokenError('Access token revoked');
}
