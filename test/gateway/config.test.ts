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
  assert.is(loadGatewayConfig({ BASE_URL: 'https://threshold.example/', PAGES_BASE: 'https://pages.example' }).baseUrl, 'https://threshold.example');
});

test('ENGINE_ADDRESS takes one host:port, a list of them, an ipv4:/ipv6: list or a dns: target', () => {
  for (const target of ['engine:50051', 'engine-1:50051,engine-2:50051', '10.0.0.5:50051, [fd00::6]:50051', 'ipv4:10.0.0.5:50051,10.0.0.6:50051', 'ipv6:[fd00::5]:50051', 'dns:///engines.internal:50051', 'dns://10.0.0.2:53/engines:50051', 'dns:engines:50051']) {
    assert.is(loadGatewayConfig({ ENGINE_ADDRESS: target, ENGINE_TOKEN: 'b1946ac92492d2347c6235b4d2611184' }).engineAddress, target);
  }
});

test('ENGINE_ADDRESS: a malformed target is refused with what is wrong', () => {
  const problem = (target: string): string => {
    try {
      loadGatewayConfig({ ENGINE_ADDRESS: target });
    } catch (error) {
      return (error as ConfigError).problems.join('\n');
    }
    return assert.unreachable(`'${target}' was accepted`) as never;
  };
  assert.match(problem('engine-1:50051,engine-2'), "every entry of a list is host:port with a port from 1 to 65535 (got 'engine-2')");
  assert.match(problem('engine-1:50051,engine-2:0'), "(got 'engine-2:0')");
  assert.match(problem('engine-1:50051,engine-1:50051'), 'lists an engine twice');
  assert.match(problem('dns:///engines'), 'a dns: target names one host and its port');
  assert.match(problem('ipv4:engine:50051'), "ipv4: takes ipv4 addresses with ports, like 10.0.0.5:50051 (got 'engine:50051')");
  assert.match(problem('ipv6:10.0.0.5:50051'), 'ipv6: takes ipv6 addresses');
  assert.match(problem('unix:/run/engine.sock'), 'unsupported scheme');
  assert.match(problem('xds:///engines'), 'unsupported scheme');
});

test('refuses to call an engine beyond loopback without a token or with the published example one [exposed engine]', () => {
  const problems = (env: Record<string, string>): string[] => {
    try {
      loadGatewayConfig(env);
    } catch (error) {
      return (error as ConfigError).problems;
    }
    return [];
  };
  for (const target of ['engine:50051', '127.0.0.1:50051,10.0.0.6:50051', 'ipv6:[fd00::5]:50051', 'dns:///engines.internal:50051']) {
    assert.equal(problems({ ENGINE_ADDRESS: target }), [
      `ENGINE_TOKEN must be set when the engine is reached at ${target} (beyond loopback): without it, anyone who reaches the engine acts as any user (generate one: openssl rand -hex 32)`,
    ]);
    assert.equal(problems({ ENGINE_ADDRESS: target, ENGINE_TOKEN: 'change-me-to-a-long-random-secret' }).length, 1, `${target}: the published example`);
    assert.match(problems({ ENGINE_ADDRESS: target, ENGINE_TOKEN: 'change-me-to-a-long-random-secret' })[0]!, "must not be the published example 'change-me-to-a-long-random-secret'");
  }
  for (const target of ['127.0.0.1:50051', 'localhost:50051,[::1]:50052', 'ipv4:127.0.0.1:50051', 'dns:///localhost:50051']) {
    assert.is(loadGatewayConfig({ ENGINE_ADDRESS: target }).engineToken, null, `${target}: loopback, the token stays optional`);
  }
  assert.equal(problems({ ENGINE_TOKEN: 'has space' }), ['ENGINE_TOKEN must be printable ASCII without spaces'], 'the engine refuses it too');
});

test.run();
