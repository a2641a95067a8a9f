/**
 * Polling, the fallback for pushes that never came (intervals.icu keeps no missed-delivery feed): once the
 * backfill is done, an activity uploaded at the provider without any push still arrives, once.
 */
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack } from '../support/stack.js';
import { startIntervalsIcuStandin } from '../support/standins/intervals-icu.js';
import { connectThroughPortal, ICU_CLIENT, intervalsIcuEnv, until } from '../support/integrations.js';
import { fitActivity } from '../support/fit-writer.js';
import { createApplication, createUser } from '../../gateway/services/accounts.js';

test('an activity the provider never pushed arrives by polling, once', async () => {
  const standin = await startIntervalsIcuStandin({ clientId: ICU_CLIENT.id, clientSecret: ICU_CLIENT.secret });
  const yesterday = Date.now() - 86_400_000;
  standin.activities.push({ id: 'i1', start: yesterday - 86_400_000, file: fitActivity({ start: yesterday - 86_400_000, seconds: 60 }) });
  const stack = await startStack({ ...intervalsIcuEnv(standin), JOB_POLL_MS: '20', INTEGRATION_POLL_MS: '200' });
  try {
    const owner = await createUser(stack.store, { email: 'poll-owner@example.com' });
    const app = await createApplication(stack.store, owner.id, { name: 'Poller', redirect_uris: ['https://poll.example.com/cb'] });
    const user = await stack.userWithToken(['activities:read'], { appId: app.id });
    await connectThroughPortal(stack.baseUrl, user.token);
    await until('backfill done', async () => ((await stack.store.connections.findOne({ user_id: user.userId }))?.backfill_done ? true : undefined));
    standin.activities.push({ id: 'i2', start: yesterday, file: fitActivity({ start: yesterday, seconds: 60 }) });
    await until('polled activity imported', async () => ((await stack.store.sources.count({ user_id: user.userId, external_id: 'intervals_icu:i2' })) === 1 ? true : undefined));
    await until('a later poll ran', async () => (standin.requests.filter((request) => request.path.endsWith('/activities')).length >= 4 ? true : undefined));
    assert.is(await stack.store.sources.count({ user_id: user.userId }), 2, 'each activity once');
  } finally {
    await stack.close();
    await standin.close();
  }
});

test.run();
