/** The wait after a throttled call (engine/integrations/rate-limit-wait.ts), as the backfill and workout delivery both use it. */
import assert from 'node:assert/strict';
import { test } from '../../support/uvu.js';
import { placeWait, rateLimitWaitMs } from '../../../engine/integrations/rate-limit-wait.js';

const NOW = 1_768_478_400_000;

test('waits until the named time (never less than nothing), else backs off within the streak\'s ceiling', () => {
  assert.equal(rateLimitWaitMs(NOW + 30_000, 1, NOW), 30_000);
  assert.equal(rateLimitWaitMs(NOW - 5000, 1, NOW), 0);
  for (const streak of [1, 2, 3]) {
    const wait = rateLimitWaitMs(null, streak, NOW);
    assert.ok(wait >= 500 * 2 ** (streak - 1) && wait <= 1000 * 2 ** (streak - 1), `streak ${streak}: ${wait} ms`);
  }
});

test('short waits are spent inside the job, longer ones in the queue, and those past the cap not at all', () => {
  const backfill = { inlineMaxMs: 60_000, capMs: Infinity };
  assert.equal(placeWait(60_000, backfill), 'inline');
  assert.equal(placeWait(60_001, backfill), 'reschedule');
  assert.equal(placeWait(1000, { ...backfill, queue: true }), 'reschedule', 'a daily quota goes to the queue however short');
  const delivery = { inlineMaxMs: 0, capMs: 3_600_000, queue: true };
  assert.equal(placeWait(3_600_000, delivery), 'reschedule');
  assert.equal(placeWait(3_600_001, delivery), 'give_up');
});

test.run();
