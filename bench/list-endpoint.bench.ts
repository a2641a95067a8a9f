/**
 * Question: how many pages of `GET /api/v1/activities/?limit=50` does the gateway serve per second, and at
 * what p99, under 16, 64 and 200 keep-alive connections — next to /healthz (no authentication, no store)
 * at the same connection count in the same run? Twice: one gateway process (the stack in this process),
 * then `threshold serve` as `npm start` runs it, with one HTTP process per core (GATEWAY_PROCESSES) on the
 * same data.
 *
 * The real stack (test/support/stack.ts) on loopback over SQLite, two users with 500 activities each:
 * - corpus: the copied FIT corpus (test/fixtures/fit, every folder) imported as a user would, with
 *   `threshold import`, its activities then copied (new ids, one day apart) up to 500: real lap counts, up to
 *   dozens of laps an item, each with its summary blocks;
 * - synthetic: four fixture rides and a run uploaded through the API and copied the same way (few laps).
 * Each line gives the page's bytes, its items and their lap counts. autocannon fires the requests from a
 * worker thread, so the gateway keeps the main thread to itself (the cores are still shared). Absolute
 * figures are indicative; the ratio to /healthz is the figure to compare across machines.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import autocannon, { type Result } from 'autocannon';
import type { ActivityRecord } from '../storage/store.js';
import { newId } from '../storage/ids.js';
import { openStore } from '../storage/open-store.js';
import { createUser } from '../gateway/services/accounts.js';
import { localDate } from '../domain/time.js';
import { fixtureKeys, fitCorpusPath } from '../test/support/fit-corpus.js';
import { startStack, tempDir, type TestStack } from '../test/support/stack.js';
import { startProcess } from '../test/support/processes.js';
import { settled, upload } from '../test/support/uploads.js';
import { REPO_ROOT } from './support.js';
import type { BenchResult, BenchRow, Dataset as BenchDataset } from './results.js';

export const question = 'GET /api/v1/activities/?limit=50 vs /healthz, 500 activities of the imported corpus and 500 synthetic (autocannon, loopback): one gateway process, then threshold serve with one HTTP process per core';

const ACTIVITIES = 500;
/** Connection counts (LIST_BENCH_CONNECTIONS, comma-separated, narrows a trial run). */
const CONNECTIONS = (process.env.LIST_BENCH_CONNECTIONS ?? '16,64,200').split(',').map(Number);
/** Seconds per figure (LIST_BENCH_SECONDS shortens a trial run). */
const SECONDS = Number(process.env.LIST_BENCH_SECONDS ?? 10);
const DAY_MS = 86_400_000;
const FIXTURES = ['sweatpy/4078723797.fit', 'sweatpy/4801048867.fit', 'sweatpy/6449921903_ACTIVITY.fit', 'python-fitparse/garmin-fenix-5-run.fit'];

interface Dataset {
  kind: BenchDataset;
  label: string;
  token: string;
}

/** Copies `models` round-robin (new ids, one day apart, newest today) until the user has `ACTIVITIES`. */
async function replicate(stack: TestStack, userId: string, models: ActivityRecord[]): Promise<void> {
  if (models.length === 0) throw new Error('bench: no activity to copy');
  const today = Date.now();
  for (let k = models.length; k < ACTIVITIES; k++) {
    const model = models[k % models.length]!;
    const start = today - k * DAY_MS;
    await stack.store.activities.insert({
      ...model,
      id: newId(),
      source_id: newId(),
      start,
      end: start + (model.end - model.start),
      local_date: localDate(start, model.offset),
      laps: model.laps && model.laps.map((lap) => ({ ...lap, start: lap.start - model.start + start, end: lap.end - model.start + start })),
    });
  }
}

/** Uploads the four synthetic-set fixtures through the API, then copies their records up to `ACTIVITIES`. */
export async function seed(stack: TestStack, token: string, userId: string): Promise<void> {
  const ingested: ActivityRecord[] = [];
  for (const fixture of FIXTURES) {
    const bytes = readFileSync(path.join(REPO_ROOT, 'test/fixtures/fit', fixture));
    const response = await upload(stack, token, [{ name: path.basename(fixture), bytes }]);
    const { sources } = (await response.json()) as { sources: { id: string }[] };
    const source = await settled(stack, token, sources[0]!.id, 60_000);
    if (source.status !== 'processed') throw new Error(`bench: ${fixture} was not processed (${source.status})`);
    for (const id of source.activity_ids) ingested.push((await stack.store.activities.findOne({ id, user_id: userId }))!);
  }
  await replicate(stack, userId, ingested);
}

