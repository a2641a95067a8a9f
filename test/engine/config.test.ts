import { availableParallelism } from 'node:os';
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { ConfigError } from '../../domain/config-error.js';
import { ENGINE_DEFAULTS, WEBHOOK_DEFAULTS, loadEngineConfig } from '../../engine/config.js';

/** A token of the operator's own, as an engine listening beyond loopback requires. */
const TOKEN = 'b1946ac92492d2347c6235b4d2611184';

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadEngineConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  assert.unreachable('expected a ConfigError');
  return [];
}

test('reads a provider app\'s request budget as <calls>/<window> pairs, and names a bad one', () => {
  assert.equal(loadEngineConfig({}).providerBudgets, {}, 'unset: the documented budgets apply');
  assert.equal(loadEngineConfig({ WAHOO_REQUEST_BUDGET: '25/5m, 100/1h,250/1d' }).providerBudgets, {
    wahoo: [{ limit: 25, windowMs: 300_000 }, { limit: 100, windowMs: 3_600_000 }, { limit: 250, windowMs: 86_400_000 }],
  });
  const problems = problemsOf({ GARMIN_REQUEST_BUDGET: '100 per minute', INTERVALS_ICU_REQUEST_BUDGET: '0/1d' });
  assert.is(problems.length, 2);
  assert.match(problems[0]!, /^GARMIN_REQUEST_BUDGET must be <calls>\/<window> pairs .*'100 per minute'/);
  assert.match(problems[1]!, /^INTERVALS_ICU_REQUEST_BUDGET must be/);
});

test('runs on loopback with one thread per core, no token and info logs by default', () => {
  const config = loadEngineConfig({});
  assert.is(config.engineAddress, '127.0.0.1:50051');
  assert.is(config.engineThreads, availableParallelism());
  assert.is(config.engineToken, null);
  assert.is(config.logLevel, 'info');
  assert.is(config.store.mongodbUri, null);
  assert.equal({ ...ENGINE_DEFAULTS }, { engineAddress: '127.0.0.1:50051', engineThreads: availableParallelism(), engineToken: null, logLevel: 'info', jobs: true, jobConcurrency: 2, jobLeaseMs: 30_000, jobPollMs: 500, integrationPollMs: 900_000, integrationPageSize: 200 });
});

test('reads every setting from the environment', () => {
  const config = loadEngineConfig({ ENGINE_ADDRESS: '[::1]:6000', ENGINE_THREADS: '3', ENGINE_TOKEN: 's3cret-token', LOG_LEVEL: 'debug', DATA_DIR: '/tmp/x' });
  assert.equal(
    { address: config.engineAddress, threads: config.engineThreads, token: config.engineToken, level: config.logLevel, dataDir: config.store.dataDir },
    { address: '[::1]:6000', threads: 3, token: 's3cret-token', level: 'debug', dataDir: '/tmp/x' },
  );
});

test('treats an empty ENGINE_TOKEN as unset', () => {
  assert.is(loadEngineConfig({ ENGINE_TOKEN: '' }).engineToken, null);
});

test('reports every problem at once, the store\'s included', () => {
  const problems = problemsOf({ ENGINE_ADDRESS: 'localhost', ENGINE_THREADS: '0', ENGINE_TOKEN: 'has space', LOG_LEVEL: 'loud', MONGODB_URI: 'http://db' });
  assert.equal(problems, [
    "ENGINE_ADDRESS must be host:port with a port from 0 to 65535 (got 'localhost')",
    "ENGINE_THREADS must be a positive integer (got '0')",
    'ENGINE_TOKEN must be printable ASCII without spaces',
    "LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got 'loud')",
    'MONGODB_URI must start with mongodb:// or mongodb+srv://',
  ]);
});

test('rejects fractional, signed and non-numeric thread counts and out-of-range ports', () => {
  for (const threads of ['2.5', '-1', 'four', '1e2']) {
    assert.equal(problemsOf({ ENGINE_THREADS: threads }), [`ENGINE_THREADS must be a positive integer (got '${threads}')`]);
  }
  assert.is(problemsOf({ ENGINE_ADDRESS: '127.0.0.1:65536' }).length, 1);
  assert.is(loadEngineConfig({ ENGINE_ADDRESS: '0.0.0.0:0', ENGINE_TOKEN: TOKEN }).engineAddress, '0.0.0.0:0');
});

