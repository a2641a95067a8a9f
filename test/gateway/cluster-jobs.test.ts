/**
 * Work that must happen once per cluster, done once by two engines on ephemeral ports sharing one SQLite
 * file (the shared store where concurrency means something; the bundled MongoDB-wire double loses
 * concurrent transactions, see issue 24): the analysis backfill after a version bump (each activity
 * computed once in total), one poll schedule per provider connection (never two polls of a connection
 * within the interval), and the provider request budget (a budget of N calls per window allows N calls
 * between them, and the polls that find it spent wait in the queue).
 *
 * Polling and the budget run two `start:engine` processes configured as an operator would
 * (INTEGRATION_POLL_MS, INTERVALS_ICU_REQUEST_BUDGET). The version bump has no setting (the version is the
 * code's), so that test starts two engines in this process, each with its own store connection to the file,
 * and names the new version through StartEngineOptions.analysisVersion.
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadEngineConfig } from '../../engine/config.js';
import { startEngine, type RunningEngine, type StartEngineOptions } from '../../engine/server.js';
import { ANALYSIS_VERSION } from '../../engine/analysis/activity-analysis.js';
import { ANALYSIS_BATCH_JOB, ANALYSIS_PLAN_JOB, BATCH_SIZE } from '../../engine/jobs/analysis-backfill.js';
import { sealCredentials } from '../../engine/integrations/credentials.js';
import { POLL_JOB } from '../../engine/integrations/poll.js';
import { openStore } from '../../storage/open-store.js';
import { newId } from '../../storage/ids.js';
import type { ConnectionRecord, Store } from '../../storage/store.js';
import { createLogger } from '../../domain/logger.js';
import { insertActivity } from '../support/activities.js';
import { user } from '../storage/records.js';
import { tempDir } from '../support/stack.js';
import { startProcess, type RunningProcess } from '../support/processes.js';
import { ICU_CLIENT, intervalsIcuEnv, until } from '../support/integrations.js';
import { startIntervalsIcuStandin, type IntervalsIcuStandin } from '../support/standins/intervals-icu.js';

const cluster = suite('cluster-wide jobs on two engines');

interface Engines {
  dataDir: string;
  stores: Store[];
  engines: RunningEngine[];
  close(): Promise<void>;
}

/**
 * Two engines, each with its own store handle on one SQLite file in `dataDir`; `watch` sees each handle
 * before its engine starts (the first engine works its jobs while the second warms its pool).
 */
