/**
 * Question: how many hours of activity per minute does a provider backfill take in, end to end (connect,
 * list, download, accept, decode, store), for 1,000 one-hour FIT activities from the intervals.icu stand-in
 * enforcing 100 requests per 15 s (issue 15's target: ≥ 1,000 h/min; the reference service states 50–100)?
 *
 * Two runs, because the answer is set by what the limit counts:
 * - every request counted (intervals.icu: a file is `GET /api/v1/activity/{id}/file`, an API call): one
 *   listing page carries up to 1,000 activities, but each file still costs a request, so 1,000 files need
 *   ≥ 150 s and the ceiling is 1,000 h / 2.5 min = 400 h/min whatever the service does;
 * - files outside the limit (a CDN, as Wahoo's file URLs are): listing pages are the only metered calls,
 *   and the figure is the service's own pipeline.
 * Timed from the callback (connection stored, backfill queued) to the last activity stored.
 */
import { performance } from 'node:perf_hooks';
import { startStack } from '../test/support/stack.js';
import { startIntervalsIcuStandin } from '../test/support/standins/intervals-icu.js';
import { connectThroughPortal, ICU_CLIENT, intervalsIcuEnv, until } from '../test/support/integrations.js';
import { fitActivity } from '../test/support/fit-writer.js';
import { createApplication, createUser } from '../gateway/services/accounts.js';

export const question = 'Provider backfill: hours of activity per minute, 1,000 one-hour FIT activities, stand-in limited to 100 requests / 15 s';

const ACTIVITIES = Number(process.env.BACKFILL_BENCH_ACTIVITIES ?? 1000);
const HOUR = 3_600_000;

async function once(files: Uint8Array[], starts: number[], meterFiles: boolean): Promise<{ hours: number; ms: number; requests: number; throttled: number }> {
  const standin = await startIntervalsIcuStandin({
    clientId: ICU_CLIENT.id, clientSecret: ICU_CLIENT.secret, rateLimit: { requests: 100, windowMs: 15_000, retryAfter: true, files: meterFiles },
  });
  standin.activities.push(...files.map((file, i) => ({ id: `i${i}`, start: starts[i]!, file })));
  const stack = await startStack({ ...intervalsIcuEnv(standin), JOB_POLL_MS: '20', JOB_CONCURRENCY: '3', INTEGRATION_PAGE_SIZE: '1000' });
  try {
    const owner = await createUser(stack.store, { email: 'bench-owner@example.com' });
    const app = await createApplication(stack.store, owner.id, { name: 'Bench', redirect_uris: ['https://bench.example.com/cb'] });
    const user = await stack.userWithToken(['activities:read'], { appId: app.id });
    await connectThroughPortal(stack.baseUrl, user.token);
    const started = performance.now();
    await until('every activity stored', async () => ((await stack.store.activities.count({ user_id: user.userId })) >= files.length ? true : undefined), 30 * 60_000);
    const ms = performance.now() - started;
    const activities = await stack.store.activities.findFields({ user_id: user.userId }, ['start', 'end']);
    const hours = activities.reduce((total, activity) => total + (activity.end - activity.start) / HOUR, 0);
    return { hours, ms, requests: standin.requests.length, throttled: standin.requests.filter((request) => request.status === 429).length };
  } finally {
    await stack.close();
    await standin.close();
  }
}

export async function run(): Promise<string> {
  // One a day back from yesterday: all inside the backfill's 5 years.
  const base = Math.floor(Date.now() / HOUR) * HOUR - 24 * HOUR;
  const starts = Array.from({ length: ACTIVITIES }, (_, i) => base - i * 24 * HOUR);
  const files = starts.map((start, i) => fitActivity({ start, seconds: 3600, power: 150 + (i % 100) }));
  const line = (label: string, r: { hours: number; ms: number; requests: number; throttled: number }) =>
    `${label}: ${r.hours.toFixed(0)} h in ${(r.ms / 1000).toFixed(1)} s = ${(r.hours / (r.ms / 60_000)).toFixed(0)} h/min (${r.requests} requests, ${r.throttled} answered 429)`;
  const cdn = await once(files, starts, false);
  const metered = await once(files, starts, true);
  return `${line('files unmetered (CDN)', cdn)}; ${line('every request metered (intervals.icu)', metered)}`;
}
