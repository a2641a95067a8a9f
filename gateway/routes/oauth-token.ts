/**
 * The token endpoint (interface §5 "Endpoints of the flow", §7 "Token endpoint failure"; gaps.md
 * "Authentication details", "Token endpoint alias") and userinfo (gaps.md "Paths the interface leaves
 * out"). The endpoint speaks RFC 6749 only: form bodies in, `{error, error_description}` out, never the
 * gateway's 422 or `{detail}` shapes, and `Cache-Control: no-store` on every answer.
 *
 * A token request is these steps: refuse a limited caller, read the form, check grant_type, read and
 * verify the client, run the grant, issue. Every failure counts against the caller's address
 * (`deps.limits.tokenFailures`). No step logs or echoes a secret, code or token.
 * Kept honest by test/gateway/token-endpoint.test.ts and test/gateway/oidc.test.ts.
 */
import type { Context } from 'koa';
import { z } from 'zod';
import { named } from '../schemas/components.js';
import type { RouteTable } from '../route-table.js';
import type { GatewayDeps } from '../deps.js';
import type { UserRecord } from '../../storage/store.js';
import { OAuthError, UnauthorizedError } from '../errors.js';
import { mintAccessToken, type Principal } from '../auth/access-tokens.js';
import { findCode, redeemCode } from '../auth/authorization-codes.js';
import { isRevokedIssuance, issuanceStillLive, revokeIssuance } from '../auth/issuances.js';
import { clientAuthenticationFailed, readClientCredentials, verifyClient, type AuthenticatedClient, type TokenParams } from '../auth/client-auth.js';
import { mintIdToken, userClaims } from '../auth/id-tokens.js';
import { verifierProblem, verifyPkce } from '../auth/pkce.js';
import { findRefreshToken, issueRefreshToken, receivesRefreshToken, touchRefreshToken } from '../auth/refresh-tokens.js';
import { splitScopes } from '../auth/scopes.js';
import { clientAddress } from '../auth/rate-limit.js';
import { parseFormOnly } from '../middleware/parse-body.js';

/** Largest token request body, bytes; the default parser's 1 MB is far more than any token request needs. */
export const MAX_TOKEN_BODY_BYTES = 16 * 1024;
/** The token endpoint and its alias (gaps.md: "`POST /oauth/token` behaves as `/api/v1/oauth/token`"). */
const TOKEN_PATHS = ['/api/v1/oauth/token', '/oauth/token'];

/** Form bodies only, at most MAX_TOKEN_BODY_BYTES; a refusal is an RFC 6749 error like every other answer here. */
const parseTokenForm = parseFormOnly(MAX_TOKEN_BODY_BYTES, (status) => new OAuthError(
  'invalid_request', status === 413 ? `request body larger than ${MAX_TOKEN_BODY_BYTES} bytes` : 'the body is not a valid urlencoded form', {}, status,
));

/** AUTH.md: "`authorization_code` and `refresh_token` only". */
const GRANT_TYPES = ['authorization_code', 'refresh_token'] as const;
type GrantType = (typeof GRANT_TYPES)[number];

/** Parameters a description may name (anything else is an unknown name, never quoted back). */
const KNOWN_PARAMS = new Set(['grant_type', 'code', 'redirect_uri', 'code_verifier', 'refresh_token', 'scope', 'client_id', 'client_secret']);