/** A new user in `dataDir`'s store with the copied corpus imported by `threshold import` (before the stack starts). */
async function importCorpus(dataDir: string): Promise<{ userId: string; processed: number }> {
  const store = await openStore({ mongodbUri: null, sqliteFile: path.join(dataDir, 'threshold.sqlite') });
  const { id: userId } = await createUser(store, { email: 'list-bench-corpus@example.com' });
  await store.close();
  const folders = [...new Set(fixtureKeys().map((key) => path.dirname(fitCorpusPath(key))))].sort();
  const { stdout } = await promisify(execFile)(process.execPath, [path.join(REPO_ROOT, 'dist/cli/threshold.js'), 'import', '--user', userId, ...folders], {
    env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
    maxBuffer: 64 * 1024 * 1024,
  });
  return { userId, processed: (JSON.parse(stdout) as { processed: number }).processed };
}

/** Newest first, as the list answers them: the user's activities, copied round-robin up to `ACTIVITIES`. */
async function replicateImported(stack: TestStack, userId: string): Promise<number> {
  const imported = await stack.store.activities.find({ user_id: userId }, { sort: { start: -1 } });
  await replicate(stack, userId, imported);
  return imported.length;
}

/** CPU seconds (user, system) the processes `pids` and their descendants used so far, from /proc (Linux; 0 elsewhere). */
function treeCpuSeconds(pids: number[]): { user: number; system: number } {
  if (pids.length === 0 || !existsSync('/proc/self/stat')) return { user: 0, system: 0 };
  const stats = readdirSync('/proc').filter((name) => /^\d+$/.test(name)).flatMap((pid) => {
    try {
      // Fields after the command's closing parenthesis: state ppid … utime (12th) stime (13th), in clock ticks.
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return [{ pid: Number(pid), ppid: Number(fields[1]), user: Number(fields[11]), system: Number(fields[12]) }];
    } catch {
      return []; // gone meanwhile
    }
  });
  const tree = new Set(pids);
  for (let grew = true; grew;) {
    grew = false;
    for (const stat of stats) if (!tree.has(stat.pid) && tree.has(stat.ppid)) grew = Boolean(tree.add(stat.pid));
  }
  const mine = stats.filter((stat) => tree.has(stat.pid));
  return { user: mine.reduce((sum, stat) => sum + stat.user, 0) / CLOCK_TICKS, system: mine.reduce((sum, stat) => sum + stat.system, 0) / CLOCK_TICKS };
}
/** USER_HZ on Linux. */
const CLOCK_TICKS = 100;

/** One autocannon run; the CPU (in cores) this process (the client, and in one-process mode the gateway too) and the served processes used meanwhile. */
interface Fired {
  result: Result;
  clientCpu: number;
  /** Cores the service used, in all and in the kernel (socket writes, loopback TCP). */
  serverCpu: number;
  serverSystem: number;
}

async function fire(url: string, connections: number, headers: Record<string, string> = {}, servers: number[] = []): Promise<Fired> {
  const before = process.cpuUsage();
  const serverBefore = treeCpuSeconds(servers);
  const startedAt = performance.now();
  const result = await autocannon({ url, connections, duration: SECONDS, headers, workers: 1 });
  const seconds = (performance.now() - startedAt) / 1000;
  const used = process.cpuUsage(before);
  const serverAfter = treeCpuSeconds(servers);
  const serverSystem = (serverAfter.system - serverBefore.system) / seconds;
  return { result, clientCpu: (used.user + used.system) / 1e6 / seconds, serverCpu: (serverAfter.user - serverBefore.user) / seconds + serverSystem, serverSystem };
}

/** The figures of a run; under serve also the CPU of the client and of the service, and the service's CPU per request. */
function figures({ result, clientCpu, serverCpu, serverSystem }: Fired, served: boolean): string {
  const failures = result.errors + result.timeouts + result.non2xx;
  const perRequest = (cores: number) => (1e6 * cores / result.requests.average).toFixed(0);
  const cpu = served ? `, client ${clientCpu.toFixed(2)} cores, service ${serverCpu.toFixed(2)} cores = ${perRequest(serverCpu)} µs CPU a request (${perRequest(serverSystem)} in the kernel)` : '';
  return `${result.requests.average.toFixed(0)} req/s, p99 ${result.latency.p99} ms, ${failures} errors${cpu}`;
}

