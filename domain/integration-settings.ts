/**
 * Provider integration settings, read from the environment by each process's config.ts through
 * `readIntegrationSettings` (as storage/config.ts does for the store). A provider is configured only when
 * both its client id and client secret are set; its base URLs default to the real provider hosts (tests
 * point them at loopback stand-ins). Every problem is pushed to `problems`.
 *
 * Variables per provider (PREFIX = GARMIN, INTERVALS_ICU, WAHOO):
 *   <PREFIX>_CLIENT_ID, <PREFIX>_CLIENT_SECRET   the app's OAuth credentials (both, or neither)
 *   <PREFIX>_AUTHORIZE_URL                       where the browser is sent to authorize
 *   <PREFIX>_API_URL                             the API (activities, files, revoke)
 *   <PREFIX>_TOKEN_URL                           the token endpoint's base (Garmin's differs from its API)
 *   INTERVALS_ICU_WEBHOOK_SECRET, WAHOO_WEBHOOK_TOKEN   what a push must carry (Garmin pushes carry no secret:
 *                                                the `garmin-client-id` header is checked against GARMIN_CLIENT_ID)
 * and INTEGRATION_KEY: base64 of 32 bytes, sealing provider tokens at rest (engine/integrations/credentials.ts).
 */
import { PROVIDERS, type Provider } from './providers.js';
import { present, type Env } from './env.js';

export interface ProviderConfig {
  clientId: string;
  clientSecret: string;
  authorizeBaseUrl: string;
  apiBaseUrl: string;
  tokenBaseUrl: string;
  pushSecret: string | null;
}

export interface IntegrationSettings {
  /** Configured providers only. */
  providers: Partial<Record<Provider, ProviderConfig>>;
  /** INTEGRATION_KEY decoded; null: the embedded store keeps a generated key file beside its database. */
  integrationKey: Uint8Array | null;
}

const PREFIX: Record<Provider, string> = { garmin_connect: 'GARMIN', intervals_icu: 'INTERVALS_ICU', wahoo: 'WAHOO' };

/** The real hosts (shared/spec/providers.md). */
export const PROVIDER_HOSTS: Record<Provider, { authorize: string; api: string; token: string }> = {
  garmin_connect: { authorize: 'https://connect.garmin.com', api: 'https://apis.garmin.com', token: 'https://diauth.garmin.com' },
  intervals_icu: { authorize: 'https://intervals.icu', api: 'https://intervals.icu', token: 'https://intervals.icu' },
  wahoo: { authorize: 'https://api.wahooligan.com', api: 'https://api.wahooligan.com', token: 'https://api.wahooligan.com' },
};

const PUSH_SECRET: Partial<Record<Provider, string>> = { intervals_icu: 'INTERVALS_ICU_WEBHOOK_SECRET', wahoo: 'WAHOO_WEBHOOK_TOKEN' };

export function readIntegrationSettings(env: Env, usesMongo: boolean, problems: string[]): IntegrationSettings {
  const providers: Partial<Record<Provider, ProviderConfig>> = {};
  for (const provider of PROVIDERS) {
    const prefix = PREFIX[provider];
    const clientId = present(env, `${prefix}_CLIENT_ID`);
    const clientSecret = present(env, `${prefix}_CLIENT_SECRET`);
    if ((clientId === undefined) !== (clientSecret === undefined)) {
      problems.push(`${prefix}_CLIENT_ID and ${prefix}_CLIENT_SECRET must be set together`);
      continue;
    }
    if (clientId === undefined || clientSecret === undefined) continue;
    const url = (name: string, fallback: string): string => {
      const value = present(env, name) ?? fallback;
      if (!/^https?:\/\/[^\s/]+(\/\S*)?$/.test(value)) problems.push(`${name} must be an http(s) URL (got '${value}')`);
      return value.replace(/\/+$/, '');
    };
    const hosts = PROVIDER_HOSTS[provider];
    const secretName = PUSH_SECRET[provider];
    const apiBaseUrl = url(`${prefix}_API_URL`, hosts.api);
    providers[provider] = {
      clientId,
      clientSecret,
      authorizeBaseUrl: url(`${prefix}_AUTHORIZE_URL`, hosts.authorize),
      apiBaseUrl,
      // Garmin's token endpoint has a host of its own; the others serve tokens beside their API.
      tokenBaseUrl: url(`${prefix}_TOKEN_URL`, provider === 'garmin_connect' ? hosts.token : apiBaseUrl),
      pushSecret: secretName ? present(env, secretName) ?? null : null,
    };
  }
  const integrationKey = readKey(env, problems);
  if (integrationKey === null && usesMongo && Object.keys(providers).length > 0) {
    problems.push('INTEGRATION_KEY must be set (base64 of 32 random bytes) when MONGODB_URI is used with a provider configured: provider tokens are sealed with it');
  }
  return { providers, integrationKey };
}

function readKey(env: Env, problems: string[]): Uint8Array | null {
  const raw = present(env, 'INTEGRATION_KEY');
  if (raw === undefined) return null;
  const bytes = /^[A-Za-z0-9+/]+={0,2}$/.test(raw) ? Buffer.from(raw, 'base64') : Buffer.alloc(0);
  if (bytes.length !== 32) {
    problems.push('INTEGRATION_KEY must be base64 of exactly 32 bytes (e.g. `openssl rand -base64 32`)');
    return null;
  }
  return new Uint8Array(bytes);
}

/** The configured providers, in PROVIDERS order. */
export function configuredProviders(settings: IntegrationSettings): Provider[] {
  return PROVIDERS.filter((provider) => settings.providers[provider] !== undefined);
}
