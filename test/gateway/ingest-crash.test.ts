/**
 * "Killing the service (SIGKILL) in the middle of processing a batch of uploads and starting it again
 * ends with every source processed or failed and no duplicate activity."
 */
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import { runCli, startProcessUntil, type RunningProcess } from '../support/processes.js';
import { tempDir } from '../support/stack.js';
import { csvActivity, type SourceBody } from '../support/uploads.js';

const FILES = 10;

async function startService(env: Record<string, string>): Promise<{ service: RunningProcess; baseUrl: string }> {
  // A start-up that times out kills the service's whole process group before the test fails.
  const { running: service, line: { port } } = await startProcessUntil('dist/cli/threshold.js', env, ['serve'], (line) => line.msg === 'gateway listening');
  return { service, baseUrl: `http://127.0.0.1:${port}` };
}

async function sourceList(baseUrl: string, token: string): Promise<SourceBody[]> {
  return (await (await fetch(`${baseUrl}/api/v1/profile/sources/?limit=100`, { headers: { authorization: `Bearer ${token}` } })).json()) as SourceBody[];
}

test('a service killed mid-batch resumes on restart with every source settled and no duplicate activity', async () => {
  const dataDir = tempDir();
  const env = {
    DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', ENGINE_ADDRESS: '127.0.0.1:0', BASE_URL: 'http://localhost:8080',
    ENGINE_THREADS: '1', JOB_CONCURRENCY: '1', JOB_LEASE_MS: '1000', JOB_POLL_MS: '20', LOG_LEVEL: 'info',
  };
  let { service, baseUrl } = await startService(env);
  try {
    const user = runCli(['user', 'create', '--email', 'crash@example.com'], env);
    const token = (runCli(['token', 'mint', '--user', (user.json as { id: string }).id, '--scopes', 'activities:read activities:write'], env).json as { access_token: string }).access_token;
    const form = new FormData();
    for (let i = 0; i < FILES; i++) {
      const start = new Date(Date.UTC(2024, 3, 1 + i, 6)).toISOString();
      form.append('files', new Blob([csvActivity({ start, rows: 40_000 })]), `ride-${i}.csv`);
    }
    const response = await fetch(`${baseUrl}/api/v1/activities/upload`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
    assert.is(response.status, 202);

    // Kill as soon as the first source is done while others are still processing.
    const deadline = Date.now() + 60_000;
    let sources = await sourceList(baseUrl, token);
    while (!sources.some((source) => source.status === 'processed') && Date.now() < deadline) sources = await sourceList(baseUrl, token);
    assert.ok(sources.some((source) => source.status === 'processing'), 'killed while work was in flight');
    await service.stop('SIGKILL');

    ({ service, baseUrl } = await startService(env));
    do {
      sources = await sourceList(baseUrl, token);
      if (Date.now() > deadline) throw new Error(`sources still processing: ${JSON.stringify(sources.map((source) => source.status))}`);
    } while (sources.some((source) => source.status === 'processing'));

    assert.is(sources.length, FILES);
    assert.ok(sources.every((source) => source.status === 'processed' && source.activity_ids.length === 1), JSON.stringify(sources));
    const activities = (await (await fetch(`${baseUrl}/api/v1/activities/?limit=100`, { headers: { authorization: `Bearer ${token}` } })).json()) as { id: string; source_id: string }[];
    assert.is(activities.length, FILES, 'one activity per file, none twice');
    assert.is(new Set(activities.map((activity) => activity.source_id)).size, FILES);
    assert.equal(activities.map((activity) => activity.id).sort(), sources.map((source) => source.activity_ids[0]).sort());
  } finally {
    await service.kill();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
