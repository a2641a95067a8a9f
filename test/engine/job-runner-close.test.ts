/**
 * Closing a job runner (engine/jobs/runner.ts) ends its loops at once, also a loop that was claiming a job
 * when the close came: `threshold import` closes its runner at the end of every import, and an engine at
 * every stop. Before, such a loop went on to wait a whole poll interval.
 */
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startJobRunner } from '../../engine/jobs/runner.js';
import { openSqliteStore } from '../../storage/sqlite/sqlite-store.js';
import type { Store } from '../../storage/store.js';
import { until } from '../support/integrations.js';
import { silentLogger } from './support.js';

/** Far beyond the bound below: a loop that waits for it has not seen the close. */
const POLL_MS = 120_000;
const CLOSE_BOUND_MS = 30_000;

test('a runner closed while a loop claims a job ends without waiting a poll interval', async () => {
  const store = await openSqliteStore({ file: ':memory:' });
  let claims = 0;
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  // The real store, its first claim held until the runner is closing.
  const holding: Store = {
    ...store,
    async claimJob(...args) {
      claims++;
      if (claims === 1) await held;
      return store.claimJob(...args);
    },
  };
  const runner = startJobRunner({
    store: holding,
    logger: silentLogger(),
    handlers: { nothing: { run: async () => undefined } },
    concurrency: 1,
    leaseMs: 60_000,
    pollMs: POLL_MS,
  });
  try {
    await until('the first claim', async () => (claims === 1 ? true : undefined));
    const closing = runner.close();
    release();
    let bound: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      closing.then(() => 'closed'),
      new Promise<string>((resolve) => (bound = setTimeout(() => resolve('still waiting'), CLOSE_BOUND_MS))),
    ]);
    clearTimeout(bound);
    assert.is(outcome, 'closed', `close() still waited after ${CLOSE_BOUND_MS} ms (poll interval ${POLL_MS} ms)`);
    assert.is(claims, 1, 'no claim after the close');
  } finally {
    await store.close();
  }
});

test.run();