const TokenForm = z.object({
  grant_type: z.enum(GRANT_TYPES),
  code: z.string().optional().describe('authorization_code: the code from the redirect'),
  redirect_uri: z.string().optional().describe('authorization_code: optional; must equal the authorization request\'s when given'),
  code_verifier: z.string().optional().describe('authorization_code: the PKCE verifier, required when the flow started with a code_challenge'),
  refresh_token: z.string().optional().describe('refresh_token: the refresh token (it does not rotate)'),
  scope: z.string().optional().describe('refresh_token: optional narrowing of the refresh token\'s scopes'),
  client_id: z.string().optional().describe('the application id (or HTTP Basic)'),
  client_secret: z.string().optional().describe('a client secret (or HTTP Basic); refused with PKCE'),
});
const TokenResponse = named('TokenResponse', z.object({
  access_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int(),
  scope: z.string(),
  refresh_token: z.string().optional(),
  id_token: z.string().optional(),
}));
const OAuthErrorBody = named('OAuthError', z.object({ error: z.string(), error_description: z.string() }));
const Userinfo = named('Userinfo', z.object({
  sub: z.string().describe('The user id (the token holds openid, which userinfo needs)'),
  name: z.string().optional().describe('With the profile scope: never null, "Athlete" when nothing else is known'),
  registered_at: z.string(),
  given_name: z.string().optional(),
  family_name: z.string().optional(),
  email: z.string().optional(),
}));

type TokenResponseBody = z.infer<typeof TokenResponse>;

export function oauthTokenRoutes(table: RouteTable, deps: GatewayDeps): void {
  const token = tokenEndpoint(deps);
  table.add(
    {
      method: 'post', path: TOKEN_PATHS[0]!, operationId: 'oauthToken', summary: 'Token endpoint (RFC 6749): authorization_code and refresh_token grants', tag: 'oauth',
      auth: 'none', clientAuth: true, body: TokenForm, bodyMediaType: 'application/x-www-form-urlencoded', selfValidated: true, parseBody: parseTokenForm,
      responses: {
        200: { description: 'Tokens', schema: TokenResponse },
        400: { description: 'RFC 6749 §5.2 error', schema: OAuthErrorBody },
        401: { description: 'invalid_client', schema: OAuthErrorBody },
        413: { description: `Body larger than ${MAX_TOKEN_BODY_BYTES} bytes`, schema: OAuthErrorBody },
        429: { description: 'Too many failed requests; see Retry-After (integer seconds)', schema: OAuthErrorBody },
      },
    },
    token,
  );
  // gaps.md: "`POST /oauth/token` behaves as `/api/v1/oauth/token`" — the same handler, documented once.
  table.page({ method: 'post', path: TOKEN_PATHS[1]!, name: 'oauthTokenAlias', parseBody: parseTokenForm }, token);

  for (const method of ['get', 'post'] as const) {
    table.add(
      {
        method, path: '/api/v1/oauth/userinfo', operationId: method === 'get' ? 'userinfo' : 'userinfoPost', summary: 'OpenID Connect userinfo', tag: 'oauth',
        // "openid: sub on userinfo": a token without it is refused (403 naming openid), so sub never
        // leaves without it. Delegated tokens always hold it ("openid and profile ride with every grant").
        auth: 'bearer', scope: 'openid',
        responses: {
          200: { description: 'Claims about the token\'s user: names with profile, email with email', schema: Userinfo },
          403: { description: 'The token lacks openid' },
        },
      },
      async function userinfo(ctx) {
        const principal = ctx.state.auth as Principal;
        const user = await deps.store.users.get(principal.userId);
        if (!user) throw new UnauthorizedError('Access token revoked', { invalidToken: true });
        ctx.set('Cache-Control', 'no-store');
        ctx.body = presentUserinfo(user, principal);
      },
    );
  }
}

/**
 * gaps.md: `{sub, name (never null), registered_at, given_name?, family_name?, email? (only with the email
 * scope)}`, with interface §5 "Scopes" deciding what each claim needs: "openid: sub on userinfo" (the
 * route requires it), "profile: name claims: name, given_name, family_name" — so without profile no
 * name at all — and "email: email claim on userinfo".
 */
function presentUserinfo(user: UserRecord, principal: Principal): z.infer<typeof Userinfo> {
  // "userinfo works on a delegated token and returns the athlete's id and name, never the email"
  const claims = userClaims(user, principal.scopes, { delegated: principal.actorId !== null });
  return { sub: user.id, ...claims, registered_at: new Date(user.registered_at).toISOString() };
}

