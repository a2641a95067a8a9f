/**
 * What a provider call can fail with, sorted by what the caller does next: wait and retry
 * (`rate_limited` at `retryAt`, `unavailable` with back-off), ask the user to reconnect (`unauthorized`),
 * report without retrying (`not_permitted`, `rejected`). Every provider client throws only this (network
 * failures become `unavailable`), so the backfill job and the push handlers decide once, not per provider.
 * Deliberately no retry loop here: a job that must wait 60 s gives its slot back and is resumed later.
 * The provider adapters translate it into the framework's RateLimited / AuthorizationRevoked /
 * ProviderError (provider.ts) at their edge (`translated`); workout delivery maps it to a delivery
 * reason (engine/workouts/delivery-refused.ts `refusalOf`).
 * Kept honest by the garmin-*, wahoo-* and intervals-icu tests in test/engine/integrations/.
 */
import type { Provider } from '../../domain/providers.js';
import { AuthorizationRevoked, ProviderError, ProviderRefused, RateLimited } from './provider.js';

export type ProviderCallErrorKind =
  /** 429 or our own throttle: retry at `retryAt` (Unix ms), or with back-off when it is null. */
  | 'rate_limited'
  /** 5xx, timeout, connection refused: retry with back-off (a 503's `Retry-After` is kept in `retryAt`). */
  | 'unavailable'
  /** The token is dead (revoked, expired refresh token, deregistered user): the user must reconnect. */
  | 'unauthorized'
  /** The user did not grant what this call needs (Garmin 403 without HISTORICAL_DATA_EXPORT, 412). Report, never retry. */
  | 'not_permitted'
  /** Any other 4xx: our request is wrong or the provider refuses it for good. Report, never retry. */
  | 'rejected';

export class ProviderCallError extends Error {
  constructor(
    readonly provider: Provider,
    readonly kind: ProviderCallErrorKind,
    message: string,
    /** The HTTP status, or null when no answer came. */
    readonly status: number | null = null,
    /** The earliest Unix ms at which to try again: for `rate_limited`, and a 503 that named one. Null: back off. */
    readonly retryAt: number | null = null,
  ) {
    super(message);
    this.name = 'ProviderCallError';
  }

  get retryable(): boolean {
    return this.kind === 'rate_limited' || this.kind === 'unavailable';
  }
}

/**
 * A ProviderCallError as the integration framework's error: `rate_limited` → RateLimited (with the
 * provider's retry time), `unauthorized` → AuthorizationRevoked (the user must reconnect), anything else
 * `not_permitted` and `rejected` → ProviderRefused (reported at once, never retried), anything else →
 * ProviderError with its status. The adapters still catch the refusals that mean something of their own
 * (Garmin's backfill 403: history withheld). Other errors pass through.
 */
export function frameworkErrorOf(error: unknown, daily = false): unknown {
  if (!(error instanceof ProviderCallError)) return error;
  // The framework's classes name the provider themselves.
  const prefix = `${error.provider}: `;
  const detail = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
  switch (error.kind) {
    case 'rate_limited':
      // Our own budget spent (provider-budget.ts) waits in the queue until the window resets, as a daily quota does.
      return new RateLimited(error.provider, error.retryAt, daily || error.name === 'BudgetSpent');
    case 'unauthorized':
      return new AuthorizationRevoked(error.provider, detail);
    case 'not_permitted':
    case 'rejected':
      return new ProviderRefused(error.provider, detail, error.status);
    default:
      return new ProviderError(error.provider, detail, error.status);
  }
}

/** Runs a client call and rethrows its failure as the framework's error; `daily` says whether a 429 spent a daily quota. */
export async function translated<T>(work: () => Promise<T>, daily: () => boolean = () => false): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw frameworkErrorOf(error, error instanceof ProviderCallError && error.kind === 'rate_limited' && daily());
  }
}
