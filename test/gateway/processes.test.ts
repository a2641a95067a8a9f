/**
 * The service as people run it: `npm start` (one process) and `start:gateway` + `start:engine`
 * (separate processes on one store), driven through real child processes, plus the CLI.
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { csvActivity } from '../support/uploads.js';
import { startProcess, runCli } from '../support/processes.js';
import { tempDir } from '../support/stack.js';
import { REPO_ROOT } from '../support/paths.js';

const processes = suite('processes');

const listening = (line: Record<string, unknown>) => line.msg === 'gateway listening';
const storeOpened = (line: Record<string, unknown>) => line.msg === 'store opened';
const pick = (line: Record<string, unknown>, ...keys: string[]) => Object.fromEntries(keys.map((key) => [key, line[key]]));

processes('runs gateway and engine as separate processes on one store', async () => {
  const dataDir = tempDir();
  const common = { DATA_DIR: dataDir, LOG_LEVEL: 'info', ENGINE_THREADS: '1' };
  // The engine logs every call at debug level, with the request id the gateway passed in gRPC metadata.
  const engine = startProcess('dist/engine/main.js', { ...common, LOG_LEVEL: 'debug', ENGINE_ADDRESS: '127.0.0.1:0' });
  try {
    const engineLine = await engine.waitForLog((line) => typeof line.address === 'string');
    assert.equal(pick(await engine.waitForLog(storeOpened), 'backend', 'file'), { backend: 'sqlite', file: path.join(dataDir, 'threshold.sqlite') });
    const gateway = startProcess('dist/gateway/main.js', { ...common, PORT: '0', HOST: '127.0.0.1', ENGINE_ADDRESS: String(engineLine.address) });
    try {
      const { port } = await gateway.waitForLog(listening);
      assert.equal(pick(await gateway.waitForLog(storeOpened), 'backend', 'file'), { backend: 'sqlite', file: path.join(dataDir, 'threshold.sqlite') });
      const baseUrl = `http://localhost:${port}`;
      const ready = await fetch(`${baseUrl}/readyz`);
      assert.is(ready.status, 200, await ready.clone().text());
      const env = { ...common, BASE_URL: baseUrl };
      const user = runCli(['user', 'create', '--email', 'split@example.com'], env);
      assert.is(user.status, 0, user.stderr);
      const minted = runCli(['token', 'mint', '--user', (user.json as { id: string }).id, '--scopes', 'activities:read'], env);
      assert.is(minted.status, 0, minted.stderr);
      const response = await fetch(`${baseUrl}/api/v1/activities/`, { headers: { authorization: `Bearer ${(minted.json as { access_token: string }).access_token}` } });
      assert.is(response.status, 200);
      const week = await fetch(`${baseUrl}/api/v1/profile/template-week`, { headers: { authorization: `Bearer ${(minted.json as { access_token: string }).access_token}`, 'x-request-id': 'split-req-42' } });
      assert.is(week.status, 200);
      assert.is(week.headers.get('x-request-id'), 'split-req-42');
      const logged = await engine.waitForLog((line) => line.request_id === 'split-req-42');
      assert.is(logged.method, 'GetTemplateWeek', 'the engine logged the call under the HTTP request id');
      await gateway.waitForLog((line) => line.request_id === 'split-req-42' && line.path === '/api/v1/profile/template-week');
      assert.is(await gateway.stop(), 0);
    } finally {
      await gateway.stop('SIGKILL');
    }
    // With the engine gone, the gateway process would report not ready; the engine itself stops cleanly.
    assert.is(await engine.stop(), 0);
  } finally {
    await engine.stop('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

processes('npm start serves everything, says where its data lives, and keeps users, keys and data across a restart', async () => {
  const dataDir = tempDir();
  // A fixed BASE_URL keeps the issuer stable while PORT=0 picks a new port on each start; DATA_DIR is
  // given relative to the working directory, and the log names the file's absolute path.
  const env = { DATA_DIR: path.relative(REPO_ROOT, dataDir), PORT: '0', HOST: '127.0.0.1', ENGINE_ADDRESS: '127.0.0.1:0', BASE_URL: 'http://localhost:8080', ENGINE_THREADS: '1' };
  try {
    let service = startProcess('dist/cli/threshold.js', env, ['serve']);
    let { port } = await service.waitForLog(listening);
    const store = await service.waitForLog(storeOpened);
    assert.equal(pick(store, 'backend', 'file', 'level'), { backend: 'sqlite', file: path.join(dataDir, 'threshold.sqlite'), level: 30 });
    const jwksBefore = await (await fetch(`http://127.0.0.1:${port}/.well-known/jwks.json`)).json();
    const user = runCli(['user', 'create', '--email', 'restart@example.com', '--first-name', 'Ada'], env);
    assert.is(user.status, 0, user.stderr);
    const minted = runCli(['token', 'mint', '--user', (user.json as { id: string }).id, '--scopes', 'activities:read'], env);
    const token = (minted.json as { access_token: string; token_type: string; expires_in: number });
    assert.is(token.token_type, 'Bearer');
    assert.is(token.expires_in, 900);
    assert.is((await fetch(`http://127.0.0.1:${port}/api/v1/activities/`, { headers: { authorization: `Bearer ${token.access_token}` } })).status, 200);
    assert.is(await service.stop('SIGTERM'), 0);

    service = startProcess('dist/cli/threshold.js', env, ['serve']);
    ({ port } = await service.waitForLog(listening));
    try {
      assert.equal(await (await fetch(`http://127.0.0.1:${port}/.well-known/jwks.json`)).json(), jwksBefore, 'same keys after restart');
      const response = await fetch(`http://127.0.0.1:${port}/api/v1/activities/`, { headers: { authorization: `Bearer ${token.access_token}` } });
      assert.is(response.status, 200, 'the user and the token survive the restart');
      const duplicate = runCli(['user', 'create', '--email', 'RESTART@example.com'], env);
      assert.is(duplicate.status, 1, 'the stored user is still there (emails are unique, case-insensitively)');
    } finally {
      await service.stop();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

processes('npm start runs one HTTP process per core on one port; uploads wake the engine across processes; a SIGKILLed service leaves nothing running', async () => {
  const dataDir = tempDir();
  // JOB_POLL_MS of a minute: an upload is processed promptly only if its gateway process wakes the
  // primary's job runner over IPC.
  // A fixed BASE_URL: the CLI mints tokens for that issuer while PORT=0 picks the service's port.
  const env = {
    DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', BASE_URL: 'http://localhost:8080', ENGINE_ADDRESS: '127.0.0.1:0', ENGINE_THREADS: '1',
    GATEWAY_PROCESSES: '2', JOB_POLL_MS: '60000',
  };
  const service = startProcess('dist/cli/threshold.js', env, ['serve']);
  try {
    const first = await service.waitForLog(listening);
    const second = await service.waitForLog((line) => listening(line) && line.pid !== first.pid);
    assert.is(second.port, first.port, 'one port');
    const running = await service.waitForLog((line) => line.msg === 'threshold is running');
    assert.is(running.gateway_processes, 2);
    const gateways = [Number(first.pid), Number(second.pid)];
    assert.ok(!gateways.includes(Number(running.pid)), 'the engine runs in the primary, beside the HTTP processes');
    const baseUrl = `http://127.0.0.1:${first.port}`;

    // Fresh connections are handed out across the processes.
    for (let i = 0; i < 8; i++) assert.is((await fetch(`${baseUrl}/healthz`, { headers: { connection: 'close' } })).status, 200);
    const served = new Set(service.output().split('\n').filter((text) => text.includes('"path":"/healthz"')).map((text) => (JSON.parse(text) as { pid: number }).pid));
    assert.equal([...served].sort(), [...gateways].sort(), 'both processes answered');
    // One scrape, whichever process answers it, counts the requests of both (aggregated in the primary).
    const metrics = await (await fetch(`${baseUrl}/metrics`)).text();
    assert.match(metrics, 'threshold_http_request_duration_seconds_count{method="GET",route="/healthz",status="200"} 8\n');
    assert.match(metrics, 'threshold_engine_pool_threads 1\n');

    const user = runCli(['user', 'create', '--email', 'cores@example.com'], env);
    const token = (runCli(['token', 'mint', '--user', (user.json as { id: string }).id, '--scopes', 'activities:read activities:write'], env).json as { access_token: string }).access_token;
    const form = new FormData();
    form.append('files', new Blob([csvActivity({ start: '2024-05-01T05:00:00Z' })]), 'ride.csv');
    const upload = await fetch(`${baseUrl}/api/v1/activities/upload`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
    assert.is(upload.status, 202);
    const [source] = ((await upload.json()) as { sources: { id: string }[] }).sources;
    const deadline = Date.now() + 20_000;
    let status = 'processing';
    while (status === 'processing' && Date.now() < deadline) {
      status = ((await (await fetch(`${baseUrl}/api/v1/profile/sources/${source!.id}`, { headers: { authorization: `Bearer ${token}` } })).json()) as { status: string }).status;
      if (status === 'processing') await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.is(status, 'processed', 'processed long before the next poll');

    await service.stop('SIGKILL');
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    const gone = Date.now() + 10_000;
    while (gateways.some(alive) && Date.now() < gone) await new Promise((resolve) => setTimeout(resolve, 25));
    assert.equal(gateways.filter(alive), [], 'the HTTP processes end with the primary');
  } finally {
    await service.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

processes('refuses to start with a bad configuration and lists every problem', async () => {
  const service = startProcess('dist/cli/threshold.js', { PORT: 'x', ENGINE_THREADS: '0', LOG_LEVEL: 'loud' }, ['serve']);
  const code = await new Promise<number | null>((resolve) => service.child.on('exit', resolve));
  assert.is(code, 1);
  for (const name of ['PORT', 'ENGINE_THREADS', 'LOG_LEVEL']) assert.match(service.output(), name);
});

processes('creates applications with a secret shown once, and validates CLI input', async () => {
  const dataDir = tempDir();
  const env = { DATA_DIR: dataDir };
  try {
    const owner = runCli(['user', 'create', '--email', 'dev@example.com', '--password', 'correct horse battery'], env);
    const ownerId = (owner.json as { id: string }).id;
    const app = runCli(['app', 'create', '--owner', ownerId, '--name', 'My app', '--redirect-uri', 'https://app.example/cb', '--redirect-uri', 'http://127.0.0.1:7000/cb', '--secret'], env);
    assert.is(app.status, 0, app.stderr);
    const body = app.json as Record<string, unknown>;
    assert.match(String(body.client_secret), /^tsk_[A-Za-z0-9_-]{43}$/);
    assert.equal(body.redirect_uris, ['https://app.example/cb', 'http://127.0.0.1:7000/cb']);
    assert.is(body.is_private, true);
    const noUris = runCli(['app', 'create', '--owner', ownerId, '--name', 'Local'], env);
    assert.equal((noUris.json as { redirect_uris: string[]; client_secret: null }).redirect_uris, ['http://localhost']);
    assert.is((noUris.json as { client_secret: null }).client_secret, null);

    const appToken = runCli(['token', 'mint', '--user', ownerId, '--app', String(body.id), '--scopes', 'activities:read,wellness:read'], env);
    assert.is(appToken.status, 0, appToken.stderr);

    const badUri = runCli(['app', 'create', '--owner', ownerId, '--name', 'x', '--redirect-uri', 'http://evil.example/cb'], env);
    assert.is(badUri.status, 1);
    assert.match(String((badUri.json as { error: string }).error), 'plain http');
    const badScope = runCli(['token', 'mint', '--user', ownerId, '--scopes', 'activities:read everything'], env);
    assert.is(badScope.status, 2);
    assert.match(String((badScope.json as { error: string }).error), 'everything');
    const missing = runCli(['user', 'create'], env);
    assert.is(missing.status, 2);
    const shortPassword = runCli(['user', 'create', '--email', 'b@example.com', '--password', 'short'], env);
    assert.is(shortPassword.status, 1);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

processes('imports files and folders through the ingest path and summarises the outcome', async () => {
  const dataDir = tempDir();
  const folder = tempDir('threshold-import-');
  const env = { DATA_DIR: dataDir, ENGINE_THREADS: '1' };
  try {
    fs.mkdirSync(path.join(folder, 'nested'));
    fs.writeFileSync(path.join(folder, 'ride.csv'), csvActivity({ start: '2024-03-01T06:00:00Z' }));
    fs.writeFileSync(path.join(folder, 'nested', 'run.CSV'), csvActivity({ start: '2024-03-02T06:00:00Z', sport: 'running' }));
    fs.writeFileSync(path.join(folder, 'nested', 'naive.csv'), 'timestamp,sport\n2024-03-03T06:00:00,running\n');
    fs.writeFileSync(path.join(folder, 'notes.txt'), 'not an activity');
    const user = runCli(['user', 'create', '--email', 'import@example.com'], env);
    const userId = (user.json as { id: string }).id;
    const imported = runCli(['import', '--user', userId, folder], env);
    assert.is(imported.status, 0, imported.stderr);
    const summary = imported.json as { files: number; processed: number; failed: number; activities: number; sources: { file: string; error: { code: string } | null }[] };
    assert.equal([summary.files, summary.processed, summary.failed, summary.activities], [3, 2, 1, 2]);
    assert.is(summary.sources.find((source) => source.file.endsWith('naive.csv'))!.error!.code, 'csv_naive_timestamp');
    assert.match(imported.stderr, '3/3 files settled (1 failed)');
    const again = runCli(['import', '--user', userId, path.join(folder, 'ride.csv')], env);
    assert.is((again.json as { activities: number }).activities, 1, 'a file imported twice is recognised, not duplicated');
    const missing = runCli(['import', '--user', userId, path.join(folder, 'nope')], env);
    assert.is(missing.status, 1);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(folder, { recursive: true, force: true });
  }
});

processes.run();
