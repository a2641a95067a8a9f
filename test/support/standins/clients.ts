/**
 * Our provider clients wired to a stand-in, as the tests use them: the HTTP context follows the
 * stand-in's fake clock, jitter is pinned to 0, and `authorize` walks the consent redirect the way a
 * browser would (the stand-in consents at once for the user set by `approveAs`).
 */
import type { Provider } from '../../../domain/providers.js';
import type { HttpContext } from '../../../engine/integrations/provider-http.js';
import type { FakeClock } from './standin-core.js';

export function contextFor(provider: Provider, clock: FakeClock, floorMs = 60_000): HttpContext {
  return { provider, fetch: globalThis.fetch, now: clock.now, timeoutMs: 10_000, rateLimitFloorMs: floorMs, random: () => 0 };
}

/** Follows a consent URL like a browser and returns the `code` and `state` on the redirect back. */
export async function authorize(consentUrl: string): Promise<{ code: string; state: string | null }> {
  const response = await fetch(consentUrl, { redirect: 'manual' });
  const location = response.headers.get('location');
  if (response.status !== 302 || !location) throw new Error(`consent: expected a redirect, got ${response.status} ${await response.text()}`);
  const back = new URL(location);
  const code = back.searchParams.get('code');
  if (!code) throw new Error(`consent: no code in ${location}`);
  return { code, state: back.searchParams.get('state') };
}
