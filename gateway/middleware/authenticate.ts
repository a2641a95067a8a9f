/**
 * Authentication as a resource server. The token comes from `Authorization: Bearer …` or, for
 * browser apps, the `token` cookie (gaps.md: a state-changing request with the cookie needs a
 * same-origin `Origin`). Tokens in the query string are never read. The `refreshed-token` header is
 * accepted and ignored. The verified principal lands on `ctx.state.auth`. A token seen before skips its
 * signature check (auth/verified-tokens.ts), never the revocation checks.
 */
import type { Context, Next } from 'koa';
import type { Store } from '../../storage/store.js';
import { ForbiddenError, UnauthorizedError } from '../errors.js';
import { InvalidTokenError, verifyAccessToken, type Principal } from '../auth/access-tokens.js';
import type { SigningKeys } from '../auth/signing-keys.js';
import type { Scope } from '../auth/scopes.js';
import { credentialCookie } from '../auth/credential-cookies.js';
import { VerifiedTokens } from '../auth/verified-tokens.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function authenticate(context: { keys: SigningKeys; issuer: string; store: Store }) {
  const origin = new URL(context.issuer).origin;
  const verifying = { ...context, verified: new VerifiedTokens<Principal>() };
  return async function authenticateRequest(ctx: Context, next: Next): Promise<void> {
    const token = bearerToken(ctx) ?? cookieToken(ctx, origin);
    if (token === null) throw new UnauthorizedError('Not authenticated');
    try {
      ctx.state.auth = await verifyAccessToken(token, verifying);
    } catch (error) {
      if (error instanceof InvalidTokenError) throw new UnauthorizedError(error.message, { invalidToken: true });
      throw error;
    }
    await next();
  };
}

function bearerToken(ctx: Context): string | null {
  const header = ctx.get('authorization');
  if (!header) return null;
  const match = /^Bearer[ ]+([A-Za-z0-9._~+/-]+=*)\s*$/i.exec(header);
  if (!match) throw new UnauthorizedError('Malformed Authorization header', { invalidToken: true });
  return match[1]!;
}

function cookieToken(ctx: Context, origin: string): string | null {
  const token = credentialCookie(ctx, 'token');
  if (!token) return null;
  if (!SAFE_METHODS.has(ctx.method) && ctx.get('origin') !== origin) {
    throw new ForbiddenError('Cookie authentication requires a same-origin request');
  }
  return token;
}

/** 403 naming the scope when the token lacks it. */
export function requireScope(scope: Scope) {
  return async function requireScopeMiddleware(ctx: Context, next: Next): Promise<void> {
    if (!ctx.state.auth?.scopes.has(scope)) throw ForbiddenError.missingScope(scope);
    await next();
  };
}

/** 403 for a delegated token: the route acts as the signed-in user only. */
export async function refuseDelegated(ctx: Context, next: Next): Promise<void> {
  if (ctx.state.auth?.actorId) throw new ForbiddenError('This endpoint does not accept a delegated token');
  await next();
}
