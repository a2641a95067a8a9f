/**
 * One HTTP call to a provider, with the answers every adapter maps the same way: 429 → RateLimited (with
 * the provider's `Retry-After` or reset header when it sends one), 401/403 → AuthorizationRevoked,
 * another non-2xx → ProviderError. 404/410 are returned to the caller (a file that is gone is not an
 * error of the connection). Each call has a timeout so a hung provider never holds a job forever.
 *
 * Deliberately not here: retrying (the job framework reschedules), token refresh (connections.ts).
 */
import { gunzipSync } from 'node:zlib';
import type { Provider } from '../../domain/providers.js';
import { AuthorizationRevoked, ProviderError, RateLimited, retryAtFrom } from './provider.js';

/** How long one provider call may take, milliseconds. */
export const PROVIDER_TIMEOUT_MS = 30_000;

export async function providerFetch(provider: Provider, url: string, init: RequestInit = {}, options: { allowMissing?: boolean } = {}): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: init.signal ?? AbortSignal.timeout(PROVIDER_TIMEOUT_MS) });
  } catch (error) {
    throw new ProviderError(provider, `${init.method ?? 'GET'} ${new URL(url).pathname}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (response.ok) return response;
  if (options.allowMissing && (response.status === 404 || response.status === 410)) return response;
  const detail = (await response.text().catch(() => '')).slice(0, 200);
  if (response.status === 429) throw new RateLimited(provider, retryAtFrom(response.headers, Date.now()));
  if (response.status === 401 || response.status === 403) throw new AuthorizationRevoked(provider, `${response.status} ${detail}`);
  throw new ProviderError(provider, `${init.method ?? 'GET'} ${new URL(url).pathname} answered ${response.status} ${detail}`, response.status);
}

/** Gunzips bytes that start with the gzip magic (1f 8b); others are returned as they are. */
export function maybeGunzip(bytes: Uint8Array): Uint8Array {
  if (bytes.length < 2 || bytes[0] !== 0x1f || bytes[1] !== 0x8b) return bytes;
  return new Uint8Array(gunzipSync(bytes));
}
