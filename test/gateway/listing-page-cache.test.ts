/**
 * gateway/services/listing-page-cache.ts on a real store: a page is answered from memory only under the
 * stamp it was built under and within its age; memory stays under its bound, least recently used out first;
 * a store whose writes do not renew stamps gets every page built; and two processes' caches (two stores
 * opened on the same data, SQLite file and MongoDB) never answer a page from before the other's write.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { skipUnless, suite, test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { openStore } from '../../storage/open-store.js';
import { openSqliteStore } from '../../storage/sqlite/sqlite-store.js';
import { ListingPageCache, MAX_AGE_MS } from '../../gateway/services/listing-page-cache.js';
import { activity } from '../storage/records.js';
import type { Store } from '../../storage/store.js';
import { tempDir } from '../support/stack.js';
import { dropTestDatabase, mongoServerMissing, startMongoServer, type MongoServer } from '../support/mongo-server.js';

/** A build that counts its calls and answers `bytes` of the given length. */
function builder(length: number) {
  const counter = { builds: 0, build: async () => (counter.builds++, Buffer.alloc(length, counter.builds)) };
  return counter;
}

test('answers a kept page until the user writes or it ages; keeps memory under its bound, least recently used out first', async () => {
  const store = await openStore({ mongodbUri: null, sqliteFile: ':memory:' });
  let now = 0;
  const cache = new ListingPageCache(250, () => now);
  try {
    const a = builder(100);
    const first = await cache.page(store, 'u1', 'a', a.build);
    assert.is(await cache.page(store, 'u1', 'a', a.build), first, 'the same bytes again');
    assert.is(a.builds, 1);
    await store.activities.insert(activity('x', 'u1'));
    await cache.page(store, 'u1', 'a', a.build);
    assert.is(a.builds, 2, "a write of the user's renews the stamp: built again");
    await store.activities.insert(activity('y', 'u2'));
    await cache.page(store, 'u1', 'a', a.build);
    assert.is(a.builds, 2, "another user's write changes nothing");
    now += MAX_AGE_MS;
    await cache.page(store, 'u1', 'a', a.build);
    assert.is(a.builds, 3, 'an entry past its age is built again');

    const b = builder(100);
    const c = builder(100);
    await cache.page(store, 'u1', 'b', b.build);
    await cache.page(store, 'u1', 'a', a.build); // a is now the most recently used
    await cache.page(store, 'u1', 'c', c.build);
    assert.ok(cache.size <= 250, `${cache.size} bytes kept`);
    await cache.page(store, 'u1', 'a', a.build);
    await cache.page(store, 'u1', 'b', b.build);
    assert.equal([a.builds, b.builds, c.builds], [3, 2, 1], 'the least recently used page (b) went first');
  } finally {
    await store.close();
  }
});

test('shares one build among requests that miss at once, and builds again for a request after a write', async () => {
  const store = await openStore({ mongodbUri: null, sqliteFile: ':memory:' });
  const cache = new ListingPageCache();
  try {
    const a = builder(10);
    const pages = await Promise.all(Array.from({ length: 20 }, () => cache.page(store, 'u1', 'a', a.build)));
    assert.is(a.builds, 1);
    assert.ok(pages.every((page) => page === pages[0]));
    let release!: () => void;
    const slow = { builds: 0, build: async () => (slow.builds++, await new Promise<void>((resolve) => (release = resolve)), Buffer.from('old')) };
    await store.activities.insert(activity('x', 'u1'));
    const before = cache.page(store, 'u1', 'b', slow.build);
    await until(() => slow.builds === 1);
    await store.activities.insert(activity('y', 'u1'));
    const after = cache.page(store, 'u1', 'b', async () => Buffer.from('new'));
    release();
    assert.is((await before).toString(), 'old');
    assert.is((await after).toString(), 'new', 'a build started before a write is not shared with a request after it');
  } finally {
    await store.close();
  }
});

/** Polls `done` until it holds (two seconds at most). */
async function until(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 2000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('listing page cache test: gave up waiting');
    await new Promise((resolve) => setImmediate(resolve));
  }
}

test('builds every page over a store whose writes do not renew listing stamps', async () => {
  const store = await openSqliteStore({ file: ':memory:' });
  const cache = new ListingPageCache();
  try {
    const a = builder(10);
    await cache.page(store, 'u1', 'a', a.build);
    await cache.page(store, 'u1', 'a', a.build);
    assert.is(a.builds, 2);
    assert.is(cache.size, 0);
  } finally {
    await store.close();
  }
});

/** Two caches over two stores opened on the same data, as two gateway processes hold them: each sees the other's writes. */
async function twoProcesses(open: () => Promise<Store>): Promise<void> {
  const [a, b] = [await open(), await open()];
  try {
    const [cacheA, cacheB] = [new ListingPageCache(), new ListingPageCache()];
    const page = (store: Store, cache: ListingPageCache) => cache.page(store, 'u1', 'all', async () => Buffer.from(JSON.stringify(await store.activities.find({ user_id: 'u1' }, { sort: { start: -1 } }))));
    const ids = async (store: Store, cache: ListingPageCache) => (JSON.parse((await page(store, cache)).toString()) as { id: string }[]).map((record) => record.id);
    await a.activities.insert(activity('x1', 'u1'));
    assert.equal(await ids(a, cacheA), ['x1']);
    assert.equal(await ids(b, cacheB), ['x1']);
    await b.activities.insert(activity('x2', 'u1', { start: activity('x1', 'u1').start + 1 }));
    assert.equal(await ids(a, cacheA), ['x2', 'x1'], "A's kept page is not answered after B's write");
    await a.activities.deleteMany({ id: 'x2', user_id: 'u1' });
    assert.equal(await ids(b, cacheB), ['x1'], "B's kept page is not answered after A's deletion");
    await a.activities.updateOne({ id: 'x1', user_id: 'u1' }, { set: { laps: null } });
    assert.is((JSON.parse((await page(b, cacheB)).toString()) as { laps: unknown }[])[0]!.laps, null, "B's kept page is not answered after A's laps edit");
  } finally {
    await a.close();
    await b.close();
  }
}

test("two processes' caches over one SQLite file never answer a page from before the other's write", async () => {
  const dir = tempDir();
  try {
    await twoProcesses(() => openStore({ mongodbUri: null, sqliteFile: path.join(dir, 'threshold.sqlite') }));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();

const mongo = suite('listing page cache on MongoDB');
skipUnless(mongoServerMissing(), mongo);
let server: MongoServer | undefined;
mongo.before(async () => {
  server = await startMongoServer();
});
mongo.after(async () => {
  await server?.stop();
});

mongo("two processes' caches over one MongoDB database never answer a page from before the other's write", async () => {
  const database = `threshold_test_${randomBytes(6).toString('hex')}`;
  try {
    await twoProcesses(() => openStore({ mongodbUri: server!.uri, mongodbDatabase: database, sqliteFile: '' }));
  } finally {
    await dropTestDatabase(server!.uri, database);
  }
});

mongo.run();
