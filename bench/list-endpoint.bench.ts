/**
 * Question: how many pages of `GET /api/v1/activities/?limit=50` does one gateway process serve per second,
 * and at what p99, under 16, 64 and 200 keep-alive connections — next to /healthz (no authentication, no
 * store) at the same connection count in the same run?
 *
 * The real stack (test/support/stack.ts) on loopback over SQLite, one user with 500 activities: the real
 * FIT rides and run of test/fixtures/fit ingested through the API, their records then copied (new ids, one
 * day apart) so each page holds realistic summaries and laps. autocannon fires the requests from a worker
 * thread, so the gateway keeps the main thread to itself (the cores are still shared). Absolute figures
 * are indicative; the ratio to /healthz is the figure to compare across machines.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import autocannon, { type Result } from 'autocannon';
import type { ActivityRecord } from '../storage/store.js';
import { newId } from '../storage/ids.js';
import { localDate } from '../domain/time.js';
import { startStack, type TestStack } from '../test/support/stack.js';
import { settled, upload } from '../test/support/uploads.js';
import { REPO_ROOT } from './support.js';

export const question = 'GET /api/v1/activities/?limit=50 vs /healthz, one gateway process, 500 activities (autocannon, loopback)';

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
    for (const id of source.activity_ids) ingested.push((await stack.store.activities.get(id))!);
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

export async function run(): Promise<string> {
  const stack = await startStack();
  try {
    const { userId, token } = await stack.userWithToken(['activities:read', 'activities:write']);
    await seed(stack, token, userId);
    const list = `${stack.baseUrl}/api/v1/activities/?limit=50`;
    const auth = { authorization: `Bearer ${token}` };
    const first = await stack.get('/api/v1/activities/?limit=50', token);
    const page = (await first.json()) as unknown[];
    if (!first.ok || page.length !== 50) throw new Error(`bench: the list answered ${first.status} with ${page.length} activities`);
    await fire(list, 16, auth); // warm-up (JIT, statement cache)
    const lines = [`page of 50 = ${JSON.stringify(page).length} bytes; ${SECONDS} s per figure`];
    for (const connections of CONNECTIONS) {
      const health = await fire(`${stack.baseUrl}/healthz`, connections);
      const listed = await fire(list, connections, auth);
      const ratio = listed.requests.average / health.requests.average;
      lines.push(`${connections} connections: list ${figures(listed)}; /healthz ${figures(health)}; list/healthz ${ratio.toFixed(3)}`);
    }
    return lines.join('\n  ');
  } finally {
    await stack.close();
  }
}