test('listens on ENGINE_LISTEN_ADDRESS, required when ENGINE_ADDRESS names several engines', () => {
  assert.is(loadEngineConfig({ ENGINE_ADDRESS: '0.0.0.0:6000', ENGINE_TOKEN: TOKEN }).engineAddress, '0.0.0.0:6000', 'one host:port: both roles, as before');
  assert.is(loadEngineConfig({ ENGINE_ADDRESS: 'engine:6000', ENGINE_LISTEN_ADDRESS: '0.0.0.0:50051', ENGINE_TOKEN: TOKEN }).engineAddress, '0.0.0.0:50051');
  for (const target of ['engine-1:50051,engine-2:50051', 'dns:///engines:50051', 'ipv4:10.0.0.5:50051']) {
    assert.equal(problemsOf({ ENGINE_ADDRESS: target }), [`ENGINE_LISTEN_ADDRESS must be set (host:port) when ENGINE_ADDRESS names several engines (got '${target}')`]);
    assert.is(loadEngineConfig({ ENGINE_ADDRESS: target, ENGINE_LISTEN_ADDRESS: '0.0.0.0:50051', ENGINE_TOKEN: TOKEN }).engineAddress, '0.0.0.0:50051');
  }
  assert.equal(problemsOf({ ENGINE_LISTEN_ADDRESS: 'engine-1:50051,engine-2:50051' }), ["ENGINE_LISTEN_ADDRESS must be host:port with a port from 0 to 65535 (got 'engine-1:50051,engine-2:50051')"]);
});

test('refuses to listen beyond loopback without a token or with the published example one [exposed engine]', () => {
  for (const address of ['0.0.0.0:50051', '[::]:50051', '10.0.0.5:50051', 'engine:50051']) {
    assert.equal(problemsOf({ ENGINE_LISTEN_ADDRESS: address }), [
      `ENGINE_TOKEN must be set when the engine listens on ${address} (beyond loopback): without it, anyone who reaches the engine acts as any user (generate one: openssl rand -hex 32)`,
    ]);
    assert.equal(problemsOf({ ENGINE_ADDRESS: address, ENGINE_TOKEN: 'change-me-to-a-long-random-secret' }), [
      `ENGINE_TOKEN must not be the published example 'change-me-to-a-long-random-secret' when the engine listens on ${address} (beyond loopback): anyone can read it (generate one: openssl rand -hex 32)`,
    ]);
    assert.is(loadEngineConfig({ ENGINE_LISTEN_ADDRESS: address, ENGINE_TOKEN: TOKEN }).engineToken, TOKEN);
  }
  for (const address of ['127.0.0.1:50051', '127.8.9.10:0', '[::1]:50051', 'localhost:50051', 'engine.localhost:50051']) {
    assert.is(loadEngineConfig({ ENGINE_LISTEN_ADDRESS: address }).engineToken, null, `${address}: loopback, the token stays optional`);
  }
});

test('lists each problem on its own line in the error message', () => {
  try {
    loadEngineConfig({ ENGINE_THREADS: 'x', LOG_LEVEL: 'y' });
    assert.unreachable('expected a ConfigError');
  } catch (error) {
    assert.instance(error, ConfigError);
    assert.is(
      (error as Error).message,
      "invalid configuration:\n  - ENGINE_THREADS must be a positive integer (got 'x')\n  - LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got 'y')",
    );
  }
});

test('reads the webhook settings, with gaps.md\'s 2 s timeout by default, and reports every bad one at once', () => {
  assert.equal(loadEngineConfig({}).webhooks, { ...WEBHOOK_DEFAULTS, allowedHosts: [] });
  assert.is(WEBHOOK_DEFAULTS.timeoutMs, 2000);
  const config = loadEngineConfig({ WEBHOOK_ALLOWED_HOSTS: ' Hooks.Internal , 127.0.0.1,[::1]', WEBHOOK_CONCURRENCY: '8', WEBHOOK_RETRY_BASE_MS: '50' });
  assert.equal([config.webhooks.allowedHosts, config.webhooks.concurrency, config.webhooks.retryBaseMs], [['hooks.internal', '127.0.0.1', '::1'], 8, 50]);
  assert.equal(problemsOf({ WEBHOOK_CONCURRENCY: '0', WEBHOOK_TIMEOUT_MS: 'soon', WEBHOOK_ATTEMPT_RETENTION_DAYS: '-1' }).map((problem) => problem.split(' ')[0]), [
    'WEBHOOK_CONCURRENCY', 'WEBHOOK_TIMEOUT_MS', 'WEBHOOK_ATTEMPT_RETENTION_DAYS',
  ]);
});

test.run();