function tokenEndpoint(deps: GatewayDeps) {
  const limiter = deps.limits.tokenFailures;
  return async function oauthToken(ctx: Context): Promise<void> {
    // RFC 6749 §5.1: "Cache-Control: no-store" and "Pragma: no-cache" — on errors too.
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Pragma', 'no-cache');
    // Failures count per client address. Not per client id alone: anyone could then lock a public
    // client out by naming it; guessing a 256-bit secret or code is hopeless anyway.
    const limitKey = `ip:${clientAddress(ctx)}`;
    try {
      refuseWhenLimited(await limiter.retryAfter(limitKey));
      const params = readTokenForm(ctx);
      const grantType = readGrantType(params);
      const credentials = readClientCredentials(ctx.get('authorization'), params);
      const client = await verifyClient(deps.store, credentials);
      ctx.body = grantType === 'authorization_code' ? await exchangeCode(deps, client, params) : await exchangeRefreshToken(deps, client, params);
      ctx.status = 200;
    } catch (error) {
      // Every failed token request counts; the error writer answers it in RFC 6749's shape.
      if (error instanceof OAuthError && error.status !== 429) await limiter.record(limitKey);
      throw error;
    }
  };
}

/** AUTH.md: "429 with integer `Retry-After` on repeated failures"; the body stays RFC 6749-shaped. */
function refuseWhenLimited(retryAfterSeconds: number | null): void {
  if (retryAfterSeconds === null) return;
  const seconds = Math.max(1, Math.trunc(retryAfterSeconds));
  throw new OAuthError('invalid_request', `too many failed requests; retry after ${seconds} seconds`, { 'Retry-After': String(seconds) }, 429);
}

/** The form, size-checked first; a repeated parameter is refused (RFC 6749 §3.2: "MUST NOT be included more than once"). */
function readTokenForm(ctx: Context): TokenParams {
  const tooLarge = new OAuthError('invalid_request', `request body larger than ${MAX_TOKEN_BODY_BYTES} bytes`, {}, 413);
  const declared = Number(ctx.get('content-length') || '0');
  if (!Number.isFinite(declared) || declared > MAX_TOKEN_BODY_BYTES) throw tooLarge;
  if (!ctx.is('application/x-www-form-urlencoded')) throw new OAuthError('invalid_request', 'the body must be application/x-www-form-urlencoded');
  // The body parser keeps the raw text; it is re-read here so repeats are seen (its parser merges them into arrays).
  const raw = ctx.request.rawBody ?? '';
  if (Buffer.byteLength(raw, 'utf8') > MAX_TOKEN_BODY_BYTES) throw tooLarge;
  const params = new Map<string, string>();
  const seen = new Set<string>();
  for (const [name, value] of new URLSearchParams(raw)) {
    if (seen.has(name)) throw new OAuthError('invalid_request', KNOWN_PARAMS.has(name) ? `parameter ${name} is repeated` : 'a parameter is repeated');
    seen.add(name);
    // RFC 6749 §3.2: "Parameters sent without a value MUST be treated as if they were omitted".
    if (value !== '') params.set(name, value);
  }
  return params;
}

function readGrantType(params: TokenParams): GrantType {
  const grantType = params.get('grant_type');
  if (grantType === undefined) throw new OAuthError('invalid_request', 'grant_type is required');
  if (!(GRANT_TYPES as readonly string[]).includes(grantType)) {
    throw new OAuthError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
  }
  return grantType as GrantType;
}

