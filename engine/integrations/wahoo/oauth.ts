/**
 * Wahoo's OAuth 2.0 (providers.md §3, [WAH-doc]): consent URL (PKCE S256 for a public app), code exchange
 * and refresh at `POST /oauth/token` with the parameters in the query string, as Wahoo's docs show them.
 * Access tokens last 2 h. A refresh returns a new pair; the old pair keeps working until the new access
 * token is first used, so the caller saves the new pair before using it. From 2026-01-01 a user may hold
 * at most 10 unrevoked tokens per app; beyond that the token endpoint refuses (`too_many_tokens`: the user
 * must revoke access in Wahoo and connect again). Kept honest by test/engine/integrations/wahoo-tokens.test.ts.
 */
import type { ProviderTokens } from '../credentials.js';
import { ProviderCallError } from '../provider-call-error.js';
import { failure, readJson, send, TOKEN_ANSWER_MAX_BYTES, type HttpContext } from '../provider-http.js';
import { wahooUrl, type WahooApp } from './endpoints.js';

export function wahooAuthorizeUrl(app: WahooApp, request: { redirectUri: string; state: string; challenge?: string }): string {
  const url = new URL(wahooUrl(app, '/oauth/authorize'));
  url.searchParams.set('client_id', app.clientId);
  url.searchParams.set('redirect_uri', request.redirectUri);
  url.searchParams.set('scope', app.scopes);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('state', request.state);
  if (request.challenge) {
    url.searchParams.set('code_challenge', request.challenge);
    url.searchParams.set('code_challenge_method', 'S256');
  }
  return url.toString();
}

export function exchangeWahooCode(context: HttpContext, app: WahooApp, grant: { code: string; redirectUri: string; verifier?: string }): Promise<ProviderTokens> {
  if (app.clientSecret === null && !grant.verifier) throw new ProviderCallError('wahoo', 'rejected', 'wahoo: a public app must send a PKCE verifier');
  return tokenRequest(context, app, 'code exchange', { grant_type: 'authorization_code', code: grant.code, redirect_uri: grant.redirectUri, code_verifier: grant.verifier });
}

export function refreshWahooTokens(context: HttpContext, app: WahooApp, refreshToken: string): Promise<ProviderTokens> {
  return tokenRequest(context, app, 'token refresh', { grant_type: 'refresh_token', refresh_token: refreshToken });
}

/**
 * The 10-unrevoked-tokens refusal. assume: Wahoo documents the limit but not the answer's shape; we
 * recognise a 4xx whose body mentions too many / unrevoked tokens.
 */
export function isTooManyTokens(status: number, body: string): boolean {
  return status >= 400 && status < 500 && /too[ _]many|unrevoked/i.test(body);
}

async function tokenRequest(context: HttpContext, app: WahooApp, what: string, fields: Record<string, string | undefined>): Promise<ProviderTokens> {
  const url = new URL(wahooUrl(app, '/oauth/token'));
  const params: Record<string, string | undefined> = { ...fields, client_id: app.clientId, client_secret: app.clientSecret ?? undefined };
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  const response = await send(context, url.toString(), { method: 'POST', headers: { accept: 'application/json' } });
  if (!response.ok) {
    // A refused code or refresh token (400 invalid_grant, 401) means the user must connect again.
    const refused = await failure(context, response, `wahoo ${what}`, { 400: 'unauthorized' });
    if (isTooManyTokens(response.status, refused.message)) {
      throw new ProviderCallError('wahoo', 'unauthorized', 'wahoo: too many unrevoked tokens for this user (10 per app); the user must revoke access in Wahoo and connect again', response.status);
    }
    throw refused;
  }
  const reply = (await readJson(context, response, `wahoo ${what}`, { maxBytes: TOKEN_ANSWER_MAX_BYTES })) as Record<string, unknown> | null;
  const { access_token, refresh_token, expires_in, scope } = reply ?? {};
  if (typeof access_token !== 'string' || typeof refresh_token !== 'string') {
    throw new ProviderCallError('wahoo', 'unavailable', `wahoo ${what}: the answer lacks access_token or refresh_token`);
  }
  const lifetime = typeof expires_in === 'number' ? expires_in : 7200; // "Access token 2 h" [WAH-doc]
  return { access_token, refresh_token, expires_at: context.now() + lifetime * 1000, refresh_expires_at: null, scope: typeof scope === 'string' ? scope : null };
}
