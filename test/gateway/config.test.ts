import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { loadGatewayConfig } from '../../gateway/config.js';
import { ConfigError } from '../../domain/config-error.js';

test('uses the documented defaults when nothing is set', () => {
  const config = loadGatewayConfig({});
  assert.is(config.port, 8080);
  assert.is(config.baseUrl, 'http://localhost:8080');
  assert.is(config.engineAddress, '127.0.0.1:50051');
  assert.is(config.store.dataDir, './data');
  assert.is(config.store.mongodbUri, null);
  assert.is(config.logLevel, 'info');
});

test('reports every configuration problem at once', () => {
  try {
    loadGatewayConfig({ PORT: 'eighty', BASE_URL: 'ftp://x', ENGINE_ADDRESS: 'nowhere', LOG_LEVEL: 'loud', MONGODB_URI: 'postgres://x' });
    assert.unreachable('should have thrown');
  } catch (error) {
    assert.instance(error, ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    for (const name of ['PORT', 'BASE_URL', 'ENGINE_ADDRESS', 'LOG_LEVEL', 'MONGODB_URI']) assert.match(problems, name);
  }
});

test('strips a trailing slash from BASE_URL so the issuer is exact', () => {
  assert.is(loadGatewayConfig({ BASE_URL: 'https://threshold.example/' }).baseUrl, 'https://threshold.example');
});

test.run();
