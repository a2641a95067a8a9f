/**
 * Refusals the provider will not change by being asked again (a 4xx other than 401/403/429) are reported at
 * once instead of after every retry: a refused listing ends the backfill with `backfill_failed` after one
 * request, and a refused file is skipped after one request with `download_failed` while the others load,
 * whether the backfill or a push brought it.
 * Against the intervals.icu stand-in, on the real stack.
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { startIntervalsIcuStandin, type IntervalsIcuStandin } from '../support/standins/intervals-icu.js';
import { connectThroughPortal, ICU_CLIENT, intervalsIcuEnv, until } from '../support/integrations.js';
import { fitActivity } from '../support/fit-writer.js';
import { createApplication, createUser } from '../../gateway/services/accounts.js';

const test = suite('backfill refusals');
const LISTING = /^\/api\/v1\/athlete\/[^/]+\/activities$/;
const DAY = 86_400_000;

/** The stand-in with three one-minute rides, a stack on it, and a user connected through the portal. */
async function connected(script: (standin: IntervalsIcuStandin) => void): Promise<{ standin: IntervalsIcuStandin; stack: TestStack; userId: string; token: string }> {
  const standin = await startIntervalsIcuStandin({ clientId: ICU_CLIENT.id, clientSecret: ICU_CLIENT.secret, webhookSecret: ICU_CLIENT.webhookSecret });
  const base = Math.floor(Date.now() / 1000) * 1000 - DAY;
  for (let i = 0; i < 3; i++) standin.activities.push({ id: `i${i}`, start: base - i * DAY, file: fitActivity({ start: base - i * DAY, seconds: 60 }) });
  script(standin);
  const stack = await startStack({ ...intervalsIcuEnv(standin), JOB_POLL_MS: '20', BACKFILL_STATUS_INTERVAL_MS: '20', BACKFILL_STATUS_DURATION_MS: '200' });
  const owner = await createUser(stack.store, { email: `refusals-${Math.random()}@example.com` });
  const app = await createApplication(stack.store, owner.id, { name: 'Refusals', redirect_uris: ['https://refusals.example.com/cb'] });
  const user = await stack.userWithToken(['activities:read'], { appId: app.id });
  await connectThroughPortal(stack.baseUrl, user.token);
  return { standin, stack, userId: user.userId, token: user.token };
}

async function errorCodes(stack: TestStack, token: string): Promise<string[]> {
  const text = await (await stack.get('/api/v1/activities/backfill-status', token)).text();
  return text.trim().split('\n').map((line) => JSON.parse(line) as { error?: { code: string } }).flatMap((line) => (line.error ? [line.error.code] : []));
}

test('a refused listing ends the backfill at once with backfill_failed: one request, one attempt', async () => {
  const { standin, stack, userId, token } = await connected((standin) => standin.failNext(LISTING, 400, 10));
  try {
    const job = await until('the backfill ended', async () => {
      const found = await stack.store.jobs.findOne({ kind: 'provider_backfill', user_id: userId });
      return found?.status === 'done' ? found : undefined;
    });
    assert.is(job.attempts, 1, 'not retried');
    assert.is(standin.requests.filter((request) => LISTING.test(request.path)).length, 1, 'the listing was asked once');
    const connection = (await stack.store.connections.findOne({ user_id: userId }))!;
    assert.is(connection.sync_error?.code, 'backfill_failed');
    assert.match(connection.sync_error?.message ?? '', '400');
    assert.equal(await errorCodes(stack, token), ['backfill_failed']);
  } finally {
    await stack.close();
    await standin.close();
  }
});

test('a refused file is skipped after one request with download_failed; the other files load', async () => {
  const file = /^\/api\/v1\/activity\/i1\/file$/;
  const { standin, stack, userId, token } = await connected((standin) => standin.failNext(file, 422, 10));
  try {
    await until('the backfill done', async () => ((await stack.store.connections.findOne({ user_id: userId }))?.backfill_done ? true : undefined));
    assert.is(standin.requests.filter((request) => file.test(request.path)).length, 1, 'the refused file was asked once');
    assert.is(await stack.store.sources.count({ user_id: userId }), 2);
    assert.is((await stack.store.connections.findOne({ user_id: userId }))!.sync_error?.code, 'download_failed');
    assert.equal(await errorCodes(stack, token), ['download_failed']);
  } finally {
    await stack.close();
    await standin.close();
  }
});

test('a pushed activity whose file is refused is reported once with download_failed; the push job does not retry it', async () => {
  const { standin, stack, userId } = await connected(() => undefined);
  try {
    await until('the backfill done', async () => ((await stack.store.connections.findOne({ user_id: userId }))?.backfill_done ? true : undefined));
    const fresh = { id: 'i9', start: Math.floor(Date.now() / 1000) * 1000, file: fitActivity({ start: Math.floor(Date.now() / 1000) * 1000, seconds: 60 }) };
    standin.activities.push(fresh);
    const file = /^\/api\/v1\/activity\/i9\/file$/;
    standin.failNext(file, 422, 10);
    assert.equal(await standin.push(`${stack.baseUrl}/api/v1/integrations/intervals_icu/push`, [standin.activityEvent(fresh)]), [200]);
    const job = await until('the push job ended', async () => {
      const found = await stack.store.jobs.findOne({ kind: 'provider_push' });
      return found && found.status !== 'queued' && found.status !== 'running' ? found : undefined;
    });
    assert.equal([job.status, job.attempts], ['done', 1]);
    assert.is(standin.requests.filter((request) => file.test(request.path)).length, 1, 'the refused file was asked once');
    assert.is((await stack.store.connections.findOne({ user_id: userId }))!.sync_error?.code, 'download_failed');
  } finally {
    await stack.close();
    await standin.close();
  }
});

test.run();