async function startEngines(dataDir: string, options: Partial<StartEngineOptions> = {}, watch: (store: Store) => void = () => {}): Promise<Engines> {
  const config = loadEngineConfig({ ENGINE_ADDRESS: '127.0.0.1:0', ENGINE_THREADS: '1', LOG_LEVEL: 'silent', DATA_DIR: dataDir, JOB_POLL_MS: '20' });
  const stores: Store[] = [];
  const engines: RunningEngine[] = [];
  const close = async () => {
    for (const engine of engines) await engine.close();
    for (const store of stores) await store.close();
  };
  try {
    for (let i = 0; i < 2; i++) {
      const store = await openStore({ mongodbUri: null, sqliteFile: path.join(dataDir, 'threshold.sqlite') });
      stores.push(store);
      watch(store);
      engines.push(await startEngine({ config, store, logger: createLogger({ level: 'silent', name: `engine-${i}` }), address: '127.0.0.1:0', ...options }));
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { dataDir, stores, engines, close };
}

/**
 * Two `start:engine` processes on the SQLite file in `dataDir`, and a store connection of this process to
 * the same file for the test to look through. Resolves once both listen.
 */
async function startEngineProcesses(dataDir: string, env: Record<string, string>): Promise<{ store: Store; processes: RunningProcess[]; close(): Promise<void> }> {
  const processes: RunningProcess[] = [];
  const store = await openStore({ mongodbUri: null, sqliteFile: path.join(dataDir, 'threshold.sqlite') });
  const close = async () => {
    for (const running of processes) await running.stop();
    await store.close();
  };
  try {
    for (let i = 0; i < 2; i++) {
      const engine = startProcess('dist/engine/main.js', { DATA_DIR: dataDir, ENGINE_ADDRESS: '127.0.0.1:0', ENGINE_THREADS: '1', LOG_LEVEL: 'info', JOB_POLL_MS: '20', ...env });
      processes.push(engine);
      await engine.waitForLog((line) => line.msg === 'engine listening');
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { store, processes, close };
}

/** Counts the analysis caches each store handle writes (one per computation). */
function countComputations(store: Store): { count: number } {
  const counter = { count: 0 };
  const put = store.blobs.put.bind(store.blobs);
  store.blobs.put = (key, bytes, owner) => {
    if (key.startsWith('analysis:')) counter.count++;
    return put(key, bytes, owner);
  };
  return counter;
}

cluster('after an analysis-version bump, two engines compute each activity\'s cache once in total, in keyed batches enqueued once', async () => {
  const dataDir = tempDir();
  const seed = await openStore({ mongodbUri: null, sqliteFile: path.join(dataDir, 'threshold.sqlite') });
  const total = BATCH_SIZE * 2 + 7; // four batches (two per athlete), so both engines have work to claim
  const athletes = ['athlete-a', 'athlete-b'];
  try {
    // The plan walks users, then each one's activities (activities are sharded by user).
    for (const id of athletes) await seed.users.insert(user(id));
    for (let i = 0; i < total; i++) {
      await insertActivity(seed, athletes[i % 2]!, {
        sport: 'cycling.road', start: Date.UTC(2024, 0, 1) + i * 86_400_000, series: { rows: 120, metrics: { power: (s) => 150 + ((s * 7 + i) % 90) } },
      });
    }
  } finally {
    await seed.close();
  }
  const version = ANALYSIS_VERSION + 1;
  const counters: { count: number }[] = [];
  const engines = await startEngines(dataDir, { analysisVersion: version }, (store) => counters.push(countComputations(store)));
  try {
    const [store] = engines.stores;
    const current = async () => {
      let count = 0;
      for (const id of athletes) count += await store!.activities.count({ user_id: id, analysis_version: version });
      return count;
    };
    await until('every activity at the new version', async () => ((await current()) === total ? true : undefined));
    await until('the plan is done', async () => ((await store!.jobs.findOne({ key: `${ANALYSIS_PLAN_JOB}:v${version}` }))?.status === 'done' ? true : undefined));
    const computed = counters.reduce((sum, counter) => sum + counter.count, 0);
    assert.is(computed, total, `each of ${total} activities computed once (engines: ${counters.map((counter) => counter.count).join(' + ')})`);
    assert.is(await store!.jobs.count({ kind: ANALYSIS_PLAN_JOB }), 1, 'one plan for the cluster');
    const batches = athletes.length * Math.ceil(total / athletes.length / BATCH_SIZE);
    assert.is(await store!.jobs.count({ kind: ANALYSIS_BATCH_JOB }), batches, 'one keyed batch per 50 activities of one athlete');
    // A batch records itself done in a write of its own after its last activity's (background writes are grouped).
    await until('every batch done', async () => ((await store!.jobs.count({ kind: ANALYSIS_BATCH_JOB, status: 'done' })) === batches ? true : undefined));
  } finally {
    await engines.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

/** A token the stand-in issued, through its own authorize and token endpoints. */
async function standinToken(standin: IntervalsIcuStandin): Promise<string> {
  const authorize = await fetch(`${standin.baseUrl}/oauth/authorize?client_id=${ICU_CLIENT.id}&redirect_uri=${encodeURIComponent('https://cb.example/')}&state=s`, { redirect: 'manual' });
  const code = new URL(authorize.headers.get('location')!).searchParams.get('code')!;
  const answer = await fetch(`${standin.baseUrl}/api/oauth/token`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: ICU_CLIENT.id, client_secret: ICU_CLIENT.secret, code }),
  });
  return ((await answer.json()) as { access_token: string }).access_token;
}

/** `count` live connections whose backfill is done, made before any engine started (so without a poll schedule). */
async function seedConnections(dataDir: string, key: Uint8Array, token: string, count: number): Promise<ConnectionRecord[]> {
  const store = await openStore({ mongodbUri: null, sqliteFile: path.join(dataDir, 'threshold.sqlite') });
  const now = Date.now();
  const connections: ConnectionRecord[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const connection: ConnectionRecord = {
        id: newId(), user_id: `athlete-${i}`, provider: 'intervals_icu', external_user_id: `i${i}`,
        credentials: sealCredentials(key, { access_token: token, refresh_token: null, expires_at: null, refresh_expires_at: null, scope: 'ACTIVITY:READ' }),
        status: 'connected', backfill_loaded_until: null, backfill_done: true, newest_seen: now - 86_400_000, created_at: now, updated_at: now,
      };
      await store.connections.insert(connection);
      connections.push(connection);
    }
  } finally {
    await store.close();
  }
  return connections;
}

const listCalls = (standin: IntervalsIcuStandin) => standin.requests.filter((request) => request.path.endsWith('/activities'));

cluster('two engines poll a connection once per interval through one schedule, made at start-up by whichever engine comes first', async () => {
  const standin = await startIntervalsIcuStandin({ clientId: ICU_CLIENT.id, clientSecret: ICU_CLIENT.secret });
  const dataDir = tempDir();
  const key = new Uint8Array(randomBytes(32));
  const intervalMs = 400;
  const [connection] = await seedConnections(dataDir, key, await standinToken(standin), 1);
  const engines = await startEngineProcesses(dataDir, { ...intervalsIcuEnv(standin), INTEGRATION_KEY: Buffer.from(key).toString('base64'), INTEGRATION_POLL_MS: String(intervalMs) });
  try {
    const { store } = engines;
    await until('six polls', async () => (listCalls(standin).length >= 6 ? true : undefined), 30_000);
    assert.is(await store!.jobs.count({ kind: POLL_JOB }), 1, 'one schedule for the connection, though both engines started');
    const schedule = (await store!.jobs.findOne({ key: `${POLL_JOB}:${connection!.id}` }))!;
    assert.ok(schedule.status === 'queued' || schedule.status === 'running', `the schedule waits for its next run (${schedule.status})`);
    const times = listCalls(standin).map((request) => request.at);
    const gaps = times.slice(1).map((at, index) => at - times[index]!);
    // The first run comes at the interval after start-up; each next one an interval after the last ended.
    assert.ok(gaps.every((gap) => gap >= intervalMs), `no two polls of one connection within ${intervalMs} ms: gaps ${gaps.join(', ')}`);

    // A connection that is gone ends its schedule at its next run: nothing re-queues it, no engine polls it.
    await store!.connections.updateOne({ id: connection!.id, user_id: connection!.user_id }, { set: { status: 'disconnected', credentials: {} } });
    await until('the schedule ended', async () => ((await store!.jobs.findOne({ key: `${POLL_JOB}:${connection!.id}` }))?.status === 'done' ? true : undefined), 10_000);
  } finally {
    await engines.close();
    await standin.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

cluster('a provider budget of N calls per window allows N calls across two engines; the polls that find it spent wait for the reset', async () => {
  const standin = await startIntervalsIcuStandin({ clientId: ICU_CLIENT.id, clientSecret: ICU_CLIENT.secret });
  const dataDir = tempDir();
  const key = new Uint8Array(randomBytes(32));
  const budget = 5;
  const windowMs = 86_400_000;
  const connections = await seedConnections(dataDir, key, await standinToken(standin), 8);
  const before = standin.requests.length;
  const engines = await startEngineProcesses(dataDir, {
    ...intervalsIcuEnv(standin), INTEGRATION_KEY: Buffer.from(key).toString('base64'), INTEGRATION_POLL_MS: '100', INTERVALS_ICU_REQUEST_BUDGET: `${budget}/1d`,
  });
  try {
    const { store } = engines;
    const reset = (Math.floor(Date.now() / windowMs) + 1) * windowMs;
    const waiting = async () => (await store!.jobs.find({ kind: POLL_JOB })).filter((job) => job.status === 'queued' && job.run_after >= reset);
    // Five polls spend the budget; every next poll, of any connection on either engine, finds it spent.
    await until('every poll waits for the reset', async () => ((await waiting()).length === connections.length ? true : undefined), 30_000);
    assert.is(standin.requests.length - before, budget, 'N calls reached the provider, whichever engine made them');
    assert.is(listCalls(standin).length, budget);
    const jobs = await store!.jobs.find({ kind: POLL_JOB });
    assert.is(jobs.filter((job) => job.status === 'failed').length, 0, 'a spent budget fails nothing');
    assert.ok(jobs.every((job) => job.attempts === 0), 'waiting spends no attempt');
    const spent = await store!.provider_budgets.findOne({ provider: 'intervals_icu', app: ICU_CLIENT.id });
    assert.is(spent?.used, budget);
  } finally {
    await engines.close();
    await standin.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

cluster.run();
