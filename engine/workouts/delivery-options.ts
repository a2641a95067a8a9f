/**
 * What workout delivery needs from outside the engine: each provider's API base URL, and the access
 * token of a connection. The token comes through a port, `accessTokenFor(connection)`, because token
 * storage and refresh belong to the integrations: engine/server.ts wires it to their `tokensFor`
 * (unsealed, refreshed when due) for the configured providers. Without a configured provider deliveries
 * are refused with reason `not_configured`. Tests may pass `sealedAccessToken(key)` (no refresh).
 */
import type { SpendBudget } from '../integrations/provider-budget.js';
import type { ConnectionRecord } from '../../storage/records.js';
import type { Provider } from '../../domain/providers.js';
import { openCredentials } from '../integrations/credentials.js';
import { DeliveryRefused } from './delivery-refused.js';
import { PROVIDER_TIMEOUT_MS } from '../integrations/provider-http.js';

export interface WorkoutDeliveryOptions {
  /** API base URL per provider (stand-ins in tests). */
  apiBaseUrls: Readonly<Record<Provider, string>>;
  accessTokenFor(connection: ConnectionRecord): Promise<string>;
  fetch: typeof fetch;
  /** Each call's deadline for the status line and the body, milliseconds (PROVIDER_TIMEOUT_MS; shorter in tests). */
  timeoutMs: number;
  /** The shared request budget every delivery call spends from first (integrations/provider-budget.ts); none: unmetered. */
  spend?: SpendBudget;
}

/** The providers' production API hosts (providers.md). */
export const PROVIDER_API_BASE_URLS: Readonly<Record<Provider, string>> = {
  garmin_connect: 'https://apis.garmin.com',
  intervals_icu: 'https://intervals.icu',
  wahoo: 'https://api.wahooligan.com',
};

/** The access token sealed in the connection's credentials under `key` (credentials.ts). */
export function sealedAccessToken(key: Uint8Array): (connection: ConnectionRecord) => Promise<string> {
  return async (connection) => openCredentials(key, connection.credentials).access_token;
}

async function notConfigured(connection: ConnectionRecord): Promise<string> {
  throw new DeliveryRefused('not_configured', `${connection.provider}: provider connections are not configured on this server`);
}

export function workoutDeliveryOptions(overrides: Partial<WorkoutDeliveryOptions> = {}): WorkoutDeliveryOptions {
  return {
    apiBaseUrls: { ...PROVIDER_API_BASE_URLS, ...overrides.apiBaseUrls },
    accessTokenFor: overrides.accessTokenFor ?? notConfigured,
    fetch: overrides.fetch ?? fetch,
    timeoutMs: overrides.timeoutMs ?? PROVIDER_TIMEOUT_MS,
    ...(overrides.spend && { spend: overrides.spend }),
  };
}