/** grant_type=authorization_code: check the code against the client, redirect URI and PKCE, then consume it. */
async function exchangeCode(deps: GatewayDeps, client: AuthenticatedClient, params: TokenParams): Promise<TokenResponseBody> {
  const code = params.get('code');
  if (code === undefined) throw new OAuthError('invalid_request', 'code is required');
  const unusable = new OAuthError('invalid_grant', 'the authorization code is invalid, expired or already used');
  const found = await findCode(deps.store, code);
  if (!found) throw unusable;
  if (found.state === 'used') {
    // RFC 6749 §4.1.2: "If an authorization code is used more than once, the authorization server MUST
    // deny the request and SHOULD revoke (when possible) all tokens previously issued based on that
    // authorization code." Its issuance only: the grant and the user's other sessions stay.
    if (found.record.issuance_id) await revokeIssuance(deps.store, found.record.grant_id, found.record.issuance_id);
    throw unusable;
  }
  const record = found.record;
  if (record.application_id !== client.application.id) throw new OAuthError('invalid_grant', 'the authorization code was issued to another client');
  // gaps.md: "`redirect_uri` is optional at code exchange (must match when given)" — a [client] fact:
  // existing clients omit it, so it is not required as RFC 6749 §4.1.3 would have it. Kept by the test
  // "accepts a code exchange without redirect_uri, for existing clients that omit it".
  const redirectUri = params.get('redirect_uri');
  if (redirectUri !== undefined && redirectUri !== record.redirect_uri) {
    throw new OAuthError('invalid_grant', 'redirect_uri does not match the authorization request');
  }
  checkPkce(record.code_challenge, params.get('code_verifier'), client);
  const [grant, user] = await Promise.all([deps.store.grants.get(record.grant_id), deps.store.users.get(record.user_id)]);
  // "revoking the grant before redemption makes the code worthless"
  if (!grant || grant.user_id !== record.user_id || grant.application_id !== record.application_id || !user) {
    throw new OAuthError('invalid_grant', 'the authorization behind this code was revoked');
  }
  // The conditional write decides between racing requests: exactly one gets the record.
  const won = await redeemCode(deps.store, code);
  if (!won?.issuance_id) throw unusable;
  const issuanceId = won.issuance_id;
  const clientSecretId = client.secret?.id ?? null;
  const refreshToken = receivesRefreshToken(clientSecretId, won.scopes)
    ? await issueRefreshToken(deps.store, {
        userId: user.id, applicationId: won.application_id, grantId: won.grant_id, clientSecretId, scopes: won.scopes, authTime: won.auth_time, issuanceId,
      })
    : null;
  // A replay racing this exchange may have revoked the issuance before the refresh token existed.
  if (!(await issuanceStillLive(deps.store, won.grant_id, issuanceId))) throw unusable;
  return issueTokens(deps, {
    user, clientId: won.application_id, grantId: won.grant_id, scopes: won.scopes, clientSecretId, issuanceId, nonce: won.nonce, authTime: won.auth_time, refreshToken,
  });
}

/**
 * Interface §5: "a flow started with a challenge must finish with its code_verifier, a client secret is
 * then rejected"; a flow without one needs the secret ("a client without a secret must use PKCE").
 * - A secret on a PKCE flow is the wrong way for this client to authenticate here: 401 invalid_client
 *   (with a Basic challenge after Basic), as a flow without PKCE and without a secret is.
 * - A missing verifier on a code with a challenge: invalid_grant, since the grant is what is wrong
 *   (the code cannot be redeemed without it), as a verifier that does not match is (RFC 7636 §4.6).
 * - A malformed verifier stays invalid_request (the request's syntax is wrong).
 * - A verifier on a code without a challenge is a downgrade attempt: invalid_grant.
 * Every refusal here comes before the code is consumed, so it stays usable by the rightful request.
 */
function checkPkce(challenge: string | null, verifier: string | undefined, client: AuthenticatedClient): void {
  if (challenge === null) {
    if (verifier !== undefined) throw new OAuthError('invalid_grant', 'code_verifier sent, but the authorization request had no code_challenge');
    if (!client.secret) throw clientAuthenticationFailed(client.basic, 'a client secret is required for a flow without PKCE');
    return;
  }
  if (client.secret) throw clientAuthenticationFailed(client.basic, 'a flow started with a code_challenge is finished with its code_verifier, not a client secret');
  if (verifier === undefined) throw new OAuthError('invalid_grant', 'code_verifier is required: the authorization request had a code_challenge');
  const problem = verifierProblem(verifier);
  if (problem !== null) throw new OAuthError('invalid_request', problem);
  if (!verifyPkce(verifier!, challenge)) throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge');
}