/** A TCP port nothing listens on now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Polls /readyz until the served processes answer (a minute at most). */
async function waitUntilServing(baseUrl: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ready = await fetch(`${baseUrl}/readyz`).then((response) => response.ok, () => false);
    if (ready) return;
    if (Date.now() > deadline) throw new Error(`bench: ${baseUrl} did not become ready`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The first page of `dataset`'s list, checked: its bytes, items and their lap counts. */
async function describePage(list: string, dataset: Dataset): Promise<string> {
  const first = await fetch(list, { headers: { authorization: `Bearer ${dataset.token}` } });
  const bytes = Buffer.from(await first.arrayBuffer());
  const page = JSON.parse(bytes.toString()) as { laps: unknown[] | null }[];
  if (!first.ok || page.length !== 50) throw new Error(`bench: the ${dataset.label} list answered ${first.status} with ${page.length} activities`);
  const laps = page.map((item) => item.laps?.length ?? 0);
  const mean = laps.reduce((sum, count) => sum + count, 0) / laps.length;
  return `${dataset.label} page of ${page.length} items = ${bytes.length} bytes, laps per item max ${Math.max(...laps)} mean ${mean.toFixed(1)}`;
}

/** The ratio the issue asks for at 64 connections (issue 27 item 2): 1/12 in one process, 1/8 under serve. */
const GOALS = { one: 1 / 12, serve: 1 / 8 } as const;
const GOAL_CONNECTIONS = 64;

/**
 * Each data set's list and /healthz at each connection count, one line each, and one row per list figure.
 * Under serve the client's CPU is reported too (autocannon runs on the same cores, reading every page), and
 * the service's (its process tree's) CPU per request, a figure a loaded machine disturbs less than req/s.
 */
async function measure(baseUrl: string, datasets: Dataset[], mode: 'one' | 'serve', rows: BenchRow[], servers: number[] = []): Promise<string[]> {
  const list = `${baseUrl}/api/v1/activities/?limit=50`;
  const label = mode === 'one' ? 'one gateway process' : `threshold serve, ${availableParallelism()} HTTP processes`;
  const lines = [`${label}; ${SECONDS} s per figure`];
  for (const dataset of datasets) {
    lines.push(await describePage(list, dataset));
    await fire(list, 16, { authorization: `Bearer ${dataset.token}` }); // warm-up (JIT, statement cache, the stored listings)
  }
  const client = mode === 'serve';
  for (const connections of CONNECTIONS) {
    const health = await fire(`${baseUrl}/healthz`, connections, {}, servers);
    const anchor = health.result.requests.average;
    lines.push(`${connections} connections: /healthz ${figures(health, client)}`);
    for (const dataset of datasets) {
      const listed = await fire(list, connections, { authorization: `Bearer ${dataset.token}` }, servers);
      const ratio = listed.result.requests.average / anchor;
      lines.push(`  ${dataset.label} list ${figures(listed, client)}; list/healthz ${ratio.toFixed(3)} (1/${(1 / ratio).toFixed(1)})`);
      rows.push({
        question: `list limit=50, ${mode === 'one' ? 'one process' : 'serve'}, ${connections} conn`,
        dataset: dataset.kind, figure: listed.result.requests.average, unit: 'req/s', anchor, anchorLabel: '/healthz, same load', ratio,
        ...(connections === GOAL_CONNECTIONS && { goal: GOALS[mode] }),
      });
    }
  }
  return lines;
}

export async function run(): Promise<BenchResult> {
  // One data folder for both runs. The stack listens on a port chosen here so that its URL can be the
  // issuer of both runs: the served processes listen elsewhere but accept the same tokens.
  const stackPort = await freePort();
  const env = { DATA_DIR: tempDir('threshold-list-bench-'), BASE_URL: `http://127.0.0.1:${stackPort}` };
  const corpus = await importCorpus(env.DATA_DIR);
  const stack = await startStack({ ...env, PORT: String(stackPort) });
  const lines: string[] = [];
  const rows: BenchRow[] = [];
  let datasets: Dataset[];
  try {
    const imported = await replicateImported(stack, corpus.userId);
    const corpusToken = (await stack.userWithToken(['activities:read'], { userId: corpus.userId })).token;
    const synthetic = await stack.userWithToken(['activities:read', 'activities:write']);
    await seed(stack, synthetic.token, synthetic.userId);
    datasets = [
      { kind: 'corpus', label: `corpus (${corpus.processed} files imported, ${imported} activities, copied to ${ACTIVITIES})`, token: corpusToken },
      { kind: 'synthetic', label: `synthetic (${FIXTURES.length} fixtures uploaded, copied to ${ACTIVITIES})`, token: synthetic.token },
    ];
    lines.push(...(await measure(stack.baseUrl, datasets, 'one', rows)));
  } finally {
    await stack.close();
  }
  // Request logs off in both runs (the stack above is silent); the port is chosen here, as logs do not say it.
  const port = await freePort();
  // LIST_BENCH_SERVE_NODE_OPTIONS reaches the served processes (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile them).
  const nodeOptions: Record<string, string> = process.env.LIST_BENCH_SERVE_NODE_OPTIONS ? { NODE_OPTIONS: process.env.LIST_BENCH_SERVE_NODE_OPTIONS } : {};
  const service = startProcess('dist/cli/threshold.js', { ...env, ...nodeOptions, PORT: String(port), HOST: '127.0.0.1', ENGINE_ADDRESS: '127.0.0.1:0', LOG_LEVEL: 'warn' }, ['serve']);
  try {
    const baseUrl = `http://127.0.0.1:${port}`;
    await waitUntilServing(baseUrl);
    lines.push(...(await measure(baseUrl, datasets, 'serve', rows, [service.child.pid!])));
  } finally {
    await service.stop();
  }
  return { text: lines.join('\n  '), rows };
}
