/**
 * Question: how many pages of `GET /api/v1/activities/?limit=50` does the gateway serve per second, and at
 * what p99, under 16, 64 and 200 keep-alive connections — next to /healthz (no authentication, no store)
 * at the same connection count in the same run? Twice: one gateway process (the stack in this process),
 * then `threshold serve` as `npm start` runs it, with one HTTP process per core (GATEWAY_PROCESSES) on the
 * same data.
 *
 * The real stack (test/support/stack.ts) on loopback over SQLite, one user with 500 activities: the real
 * FIT rides and run of test/fixtures/fit ingested through the API, their records then copied (new ids, one
 * day apart) so each page holds realistic summaries and laps. autocannon fires the requests from a worker
 * thread, so the gateway keeps the main thread to itself (the cores are still shared). Absolute figures
 * are indicative; the ratio to /healthz is the figure to compare across machines.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import autocannon, { type Result } from 'autocannon';
import type { ActivityRecord } from '../storage/store.js';
import { newId } from '../storage/ids.js';
import { localDate } from '../domain/time.js';
import { startStack, tempDir, type TestStack } from '../test/support/stack.js';
import { startProcess } from '../test/support/processes.js';
import { settled, upload } from '../test/support/uploads.js';
import { REPO_ROOT } from './support.js';

export const question = 'GET /api/v1/activities/?limit=50 vs /healthz, 500 activities (autocannon, loopback): one gateway process, then threshold serve with one HTTP process per core';

const ACTIVITIES = 500;
const CONNECTIONS = [16, 64, 200];
const SECONDS = 10;
const DAY_MS = 86_400_000;
const FIXTURES = ['sweatpy/4078723797.fit', 'sweatpy/4801048867.fit', 'sweatpy/6449921903_ACTIVITY.fit', 'python-fitparse/garmin-fenix-5-run.fit'];

/** Uploads the fixtures, then copies their records until the user has `ACTIVITIES`, newest today. */
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
  const today = Date.now();
  for (let k = ingested.length; k < ACTIVITIES; k++) {
    const model = ingested[k % ingested.length]!;
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

async function fire(url: string, connections: number, headers: Record<string, string> = {}): Promise<Result> {
  return autocannon({ url, connections, duration: SECONDS, headers, workers: 1 });
}

function figures(result: Result): string {
  const failures = result.errors + result.timeouts + result.non2xx;
  return `${result.requests.average.toFixed(0)} req/s, p99 ${result.latency.p99} ms, ${failures} errors`;
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

/** The list and /healthz at each connection count, one line each. */
async function measure(baseUrl: string, token: string, label: string): Promise<string[]> {
  const list = `${baseUrl}/api/v1/activities/?limit=50`;
  const auth = { authorization: `Bearer ${token}` };
  const first = await fetch(list, { headers: auth });
  const page = (await first.json()) as unknown[];
  if (!first.ok || page.length !== 50) throw new Error(`bench: the list answered ${first.status} with ${page.length} activities`);
  await fire(list, 16, auth); // warm-up (JIT, statement cache, the stored listings)
  const lines = [`${label}: page of 50 = ${JSON.stringify(page).length} bytes; ${SECONDS} s per figure`];
  for (const connections of CONNECTIONS) {
    const health = await fire(`${baseUrl}/healthz`, connections);
    const listed = await fire(list, connections, auth);
    const ratio = listed.requests.average / health.requests.average;
    lines.push(`${connections} connections: list ${figures(listed)}; /healthz ${figures(health)}; list/healthz ${ratio.toFixed(3)}`);
  }
  return lines;
}

export async function run(): Promise<string> {
  // One data folder for both runs. The stack listens on a port chosen here so that its URL can be the
  // issuer of both runs: the served processes listen elsewhere but accept the same tokens.
  const stackPort = await freePort();
  const env = { DATA_DIR: tempDir('threshold-list-bench-'), BASE_URL: `http://127.0.0.1:${stackPort}` };
  const stack = await startStack({ ...env, PORT: String(stackPort) });
  const lines: string[] = [];
  let token: string;
  try {
    const user = await stack.userWithToken(['activities:read', 'activities:write']);
    token = user.token;
    await seed(stack, token, user.userId);
    lines.push(...(await measure(stack.baseUrl, token, 'one gateway process')));
  } finally {
    await stack.close();
  }
  // Request logs off in both runs (the stack above is silent); the port is chosen here, as logs do not say it.
  const port = await freePort();
  const service = startProcess('dist/cli/threshold.js', { ...env, PORT: String(port), HOST: '127.0.0.1', ENGINE_ADDRESS: '127.0.0.1:0', LOG_LEVEL: 'warn' }, ['serve']);
  try {
    const baseUrl = `http://127.0.0.1:${port}`;
    await waitUntilServing(baseUrl);
    lines.push(...(await measure(baseUrl, token, `threshold serve, ${availableParallelism()} HTTP processes`)));
  } finally {
    await service.stop();
  }
  return lines.join('\n  ');
}
