/**
 * Provider credentials sealed at rest. A connection's OAuth tokens are stored only as an AES-256-GCM
 * envelope `{v: 1, iv, tag, data}` (base64) under the operator's integration key, so a copy of the
 * database (a backup, a MongoDB dump) holds no usable provider token. The key never lives in the
 * store: it comes from INTEGRATION_KEY or a key file beside the embedded database (see the engine's
 * config). Tampering, a wrong key or a truncated envelope is an error, never garbage tokens.
 *
 * Deliberately not here: fetching or refreshing tokens (each provider's client does that).
 * test/engine/integrations/credentials.test.ts keeps it honest.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { JsonObject } from '../../storage/records.js';

/** What a provider's token endpoint granted, normalised. Times are Unix milliseconds. */
export interface ProviderTokens {
  access_token: string;
  refresh_token: string | null;
  /** When the access token stops working; null for tokens that last until revoked (intervals.icu). */
  expires_at: number | null;
  /** When the refresh token stops working, when the provider says so (Garmin). */
  refresh_expires_at: number | null;
  /** The scope or permissions the user granted, as the provider spells them. */
  scope: string | null;
}

export const INTEGRATION_KEY_BYTES = 32;
const VERSION = 1;
const IV_BYTES = 12;

export class CredentialsError extends Error {}

export function sealCredentials(key: Uint8Array, tokens: ProviderTokens): JsonObject {
  assertKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const data = Buffer.concat([cipher.update(JSON.stringify(tokens), 'utf8'), cipher.final()]);
  return { v: VERSION, iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
}

export function openCredentials(key: Uint8Array, sealed: JsonObject): ProviderTokens {
  assertKey(key);
  const { v, iv, tag, data } = sealed;
  if (v !== VERSION || typeof iv !== 'string' || typeof tag !== 'string' || typeof data !== 'string') {
    throw new CredentialsError('credentials: not a sealed envelope');
  }
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    const plain = Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]);
    return JSON.parse(plain.toString('utf8')) as ProviderTokens;
  } catch {
    throw new CredentialsError('credentials: the envelope does not open with this integration key');
  }
}

function assertKey(key: Uint8Array): void {
  if (key.length !== INTEGRATION_KEY_BYTES) throw new CredentialsError(`credentials: the integration key must be ${INTEGRATION_KEY_BYTES} bytes`);
}
