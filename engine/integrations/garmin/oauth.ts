/**
 * Garmin's OAuth 2.0 with PKCE (providers.md §1, [GAR-pkce]): the consent URL (S256 only), the code
 * exchange and the refresh, both as a form body to the token endpoint. Access tokens last 24 h and
 * refresh tokens ≈ 90 d; a refresh always returns a new refresh token, and we refresh at least 600 s
 * before the access token expires. Deliberately not here: storing tokens (token-keeper.ts) and deciding
 * when to refresh (client.ts). Kept honest by test/engine/integrations/garmin-oauth.test.ts.
 */
import type { ProviderTokens } from '../credentials.js';
import { ProviderCallError } from '../provider-call-error.js';
import { failure, formBody, readJson, send, TOKEN_ANSWER_MAX_BYTES, type HttpContext } from '../provider-http.js';
import { authorizeUrlOf, tokenUrlOf, type GarminApp } from './endpoints.js';

/** "Refresh ≥ 600 s before expiry" [GAR-pkce]. */
export const GARMIN_REFRESH_MARGIN_MS = 600_000;

export interface GarminConsentRequest {
  /** S256 challenge of a verifier kept until the callback (pkce.ts). */
  challenge: string;
  state: string;
  /** Optional at Garmin; when sent, the exchange must send the same. */
  redirectUri?: string;
}

export function garminAuthorizeUrl(app: GarminApp, request: GarminConsentRequest): string {
  const url = new URL(authorizeUrlOf(app.endpoints));
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', app.clientId);
  url.searchParams.set('code_challenge', request.challenge);
  url.searchParams.set('code_challenge_method', 'S256');
  if (request.redirectUri) url.searchParams.set('redirect_uri', request.redirectUri);
  url.searchParams.set('state', request.state);
  return url.toString();
}

export async function exchangeGarminCode(context: HttpContext, app: GarminApp, grant: { code: string; verifier: string; redirectUri?: string }): Promise<ProviderTokens> {
  return tokenRequest(context, app, 'code exchange', {
    grant_type: 'authorization_code',
    code: grant.code,
    code_verifier: grant.verifier,
    redirect_uri: grant.redirectUri,
  });
}

/** A new pair; the old refresh token must not be used again (assume: single use — Garmin does not say). */
export async function refreshGarminTokens(context: HttpContext, app: GarminApp, refreshToken: string): Promise<ProviderTokens> {
  return tokenRequest(context, app, 'token refresh', { grant_type: 'refresh_token', refresh_token: refreshToken });
}

export function garminNeedsRefresh(tokens: ProviderTokens, now: number): boolean {
  return tokens.expires_at !== null && tokens.expires_at - now < GARMIN_REFRESH_MARGIN_MS;
}

async function tokenRequest(context: HttpContext, app: GarminApp, what: string, fields: Record<string, string | undefined>): Promise<ProviderTokens> {
  const response = await send(context, tokenUrlOf(app.endpoints), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: formBody({ ...fields, client_id: app.clientId, client_secret: app.clientSecret }),
  });
  // A refused code or refresh token (400 invalid_grant, 401) means the user must connect again.
  if (!response.ok) throw await failure(context, response, `garmin ${what}`, { 400: 'unauthorized' });
  return garminTokensOf(context, await readJson(context, response, `garmin ${what}`, { maxBytes: TOKEN_ANSWER_MAX_BYTES }));
}

function garminTokensOf(context: HttpContext, body: unknown): ProviderTokens {
  const reply = body as Record<string, unknown>;
  const { access_token, refresh_token, expires_in, refresh_token_expires_in, scope } = reply ?? {};
  if (typeof access_token !== 'string' || typeof refresh_token !== 'string' || typeof expires_in !== 'number') {
    throw new ProviderCallError('garmin_connect', 'unavailable', 'garmin token endpoint: the answer lacks access_token, refresh_token or expires_in');
  }
  const now = context.now();
  return {
    access_token,
    refresh_token,
    expires_at: now + expires_in * 1000,
    refresh_expires_at: typeof refresh_token_expires_in === 'number' ? now + refresh_token_expires_in * 1000 : null,
    scope: typeof scope === 'string' ? scope : null,
  };
}
