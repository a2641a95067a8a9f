/**
 * The edge between the provider clients and the integration framework: a ProviderCallError becomes the
 * framework's RateLimited (with the provider's retry time), AuthorizationRevoked (the user must reconnect)
 * or ProviderError (retried, then reported). `not_permitted` and `rejected` have no class of their own in
 * provider.ts yet; they become ProviderError with their status, so the framework retries a few times and
 * then reports them — the adapters catch the cases where retrying is pointless (Garmin's backfill 403).
 */
import type { Provider } from '../../domain/providers.js';
import { ProviderCallError } from './provider-call-error.js';
import { AuthorizationRevoked, ProviderError, RateLimited } from './provider.js';

export function frameworkErrorOf(error: unknown, daily = false): unknown {
  if (!(error instanceof ProviderCallError)) return error;
  const provider: Provider = error.provider;
  switch (error.kind) {
    case 'rate_limited':
      return new RateLimited(provider, error.retryAt, daily);
    case 'unauthorized':
      return new AuthorizationRevoked(provider, error.message);
    default:
      return new ProviderError(provider, error.message, error.status);
  }
}

/** Runs a client call and rethrows its failure as the framework's error. */
export async function translated<T>(work: () => Promise<T>, daily: () => boolean = () => false): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw frameworkErrorOf(error, error instanceof ProviderCallError && error.kind === 'rate_limited' && daily());
  }
}
