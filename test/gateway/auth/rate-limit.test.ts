/** Rate limiters: each budget is split between the processes of one `threshold serve`, rounded up. */
import * as assert from 'uvu/assert';
import { test } from '../../support/uvu.js';
import { createRateLimits, RateLimiter } from '../../../gateway/auth/rate-limit.js';
import { loadGatewayConfig } from '../../../gateway/config.js';

test('one process keeps every budget; two processes get half of each, rounded up, never below one', () => {
  const one = createRateLimits();
  const two = createRateLimits({ processes: 2 });
  assert.equal([one.signInFailures, one.signInAddressFailures, one.magicLinks, one.signUps, one.tokenFailures].map((l) => l.limit.max), [10, 30, 5, 20, 20]);
  assert.equal([two.signInFailures, two.signInAddressFailures, two.magicLinks, two.signUps, two.tokenFailures].map((l) => l.limit.max), [5, 15, 3, 10, 10]);
  assert.is(createRateLimits({ processes: 64 }).magicLinks.limit.max, 1);
  assert.is(two.signInSlowDown.policy.free, 2);
});

test('release takes back one counted event in the current window', () => {
  const limiter = new RateLimiter({ max: 2, windowMs: 60_000 });
  limiter.record('k', 0);
  limiter.record('k', 0);
  assert.is(limiter.retryAfter('k', 0), 60);
  limiter.release('k', 0);
  assert.is(limiter.retryAfter('k', 0), null);
  assert.is(limiter.count('k', 0), 1);
});

test('GATEWAY_PROCESSES is a whole number from 1 to 64', () => {
  assert.is(loadGatewayConfig({ GATEWAY_PROCESSES: '3' }).gatewayProcesses, 3);
  for (const bad of ['0', '65', 'two', '1.5']) assert.throws(() => loadGatewayConfig({ GATEWAY_PROCESSES: bad }), /GATEWAY_PROCESSES/);
});

test.run();
