/**
 * Issue 26, "Logs that keep what operators need": secrets are redacted by where they sit (an OAuth code
 * in a request's query or body, in a logged URL or form body; tokens, passwords, cookies, authorization
 * headers anywhere), while an error's `code` and a process's exit `code` are kept; no line repeats a key.
 */
import { Writable } from 'node:stream';
import * as assert from 'uvu/assert';
import { test } from '../support/uvu.js';
import { createLogger } from '../../domain/logger.js';
import { repeatedKeys } from '../support/log-lines.js';

/** A logger writing to memory, and its raw lines. */
function capture(): { logger: ReturnType<typeof createLogger>; lines: string[] } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  return { logger: createLogger({ level: 'info', name: 'test', destination }), lines };
}

const SECRETS = ['oauth-code-1', 'oauth-code-2', 'oauth-code-3', 'oauth-code-4', 'verifier-5', 'bearer-6', 'session-7', 'set-8', 'hunter2', 'client-secret-9', 'refresh-10', 'access-11', 'whsec-12'];

test('an error code and an exit code are kept [code is not a secret everywhere]', () => {
  const { logger, lines } = capture();
  logger.error({ err: Object.assign(new Error('listen EADDRINUSE: address already in use 127.0.0.1:8080'), { code: 'EADDRINUSE' }) }, 'start-up failed');
  logger.error({ worker_pid: 4242, code: 1, signal: null }, 'gateway process exited');
  logger.warn({ status: 'FAILED_PRECONDITION', errorCode: 'not_ready', code: 'not_ready' }, 'engine: refused');
  const [error, exit, refused] = lines.map((line) => JSON.parse(line) as Record<string, any>);
  assert.is(error!.err.code, 'EADDRINUSE');
  assert.match(error!.err.message, '127.0.0.1:8080');
  assert.is(exit!.code, 1);
  assert.is(refused!.code, 'not_ready');
});

test('an OAuth code in a logged URL, query, form body or JSON body is redacted, and so is every other secret', () => {
  const { logger, lines } = capture();
  logger.info({ url: 'https://app.example/callback?code=oauth-code-1&state=xyz' }, 'redirected');
  logger.info({ req: { query: { code: 'oauth-code-2', state: 'abc' }, headers: { authorization: 'Bearer bearer-6', cookie: 'threshold_session=session-7', 'set-cookie': 'threshold_session=set-8' } } }, 'request');
  logger.info({ body: 'grant_type=authorization_code&code=oauth-code-3&code_verifier=verifier-5&client_secret=client-secret-9' }, 'token request');
  logger.info({ body: { grant_type: 'authorization_code', code: 'oauth-code-4', refresh_token: 'refresh-10' } }, 'token request');
  logger.info({ password: 'hunter2', user: { access_token: 'access-11' }, endpoint: { webhook: { secret: 'whsec-12' } } }, 'secrets');
  logger.error({ err: new Error('fetch https://api.example/token?code=oauth-code-1 failed') }, 'provider call failed');
  logger.info('callback https://app.example/cb?code=oauth-code-2&state=s');
  const raw = lines.join('\n');
  for (const secret of SECRETS) assert.not.ok(raw.includes(secret), `${secret} reached the log:\n${raw}`);
  const [url, request, form, json] = lines.map((line) => JSON.parse(line) as Record<string, any>);
  assert.is(url!.url, 'https://app.example/callback?code=[redacted]&state=xyz');
  assert.equal(request!.req.query, { code: '[redacted]', state: 'abc' });
  assert.is(request!.req.headers.authorization, '[redacted]');
  assert.is(request!.req.headers['set-cookie'], '[redacted]');
  assert.is(form!.body, 'grant_type=authorization_code&code=[redacted]&code_verifier=[redacted]&client_secret=[redacted]');
  assert.is(json!.body.grant_type, 'authorization_code');
  assert.is(json!.body.code, '[redacted]');
});

test('no log line repeats a key, a child logger\'s bindings included', () => {
  const { logger, lines } = capture();
  logger.child({ role: 'gateway' }).error({ err: Object.assign(new Error('boom'), { code: 'E1' }), worker_pid: 1 }, 'failed');
  logger.info({ lived_ms: 10, code: 0 }, 'exited');
  for (const line of lines) assert.equal(repeatedKeys(line), [], line);
  assert.equal(repeatedKeys('{"pid":1,"a":{"pid":2,"b":[{"x":1},{"x":2}]},"pid":3}'), ['pid'], 'the checker sees a repeated key');
});

test.run();
