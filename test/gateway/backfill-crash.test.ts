/**
 * Issue 15's done-when: "a provider stand-in test connects a user, backfills 200 activities newest first
 * while a client watches backfill-status, is killed halfway, restarts and finishes with no duplicate and no
 * gap." The service runs as a child process (`threshold serve`, as test/gateway/ingest-crash.test.ts does)
 * and is killed with SIGKILL once the watching client has seen the backfill pass the 100th activity; the
 * intervals.icu stand-in runs in this process and keeps its rate limit (10 requests/s, Retry-After).
 */
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import { runCli, startProcessUntil, type RunningProcess } from '../support/processes.js';
import { tempDir } from '../support/stack.js';
import { startIntervalsIcuStandin, type StandinActivity } from '../support/standins/intervals-icu.js';
import { connectThroughPortal, ICU_CLIENT, intervalsIcuEnv, until } from '../support/integrations.js';
import { fitActivity } from '../support/fit-writer.js';

const ACTIVITIES = 200;
const DAY = 86_400_000;

async function startService(env: Record<string, string>): Promise<{ service: RunningProcess; baseUrl: string }> {
  // A start-up that times out kills the service's whole process group before the test fails.
  const { running: service, line: { port } } = await startProcessUntil('dist/cli/threshold.js', env, ['serve'], (line) => line.msg === 'gateway listening');
  return { service, baseUrl: `http://127.0.0.1:${port}` };
}

/** Reads backfill-status lines into `seen` until `stop` says so or the stream ends (a killed service ends it). */
async function watch(baseUrl: string, token: string, seen: string[], stop: (loadedUntil: string) => boolean): Promise<void> {
  const response = await fetch(`${baseUrl}/api/v1/activities/backfill-status`, { headers: { authorization: `Bearer ${token}` } });
  assert.is(response.status, 200);
  const reader = response.body!.getReader();
  let buffered = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffered += Buffer.from(value).toString('utf8');
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const item = JSON.parse(buffered.slice(0, newline)) as { backfill_loaded_until?: string | null };
        buffered = buffered.slice(newline + 1);
        if (typeof item.backfill_loaded_until === 'string') {
          seen.push(item.backfill_loaded_until);
          if (stop(item.backfill_loaded_until)) return;
        }
      }
    }
  } catch {
    return; // the service was killed under the stream
  } finally {
    void reader.cancel().catch(() => {});
  }
}

test('a backfill killed halfway resumes after a restart and ends with every activity once, newest first', async () => {
  const standin = await startIntervalsIcuStandin({ clientId: ICU_CLIENT.id, clientSecret: ICU_CLIENT.secret, webhookSecret: ICU_CLIENT.webhookSecret });
  const base = Date.UTC(2025, 4, 31, 7);
  const activities: StandinActivity[] = Array.from({ length: ACTIVITIES }, (_, i) => {
    const start = base - i * DAY + (i % 5) * 3_600_000;
    return { id: `i${5000 + i}`, start, file: fitActivity({ start, seconds: 60, power: 120 + i }) };
  });
  standin.activities.push(...activities);
  const dataDir = tempDir();
  const env = {
    DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', ENGINE_ADDRESS: '127.0.0.1:0', BASE_URL: 'http://localhost:8080', GATEWAY_PROCESSES: '1',
    ENGINE_THREADS: '1', JOB_CONCURRENCY: '3', JOB_LEASE_MS: '1000', JOB_POLL_MS: '20', LOG_LEVEL: 'info',
    INTEGRATION_PAGE_SIZE: '25', BACKFILL_STATUS_INTERVAL_MS: '50', BACKFILL_STATUS_DURATION_MS: '60000',
    ...intervalsIcuEnv(standin),
  };
  let { service, baseUrl } = await startService(env);
  try {
    const user = runCli(['user', 'create', '--email', 'backfill-crash@example.com'], env).json as { id: string };
    const app = runCli(['app', 'create', '--owner', user.id, '--name', 'Watcher'], env).json as { id: string };
    const token = (runCli(['token', 'mint', '--user', user.id, '--scopes', 'activities:read', '--app', app.id], env).json as { access_token: string }).access_token;
    // BASE_URL names the callback the provider sends the browser to; here it is the child's real port.
    const { landing } = await connectThroughPortal(baseUrl, token);
    assert.is(landing, '/portal/manage-integrations?notice=connected');

    // Watch until the backfill has passed the 100th activity, then kill the service mid-flight.
    const halfway = new Date(activities[ACTIVITIES / 2]!.start).toISOString().slice(0, 19);
    const seen: string[] = [];
    await watch(baseUrl, token, seen, (loadedUntil) => loadedUntil <= halfway);
    await service.stop('SIGKILL');
    const downloadsBeforeKill = new Set(standin.requests.filter((request) => request.path.endsWith('/file') && request.status === 200).map((request) => request.path)).size;
    assert.ok(downloadsBeforeKill >= ACTIVITIES / 2 && downloadsBeforeKill < ACTIVITIES, `killed halfway (${downloadsBeforeKill} files fetched)`);

    ({ service, baseUrl } = await startService(env));
    await watch(baseUrl, token, seen, (loadedUntil) => loadedUntil < new Date(activities[ACTIVITIES - 1]!.start).toISOString().slice(0, 19));
    assert.equal(seen, [...seen].sort().reverse(), 'backfill_loaded_until only moves to earlier dates');

    await until('history ready', async () => {
      const status = (await (await fetch(`${baseUrl}/api/v1/profile/status`, { headers: { authorization: `Bearer ${token}` } })).json()) as { capabilities: Record<string, string> };
      return status.capabilities.activity_history === 'ready' && status.capabilities.activities === 'ready' ? true : undefined;
    }, 120_000);
    const listed = await until('every activity ingested', async () => {
      const page = (await (await fetch(`${baseUrl}/api/v1/activities/?limit=1000`, { headers: { authorization: `Bearer ${token}` } })).json()) as { start: string }[];
      return page.length >= ACTIVITIES ? page : undefined;
    }, 120_000);
    assert.is(listed.length, ACTIVITIES, 'no duplicate');
    assert.equal(listed.map((activity) => Date.parse(activity.start)).sort(), activities.map((activity) => activity.start).sort(), 'no gap');

    // Newest first: each file was first fetched in order of its activity's start, latest first.
    const firstFetch: string[] = [];
    for (const request of standin.requests) {
      const id = /\/activity\/([^/]+)\/file$/.exec(request.path)?.[1];
      if (id && request.status === 200 && !firstFetch.includes(id)) firstFetch.push(id);
    }
    assert.equal(firstFetch, activities.map((activity) => activity.id));
  } finally {
    await service.kill();
    await standin.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
