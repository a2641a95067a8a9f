/**
 * Rate limiters count in the store: limiters built over two connections to one store (as two gateway
 * processes are), on SQLite and on MongoDB, spend from one budget; every budget is whole, whatever
 * GATEWAY_PROCESSES says. Across real processes: test/gateway/rate-limit-processes.test.ts; the counters'
 * contract: test/storage/contract.ts.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import * as assert from 'uvu/assert';
import { skipUnless, suite } from '../../support/uvu.js';
import { tempDir } from '../../support/stack.js';
import { createRateLimits, RateLimiter } from '../../../gateway/auth/rate-limit.js';
import { sometimesSweep } from '../../../gateway/auth/sweep.js';
import { loadGatewayConfig } from '../../../gateway/config.js';
import { openSqliteStore } from '../../../storage/sqlite/sqlite-store.js';
import { openMongoStore } from '../../../storage/mongo/mongo-store.js';
import { dropTestDatabase, mongoServerMissing, startMongoServer, type MongoServer } from '../../support/mongo-server.js';
import type { Store } from '../../../storage/store.js';

/** Two connections to one fresh store, and how to close both and remove it. */
interface TwoConnections {
  first: Store;
  second: Store;
  close(): Promise<void>;
}

async function sqliteConnections(): Promise<TwoConnections> {
  const dir = tempDir();
  const file = path.join(dir, 'threshold.sqlite');
  const [first, second] = [await openSqliteStore({ file }), await openSqliteStore({ file })];
  return { first, second, close: async () => { await first.close(); await second.close(); fs.rmSync(dir, { recursive: true, force: true }); } };
}

let mongo: MongoServer | undefined;

async function mongoConnections(): Promise<TwoConnections> {
  const { uri } = mongo!;
  const database = `threshold_test_${randomBytes(6).toString('hex')}`;
  const [first, second] = [await openMongoStore({ uri, database }), await openMongoStore({ uri, database })];
  return { first, second, close: async () => { await first.close(); await second.close(); await dropTestDatabase(uri, database); } };
}

