/**
 * Group commit on the embedded backend (storage/sqlite/write-groups.ts), as `threshold import` uses it and
 * as the engine's background writers use it through `withGroupCommit` (a view on the same connection):
 * the whole storage contract holds with it on, writes issued together share one transaction, one that
 * fails rejects alone, and nothing is acknowledged before it is committed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { openSqliteStore } from '../../storage/sqlite/sqlite-store.js';
import { DuplicateKeyError } from '../../storage/store.js';
import { storeContract } from './contract.js';
import { user } from './records.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'threshold-group-commit-'));
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));
let files = 0;
const freshFile = (): string => path.join(tmp, `store-${++files}`, 'threshold.sqlite');

storeContract('sqlite file, group commit', () => openSqliteStore({ file: freshFile(), groupCommit: { maxWrites: 8, maxDelayMs: 1 } }));
storeContract('sqlite file, group-commit view', async () => (await openSqliteStore({ file: freshFile() })).withGroupCommit!({ maxWrites: 8, maxDelayMs: 1 }));

const test = suite('sqlite group commit');

/** Bytes the WAL grew by while `work` ran: each commit appends the pages it changed, so fewer commits write fewer frames. */
async function walGrowth(file: string, work: () => Promise<unknown>): Promise<number> {
  const before = fs.statSync(`${file}-wal`).size;
  await work();
  return fs.statSync(`${file}-wal`).size - before;
}

test('writes issued together share one transaction: the WAL grows by a fraction of one commit each', async () => {
  const grouped = freshFile();
  const single = freshFile();
  const groupedStore = await openSqliteStore({ file: grouped, groupCommit: { maxWrites: 64, maxDelayMs: 20 } });
  const singleStore = await openSqliteStore({ file: single });
  const writes = (store: typeof groupedStore) => Promise.all(Array.from({ length: 32 }, (_, i) => store.users.insert(user(`u${i}`))));
  const together = await walGrowth(grouped, () => writes(groupedStore));
  const apart = await walGrowth(single, () => writes(singleStore));
  assert.ok(together * 8 < apart, `grouped writes grew the WAL by ${together} bytes, one commit each by ${apart}`);
  assert.is((await groupedStore.users.find({})).length, 32);
  await groupedStore.close();
  await singleStore.close();
});

test('acknowledges a write only once it is committed: another connection sees it when the promise resolves', async () => {
  const file = freshFile();
  const store = await openSqliteStore({ file, groupCommit: { maxWrites: 64, maxDelayMs: 20 } });
  const reader = new Database(file, { readonly: true });
  const count = () => (reader.prepare('SELECT count(*) AS n FROM users').get() as { n: number }).n;
  const writing = Promise.all([store.users.insert(user('a')), store.blobs.put('k', new Uint8Array([1]), { userId: 'a' }), store.batch([{ collection: 'users', insert: user('b') }])]);
  assert.is(count(), 0, 'nothing is committed while the group waits');
  await writing;
  assert.is(count(), 2);
  reader.close();
  await store.close();
});

test('a write that fails in a group rejects alone and the others commit', async () => {
  const file = freshFile();
  const store = await openSqliteStore({ file, groupCommit: { maxWrites: 64, maxDelayMs: 20 } });
  await store.users.insert(user('taken'));
  const outcomes = await Promise.allSettled([
    store.users.insert(user('before')),
    store.batch([{ collection: 'users', insert: user('in-batch') }, { collection: 'users', insert: user('taken') }]),
    store.users.insert(user('after')),
  ]);
  assert.equal(outcomes.map((outcome) => outcome.status), ['fulfilled', 'rejected', 'fulfilled']);
  assert.instance((outcomes[1] as PromiseRejectedResult).reason, DuplicateKeyError);
  assert.equal((await store.users.find({})).map((record) => record.id).sort(), ['after', 'before', 'taken'], 'the failed batch left nothing');
  await store.close();
});

test('a full group commits at once, and close commits a waiting one first', async () => {
  const file = freshFile();
  // A delay no test waits for: only the size bound or close can commit these.
  const store = await openSqliteStore({ file, groupCommit: { maxWrites: 3, maxDelayMs: 600_000 } });
  await Promise.all([store.users.insert(user('a')), store.users.insert(user('b')), store.users.insert(user('c'))]);
  const waiting = store.users.insert(user('d'));
  await store.close();
  await waiting;
  const reopened = await openSqliteStore({ file });
  assert.is((await reopened.users.find({})).length, 4);
  await reopened.close();
});

test("the engine's view (withGroupCommit) groups its writes on the store's connection, the store's own writes stay direct, and close commits the view's waiting group", async () => {
  const file = freshFile();
  const store = await openSqliteStore({ file });
  const view = store.withGroupCommit!({ maxWrites: 64, maxDelayMs: 600_000 });
  const writes = (target: typeof store, from: number) => Promise.all(Array.from({ length: 32 }, (_, i) => target.users.insert(user(`u${from + i}`))));
  const direct = await walGrowth(file, () => writes(store, 0));
  const together = await walGrowth(file, () => Promise.all([writes(view, 100), writes(view, 200)]));
  assert.ok(together * 8 < direct, `the view's 64 writes grew the WAL by ${together} bytes, 32 direct ones by ${direct}`);
  const waiting = view.users.insert(user('late'));
  assert.is(await store.users.get('late'), null, 'not committed while its group waits');
  await view.close();
  await waiting;
  const reopened = await openSqliteStore({ file });
  assert.is((await reopened.users.find({})).length, 97);
  await reopened.close();
});

test.run();
