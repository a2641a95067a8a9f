/**
 * What a provider call can fail with, sorted by what the caller does next: wait and retry
 * (`rate_limited` at `retryAt`, `unavailable` with back-off), ask the user to reconnect (`unauthorized`),
 * report without retrying (`not_permitted`, `rejected`). Every provider client throws only this (network
 * failures become `unavailable`), so the backfill job and the push handlers decide once, not per provider.
 * Deliberately no retry loop here: a job that must wait 60 s gives its slot back and is resumed later.
 * The Garmin and Wahoo adapters translate it into the framework's RateLimited / AuthorizationRevoked /
 * ProviderError (provider.ts) at their edge.
 * Kept honest by the garmin-* and wahoo-* tests in test/engine/integrations/.
 */
import type { Provider } from '../../domain/providers.js';

export type ProviderCallErrorKind =
  /** 429 or our own throttle: retry at `retryAt` (Unix ms). */
  | 'rate_limited'
  /** 5xx, timeout, connection refused: retry with back-off. */
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
    /** For `rate_limited`: the earliest Unix ms at which to try again. */
    readonly retryAt: number | null = null,
  ) {
    super(message);
    this.name = 'ProviderCallError';
  }

  get retryable(): boolean {
    return this.kind === 'rate_limited' || this.kind === 'unavailable';
  }
}
