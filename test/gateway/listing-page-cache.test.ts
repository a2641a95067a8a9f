/**
 * gateway/services/listing-page-cache.ts on a real store: a page is answered from memory only under the
 * stamp it was built under and within its age; memory stays under its bound, least recently used out first;
 * a store whose writes do not renew stamps gets every page built.
 */
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { openStore } from '../../storage/open-store.js';
import { openSqliteStore } from '../../storage/sqlite/sqlite-store.js';
import { ListingPageCache, MAX_AGE_MS } from '../../gateway/services/listing-page-cache.js';
import { activity } from '../storage/records.js';

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

test.run();