/** grant_type=refresh_token: the same token keeps working ("Refresh tokens do not rotate"). */
async function exchangeRefreshToken(deps: GatewayDeps, client: AuthenticatedClient, params: TokenParams): Promise<TokenResponseBody> {
  const presented = params.get('refresh_token');
  if (presented === undefined) throw new OAuthError('invalid_request', 'refresh_token is required');
  const revoked = new OAuthError('invalid_grant', 'the refresh token is invalid or was revoked');
  const record = await findRefreshToken(deps.store, presented);
  if (!record || record.application_id !== client.application.id) throw revoked;
  // A token issued under a secret is used with a live secret of its application (verifyClient checked
  // the secret belongs to it); a PKCE-issued token needs only the client id.
  if (record.client_secret_id !== null && !client.secret) {
    throw clientAuthenticationFailed(client.basic, 'this refresh token was issued to a client with a secret: authenticate with one');
  }
  const [grant, user, boundSecret] = await Promise.all([
    deps.store.grants.get(record.grant_id),
    deps.store.users.get(record.user_id),
    record.client_secret_id !== null ? deps.store.client_secrets.get(record.client_secret_id) : null,
  ]);
  // "until the user revokes the app, the secret it was issued under is deleted, or the user is deleted",
  // or (RFC 6749 §4.1.2) the code it was issued from is replayed.
  if (!grant || !user || (record.client_secret_id !== null && !boundSecret) || isRevokedIssuance(grant, record.issuance_id)) throw revoked;
  const scopes = narrowScopes(record.scopes, params.get('scope'));
  await touchRefreshToken(deps.store, record.id);
  return issueTokens(deps, {
    user, clientId: record.application_id, grantId: record.grant_id, scopes, clientSecretId: record.client_secret_id, issuanceId: record.issuance_id ?? null,
    nonce: null, authTime: record.auth_time, refreshToken: presented,
  });
}

/** RFC 6749 §6: the requested scope "MUST NOT include any scope not originally granted"; it may narrow. */
function narrowScopes(granted: readonly string[], requested: string | undefined): string[] {
  if (requested === undefined) return [...granted];
  const asked = new Set(splitScopes(requested));
  if (asked.size === 0) return [...granted];
  if ([...asked].some((scope) => !granted.includes(scope))) {
    throw new OAuthError('invalid_scope', 'scope may only narrow the scopes of the refresh token');
  }
  return granted.filter((scope) => asked.has(scope));
}

interface Issuance {
  user: UserRecord;
  clientId: string;
  /** The grant the tokens are issued under (claim `gid`). */
  grantId: string;
  scopes: readonly string[];
  clientSecretId: string | null;
  /** The code exchange the tokens descend from (auth/issuances.ts). */
  issuanceId: string | null;
  nonce: string | null;
  authTime: number;
  refreshToken: string | null;
}

/** gaps.md: "`token_type: "Bearer"` exactly, `expires_in: 900`, `scope`, `refresh_token` per the issuance rules, `id_token` with `openid`". */
async function issueTokens(deps: GatewayDeps, issuance: Issuance): Promise<TokenResponseBody> {
  const issuer = deps.config.baseUrl;
  const minted = await mintAccessToken(deps.keys, {
    issuer, userId: issuance.user.id, applicationId: issuance.clientId, grantId: issuance.grantId, scopes: issuance.scopes,
    clientSecretId: issuance.clientSecretId, issuanceId: issuance.issuanceId,
  });
  const body: TokenResponseBody = { access_token: minted.access_token, token_type: 'Bearer', expires_in: minted.expires_in, scope: issuance.scopes.join(' ') };
  if (issuance.refreshToken !== null) body.refresh_token = issuance.refreshToken;
  if (issuance.scopes.includes('openid')) {
    body.id_token = await mintIdToken(deps.keys, {
      issuer, user: issuance.user, clientId: issuance.clientId, scopes: issuance.scopes, nonce: issuance.nonce, authTime: issuance.authTime,
    });
  }
  return body;
}
