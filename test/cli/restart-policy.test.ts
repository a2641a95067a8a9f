/** When `threshold serve` restarts a gateway process and when it gives up (cli/restart-policy.ts). */
import * as assert from 'uvu/assert';
import { test } from '../support/uvu.js';
import { RestartPolicy, type ExitDecision } from '../../cli/restart-policy.js';

const options = { maxStartFailures: 5, baseDelayMs: 250, maxDelayMs: 1000, stableMs: 30_000 };

test('failures at start back off exponentially, capped, and the fifth in a row gives up', () => {
  const policy = new RestartPolicy(options);
  const decisions: ExitDecision[] = [1, 2, 3, 4, 5].map(() => policy.exited(null));
  assert.equal(decisions, [
    { action: 'restart', delayMs: 250 }, { action: 'restart', delayMs: 500 }, { action: 'restart', delayMs: 1000 },
    { action: 'restart', delayMs: 1000 }, { action: 'give-up', failures: 5 },
  ]);
});

test('a process that became ready in between breaks the run of failures at start', () => {
  const policy = new RestartPolicy(options);
  for (let i = 0; i < 4; i++) policy.exited(null);
  policy.ready();
  assert.equal(policy.exited(null), { action: 'restart', delayMs: 250 });
});

test('a process that crashes after serving is always restarted: at once after a long life, backing off when it keeps crashing soon after', () => {
  const policy = new RestartPolicy(options);
  assert.equal(policy.exited(3_600_000), { action: 'restart', delayMs: 0 });
  const quick = Array.from({ length: 8 }, () => policy.exited(100));
  assert.equal(quick.map((decision) => decision.action === 'restart' && decision.delayMs), [250, 500, 1000, 1000, 1000, 1000, 1000, 1000]);
  assert.equal(policy.exited(60_000), { action: 'restart', delayMs: 0 }, 'a long life again restarts at once');
});

test.run();
