/**
 * A long wait the provider names (a spent quota: Retry-After beyond what a job waits inline) pauses the
 * backfill without losing its place: the job goes back to the queue until then, the activities loaded so far
 * stay loaded, and backfill-status reports the pause as an error item.
 */
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack } from '../support/stack.js';
import { startIntervalsIcuStandin } from '../support/standins/intervals-icu.js';
import { connectThroughPortal, ICU_CLIENT, intervalsIcuEnv, until } from '../support/integrations.js';
import { fitActivity } from '../support/fit-writer.js';
import { createApplication, createUser } from '../../gateway/services/accounts.js';

test('a quota spent mid-backfill requeues the job until the named time, keeping what was loaded', async () => {
  // Five requests per ten minutes: the listing and four files, then 429 with a Retry-After of minutes.
  const standin = await startIntervalsIcuStandin({ clientId: ICU_CLIENT.id, clientSecret: ICU_CLIENT.secret, rateLimit: { requests: 5, windowMs: 600_000, retryAfter: true } });
  const base = Math.floor(Date.now() / 1000) * 1000 - 86_400_000; // whole seconds, as the listing gives them
  for (let i = 0; i < 8; i++) standin.activities.push({ id: `i${i}`, start: base - i * 86_400_000, file: fitActivity({ start: base - i * 86_400_000, seconds: 60 }) });
  const stack = await startStack({ ...intervalsIcuEnv(standin), JOB_POLL_MS: '20', BACKFILL_STATUS_INTERVAL_MS: '20', BACKFILL_STATUS_DURATION_MS: '200' });
  try {
    const owner = await createUser(stack.store, { email: 'quota-owner@example.com' });
    const app = await createApplication(stack.store, owner.id, { name: 'Quota', redirect_uris: ['https://quota.example.com/cb'] });
    const user = await stack.userWithToken(['activities:read'], { appId: app.id });
    await connectThroughPortal(stack.baseUrl, user.token);
    const job = await until('the backfill paused', async () => {
      const found = await stack.store.jobs.findOne({ kind: 'provider_backfill', user_id: user.userId });
      return found && found.status === 'queued' && found.run_after > Date.now() + 60_000 ? found : undefined;
    });
    assert.is(job.attempts, 0, 'a pause is not a failed attempt');
    const connection = (await stack.store.connections.findOne({ user_id: user.userId }))!;
    assert.is(connection.backfill_done, false);
    assert.is(connection.sync_error?.code, 'rate_limited');
    assert.is(await stack.store.sources.count({ user_id: user.userId }), 4, 'what was loaded stays loaded');
    assert.is(connection.backfill_loaded_until, base - 3 * 86_400_000);
    const lines = (await (await stack.get('/api/v1/activities/backfill-status', user.token)).text()).trim().split('\n').map((line) => JSON.parse(line) as Record<string, { code?: string }>);
    assert.ok(lines.some((line) => line.error?.code === 'rate_limited'), 'the pause is reported');
  } finally {
    await stack.close();
    await standin.close();
  }
});

test.run();
