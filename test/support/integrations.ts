/**
 * Connecting a user to a provider stand-in the way a person does: a portal link from the app, the
 * manage-integrations page, Connect, the provider's authorize page (the stand-in approves at once), and the
 * callback back into the service. Also the environment that points the service at the intervals.icu
 * stand-in. Used by the integration tests, the crash test and bench/backfill.
 */
import * as assert from 'uvu/assert';
import { CookieJar, csrfFrom, locationOf } from './browser-session.js';
import type { IntervalsIcuStandin } from './standins/intervals-icu.js';

export const ICU_CLIENT = { id: 'threshold-test', secret: 'icu-client-secret', webhookSecret: 'icu-webhook-secret' };

export function intervalsIcuEnv(standin: Pick<IntervalsIcuStandin, 'baseUrl'>): Record<string, string> {
  return {
    INTERVALS_ICU_CLIENT_ID: ICU_CLIENT.id,
    INTERVALS_ICU_CLIENT_SECRET: ICU_CLIENT.secret,
    INTERVALS_ICU_AUTHORIZE_URL: standin.baseUrl,
    INTERVALS_ICU_API_URL: standin.baseUrl,
    INTERVALS_ICU_WEBHOOK_SECRET: ICU_CLIENT.webhookSecret,
  };
}

/** Connects through the portal with an app token; returns the browser and where the callback sent it. */
export async function connectThroughPortal(baseUrl: string, appToken: string, provider = 'intervals_icu'): Promise<{ jar: CookieJar; landing: string | null }> {
  const session = await fetch(`${baseUrl}/api/v1/portal/sessions`, {
    method: 'POST', headers: { authorization: `Bearer ${appToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ destination: 'manage-integrations', return_url: null }),
  });
  assert.is(session.status, 200);
  const jar = new CookieJar(baseUrl);
  await jar.get(onJar(((await session.json()) as { url: string }).url));
  const page = await (await jar.get('/portal/manage-integrations')).text();
  const connect = await jar.post(`/portal/manage-integrations/${provider}/connect`, { csrf: csrfFrom(page) });
  assert.is(connect.status, 303, 'Connect sends the browser to the provider');
  const landing = await followProvider(jar, connect);
  return { jar, landing };
}

/** From our redirect to the provider: the provider's answer, then our callback; where the callback sends the browser. */
export async function followProvider(jar: CookieJar, toProvider: Response): Promise<string | null> {
  const authorize = await fetch(toProvider.headers.get('location')!, { redirect: 'manual' });
  assert.is(authorize.status, 302, 'the provider redirects back');
  const callback = await jar.get(onJar(authorize.headers.get('location')!));
  return locationOf(callback, jar.baseUrl) ?? `${callback.status}`;
}

/**
 * A URL of the service as a path on the jar's origin: links carry BASE_URL, which a test that starts the
 * service on port 0 may have set to another port (tokens minted by the CLI carry BASE_URL as their issuer).
 */
function onJar(url: string): string {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}

/** Polls `check` until it returns a value (not undefined) or the deadline passes. */
export async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
