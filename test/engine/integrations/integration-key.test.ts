/**
 * Where the integration key comes from (engine/integrations/integration-key.ts) and what the
 * configuration says about providers (domain/integration-settings.ts): a key file made once beside the
 * SQLite file with mode 0600, INTEGRATION_KEY winning when set, INTEGRATION_KEY required with MONGODB_URI
 * once a provider is configured, and a provider configured only with both its id and secret.
 */
import { test } from '../../support/uvu.js';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from '../../support/stack.js';
import { loadEngineConfig } from '../../../engine/config.js';
import { loadGatewayConfig } from '../../../gateway/config.js';
import { KEY_FILE, resolveIntegrationKey } from '../../../engine/integrations/integration-key.js';
import { ConfigError } from '../../../domain/config-error.js';

const ICU = { INTERVALS_ICU_CLIENT_ID: 'id', INTERVALS_ICU_CLIENT_SECRET: 'secret' };

test('the embedded store gets a key file on first start, readable by its owner only, and the same key after', () => {
  const dataDir = tempDir();
  try {
    const config = loadEngineConfig({ DATA_DIR: dataDir, ...ICU });
    const first = resolveIntegrationKey(config)!;
    assert.is(first.length, 32);
    assert.is(fs.statSync(path.join(dataDir, KEY_FILE)).mode & 0o777, 0o600);
    assert.equal(resolveIntegrationKey(config), first);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('INTEGRATION_KEY wins over the key file, and must be base64 of 32 bytes', () => {
  const key = Buffer.alloc(32, 7);
  const config = loadEngineConfig({ DATA_DIR: ':memory:', INTEGRATION_KEY: key.toString('base64'), ...ICU });
  assert.equal(Buffer.from(resolveIntegrationKey(config)!), key);
  assert.throws(() => loadEngineConfig({ INTEGRATION_KEY: 'c2hvcnQ=' }), (error: unknown) => error instanceof ConfigError && error.message.includes('INTEGRATION_KEY'));
});

test('MONGODB_URI with a provider configured requires INTEGRATION_KEY, naming it', () => {
  assert.throws(() => loadEngineConfig({ MONGODB_URI: 'mongodb://db/threshold', ...ICU }), (error: unknown) => error instanceof ConfigError && error.message.includes('INTEGRATION_KEY must be set'));
  assert.not.throws(() => loadEngineConfig({ MONGODB_URI: 'mongodb://db/threshold' }));
});

test('a provider is configured only with both its client id and secret; its hosts default to the real ones', () => {
  assert.equal(loadGatewayConfig({ ...ICU }).configuredProviders, ['intervals_icu']);
  assert.equal(loadGatewayConfig({}).configuredProviders, []);
  assert.throws(() => loadGatewayConfig({ WAHOO_CLIENT_ID: 'only-id' }), (error: unknown) => error instanceof ConfigError && error.message.includes('WAHOO_CLIENT_ID and WAHOO_CLIENT_SECRET must be set together'));
  const engine = loadEngineConfig({ DATA_DIR: ':memory:', ...ICU, GARMIN_CLIENT_ID: 'g', GARMIN_CLIENT_SECRET: 's' });
  assert.is(engine.integrations.providers.intervals_icu!.apiBaseUrl, 'https://intervals.icu');
  assert.is(engine.integrations.providers.garmin_connect!.tokenBaseUrl, 'https://diauth.garmin.com');
});

test.run();
