/**
 * The browser side of a provider authorization. The engine stores the OAuth `state` bound to a
 * `binding`; here the binding is a random value in an HttpOnly cookie set when the authorization starts
 * (Path=/, `__Host-` on https: auth/credential-cookies.ts; SameSite=Lax so the provider's top-level redirect
 * back carries it), so a callback
 * completes only in the browser that started it: a `state` copied to another browser is refused.
 * Used by the portal's Connect button, by authorize's `integration` hand-off and by the sign-in through a
 * provider; the callback route is
 * gateway/routes/integrations.ts. test/gateway/integrations.test.ts keeps it honest.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import type { Provider } from '../../domain/providers.js';
import { ServiceCookie } from '../auth/credential-cookies.js';
import type { GatewayDeps } from '../deps.js';

const COOKIE_TTL_S = 10 * 60; // as the engine's AUTHORIZATION_TTL_MS

function bindingCookie(baseUrl: string): ServiceCookie {
  return new ServiceCookie('threshold_provider_auth', baseUrl);
}

/** Our callback, as registered with the provider: `<BASE_URL>/integrations/<provider>/callback`. */
export function providerCallbackUrl(baseUrl: string, provider: Provider): string {
  return `${baseUrl}/integrations/${provider}/callback`;
}

/**
 * Starts an authorization for `userId` and sends the browser to the provider. `userId` null: the person
 * signs in through the provider (the callback learns which account).
 */
export async function startProviderAuthorization(ctx: Context, deps: GatewayDeps, input: { userId: string | null; provider: Provider; returnTo: string }): Promise<void> {
  const browser = randomBytes(24).toString('base64url');
  const url = await deps.engine.beginProviderConnection({
    user_id: input.userId ?? '', sign_in: input.userId === null, provider: input.provider, redirect_uri: providerCallbackUrl(deps.config.baseUrl, input.provider),
    binding: bindingOf(browser), return_to: input.returnTo,
  });
  bindingCookie(deps.config.baseUrl).write(ctx, browser, COOKIE_TTL_S * 1000);
  ctx.status = 303;
  ctx.redirect(url);
  ctx.set('Cache-Control', 'no-store');
}

/** This browser's binding, or null when it carries no (or a repeated) authorization cookie. */
export function browserBinding(ctx: Context, baseUrl: string): string | null {
  const value = bindingCookie(baseUrl).read(ctx);
  return value && /^[A-Za-z0-9_-]{32}$/.test(value) ? bindingOf(value) : null;
}

function bindingOf(browser: string): string {
  return createHash('sha256').update(browser).digest('hex');
}