/** The limiter tests on one backend, each on two fresh connections to one store. */
function limiterSuite(label: string, open: () => Promise<TwoConnections>, setup: { missing?: string | null; before?: () => Promise<void>; after?: () => Promise<void> } = {}): void {
  const test = suite(`rate limiters in the store: ${label}`);
  skipUnless(setup.missing ?? null, test);
  if (setup.before) test.before(setup.before);
  if (setup.after) test.after(setup.after);
  const onTwoConnections = (work: (first: Store, second: Store) => Promise<void>) => async (): Promise<void> => {
    const connections = await open();
    try {
      await work(connections.first, connections.second);
    } finally {
      await connections.close();
    }
  };

  test('every budget is whole: no share per process any more', onTwoConnections(async (first) => {
    const limits = createRateLimits(first);
    assert.equal([limits.signInFailures, limits.signInAddressFailures, limits.magicLinks, limits.signUps, limits.tokenFailures].map((l) => l.limit.max), [10, 30, 5, 20, 20]);
    assert.is(limits.signInSlowDown.policy.free, 4);
  }));

  test('limiters on two connections to one store spend from one budget, with one Retry-After', onTwoConnections(async (first, second) => {
    const [a, b] = [createRateLimits(first).magicLinks, createRateLimits(second).magicLinks];
    const now = 1_000_000;
    const taken: (number | null)[] = [];
    for (let i = 0; i < 8; i++) taken.push(await (i % 2 === 0 ? a : b).take('email:ada@example.com', now + i));
    assert.equal(taken, [null, null, null, null, null, 900, 900, 900], '5 links per 15 minutes in all, then the wait until the window ends');
    assert.is(await b.count('email:ada@example.com', now + 8), 5, 'a refused attempt is taken back');
    assert.is(await a.retryAfter('email:ada@example.com', now + 60_000), 840);
    assert.is(await a.retryAfter('email:bob@example.com', now), null, 'other keys count on their own');
  }));

  test('a window opens with its first event, and the next event after it ends opens a fresh one', onTwoConnections(async (first, second) => {
    const limiter = new RateLimiter('probe', { max: 2, windowMs: 60_000 }, first.rate_limits);
    const other = new RateLimiter('probe', { max: 2, windowMs: 60_000 }, second.rate_limits);
    await limiter.record('k', 0);
    await other.record('k', 30_000);
    assert.is(await limiter.retryAfter('k', 30_000), 30, 'the window ends 60 s after its first event, not its last');
    assert.is(await other.retryAfter('k', 60_000), null, 'over at its end');
    const { count, expires_at } = await other.record('k', 60_000);
    assert.equal({ count, expires_at }, { count: 1, expires_at: 120_000 });
    assert.is(await first.rate_limits.count({}), 1, 'one stored window per key');
  }));

  test('release takes back one counted event in the current window; reset forgets the key', onTwoConnections(async (first) => {
    const limiter = new RateLimiter('probe', { max: 2, windowMs: 60_000 }, first.rate_limits);
    await limiter.record('k', 0);
    await limiter.record('k', 0);
    assert.is(await limiter.retryAfter('k', 0), 60);
    await limiter.release('k', 0);
    assert.is(await limiter.retryAfter('k', 0), null);
    assert.is(await limiter.count('k', 0), 1);
    await limiter.release('k', 0);
    await limiter.release('k', 0);
    assert.is(await limiter.count('k', 0), 0, 'never below zero');
    await limiter.reset('k');
    assert.is(await first.rate_limits.count({}), 0);
  }));

  test('stores keys hashed under the limit\'s name, never the email or address itself', onTwoConnections(async (first) => {
    await createRateLimits(first).signInFailures.record('email:ada@example.com ip:203.0.113.9', 0);
    const [stored] = await first.rate_limits.find({});
    assert.match(stored!.id, /^sign_in:[A-Za-z0-9_-]{43}$/);
  }));

  test('the sweep removes windows that ended and keeps live ones', onTwoConnections(async (first) => {
    const limiter = new RateLimiter('probe', { max: 2, windowMs: 60_000 }, first.rate_limits);
    await limiter.record('old', 0);
    await limiter.record('live', 50_000);
    await sometimesSweep(first.rate_limits, 100_000, 0, 1);
    assert.is(await limiter.count('live', 100_000), 1);
    assert.is(await first.rate_limits.count({}), 1);
  }));

  test('the slow-down\'s delay follows the count each attempt\'s own increment returned', onTwoConnections(async (first, second) => {
    const delays: number[] = [];
    const pause = async (ms: number) => void delays.push(ms);
    const [a, b] = [createRateLimits(first, { pause }).signInSlowDown, createRateLimits(second, { pause }).signInSlowDown];
    await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? a : b).attempt('email:ada@example.com')));
    assert.equal(delays.sort((x, y) => x - y), [250, 500, 1000, 2000], 'four free attempts, then one delay per count');
    await a.release('email:ada@example.com');
    await b.attempt('email:ada@example.com');
    assert.is(delays.at(-1), 2000, 'a success gives its count back');
  }));

  test.run();
}

limiterSuite('sqlite file', sqliteConnections);
limiterSuite(process.env.MONGODB_URI?.trim() ? 'mongo (MONGODB_URI)' : 'mongo (bundled jongodb)', mongoConnections, {
  missing: mongoServerMissing(),
  before: async () => { mongo = await startMongoServer(); },
  after: async () => { await mongo?.stop(); },
});

const config = suite('gateway config');

config('GATEWAY_PROCESSES is a whole number from 1 to 64', () => {
  assert.is(loadGatewayConfig({ GATEWAY_PROCESSES: '3' }).gatewayProcesses, 3);
  for (const bad of ['0', '65', 'two', '1.5']) assert.throws(() => loadGatewayConfig({ GATEWAY_PROCESSES: bad }), /GATEWAY_PROCESSES/);
});

config.run();
