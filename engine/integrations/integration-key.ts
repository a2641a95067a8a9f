/**
 * The integration key that seals provider tokens (credentials.ts): INTEGRATION_KEY when set; otherwise, on
 * the embedded store, a key file generated on first start beside the SQLite file (`integration.key`, mode
 * 0600, kept so; 32 random bytes in base64), so a local install needs no setup and a copy of the database alone
 * opens no token. With MONGODB_URI and a provider configured, config.ts already requires INTEGRATION_KEY
 * (several engines must share the key; a file on one machine would not do). An in-memory store gets a key
 * that lives as long as the process.
 *
 * test/engine/integrations/integration-key.test.ts keeps it honest.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { EngineConfig } from '../config.js';
import { makePrivateDir, tighten } from '../../storage/private-files.js';
import { INTEGRATION_KEY_BYTES } from './credentials.js';

export const KEY_FILE = 'integration.key';

export function resolveIntegrationKey(config: Pick<EngineConfig, 'integrations' | 'store'>): Uint8Array | null {
  if (config.integrations.integrationKey) return config.integrations.integrationKey;
  if (config.store.mongodbUri !== null) return null; // no provider configured (config.ts checked): nothing to seal
  if (config.store.dataDir === ':memory:') return new Uint8Array(randomBytes(INTEGRATION_KEY_BYTES));
  const file = path.join(config.store.dataDir, KEY_FILE);
  makePrivateDir(config.store.dataDir);
  try {
    // 'wx': exactly one process creates it; the others read what it wrote.
    writeFileSync(file, `${randomBytes(INTEGRATION_KEY_BYTES).toString('base64')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    tighten(file);
  }
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== INTEGRATION_KEY_BYTES) throw new Error(`integrations: ${file} does not hold a base64 key of ${INTEGRATION_KEY_BYTES} bytes`);
  return new Uint8Array(key);
}
