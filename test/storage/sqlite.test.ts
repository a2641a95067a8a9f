/**
 * The storage contract on the embedded backend, in memory and on a file, plus what only a file
 * can show: durability across reopening, WAL mode, and writers on separate connections and
 * threads racing for the same conditional write.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { brotliCompressSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { openSqliteStore } from '../../storage/sqlite/sqlite-store.js';
import { orderBy, whereClause } from '../../storage/sqlite/sql-filter.js';
import { parseFilter, parseSort } from '../../storage/query.js';
import { storeContract } from './contract.js';
import { SCHEMA } from '../../storage/schema.js';
import { T0, activity, authorizationCode, user } from './records.js';
import type { RaceWorkerData } from './sqlite-race-worker.js';
import { FIXTURES } from '../support/paths.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'threshold-storage-'));
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));
let files = 0;
const freshFile = (): string => path.join(tmp, `store-${++files}`, 'threshold.sqlite');

storeContract('sqlite :memory:', () => openSqliteStore({ file: ':memory:' }));
storeContract('sqlite file', () => openSqliteStore({ file: freshFile() }));

const test = suite('sqlite store on a file');

test('keeps data across close and reopen, in WAL journal mode', async () => {
  const file = freshFile();
  const store = await openSqliteStore({ file });
  await store.users.insert(user('u1'));
  await store.blobs.put('k', new Uint8Array([1, 2, 3]), { userId: 'u1' });
  await store.close();

  const reopened = await openSqliteStore({ file });
  assert.equal(await reopened.users.get('u1'), user('u1'));
  assert.equal(Array.from((await reopened.blobs.get('k')) ?? []), [1, 2, 3]);
  await reopened.close();

  const raw = new Database(file, { readonly: true });
  assert.is(raw.pragma('journal_mode', { simple: true }), 'wal');
  raw.close();
});

test('creates the parent directories of the database file', async () => {
  const file = path.join(tmp, 'deep', 'er', 'threshold.sqlite');
  const store = await openSqliteStore({ file });
  await store.ping();
  await store.close();
  assert.ok(fs.existsSync(file));
});

test('lets exactly one of two handles on one file consume a code', async () => {
  const file = freshFile();
  const first = await openSqliteStore({ file });
  const second = await openSqliteStore({ file });
  await first.authorization_codes.insert(authorizationCode('c1', 'u1', 'a1'));
  const results = await Promise.all(Array.from({ length: 10 }, (_, i) =>
    (i % 2 === 0 ? first : second).authorization_codes.updateOne({ id: 'c1', consumed_at: null }, { set: { consumed_at: i + 1 } })));
  assert.is(results.filter((r) => r !== null).length, 1);
  await first.close();
  await second.close();
});

test('lets exactly one of four threads with their own connections consume each code', async () => {
  const file = freshFile();
  const store = await openSqliteStore({ file });
  const codes = Array.from({ length: 200 }, (_, i) => `c${i}`);
  for (const id of codes) await store.authorization_codes.insert(authorizationCode(id, 'u1', 'a1'));

  const gate = new SharedArrayBuffer(4);
  const workers = [1, 2, 3, 4].map((worker) => new Worker(new URL('./sqlite-race-worker.js', import.meta.url), {
    workerData: { file, worker, codes, gate } satisfies RaceWorkerData,
  }));
  const runs = workers.map((w, i) => {
    const failure = (reason: unknown) => new Error(`race worker ${i + 1}: ${reason instanceof Error ? reason.message : String(reason)}`);
    const ready = new Promise<void>((resolve, reject) => {
      w.on('message', (message: { ready?: number; failed?: string }) => {
        if (message.ready !== undefined) resolve();
        if (message.failed !== undefined) reject(failure(message.failed));
      });
      w.on('error', (error) => reject(failure(error)));
    });
    const won = new Promise<string[]>((resolve, reject) => {
      w.on('message', (message: { won?: string[]; failed?: string }) => {
        if (message.won) resolve(message.won);
        if (message.failed !== undefined) reject(failure(message.failed));
      });
      w.on('error', (error) => reject(failure(error)));
      w.on('exit', () => reject(failure('exited without a report')));
    });
    ready.catch(() => undefined);
    won.catch(() => undefined); // awaited below; this only keeps an early failure from going unhandled
    return { ready, won };
  });
  let won: string[][];
  try {
    await Promise.all(runs.map((run) => run.ready));
  } finally {
    // Open the gate even when a worker failed, so none stays blocked.
    Atomics.store(new Int32Array(gate), 0, 1);
    Atomics.notify(new Int32Array(gate), 0);
  }
  try {
    won = await Promise.all(runs.map((run) => run.won));
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }

  assert.equal(won.flat().sort(), [...codes].sort(), 'every code consumed exactly once');
  for (const [i, ids] of won.entries()) {
    for (const id of ids) assert.is((await store.authorization_codes.get(id))?.consumed_at, i + 1);
  }
  await store.close();
});

test('adds a derived field\'s column to a table made before the field was declared', async () => {
  const file = freshFile();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const old = new Database(file);
  old.exec('CREATE TABLE "activities" (id TEXT PRIMARY KEY, doc TEXT NOT NULL)');
  old.prepare('INSERT INTO "activities" (id, doc) VALUES (?, ?)').run('act1', JSON.stringify(activity('act1', 'u1')));
  old.close();
  const store = await openSqliteStore({ file });
  assert.equal(await store.activities.findOne({ id: 'act1', user_id: 'u1' }), activity('act1', 'u1'));
  await store.activities.updateOne({ id: 'act1', user_id: 'u1' }, { set: { listing: '{}', listing_version: 1 } });
  assert.equal(await store.activities.findFields({ id: 'act1', user_id: 'u1' }, ['listing', 'listing_version']), [{ listing: '{}', listing_version: 1 }]);
  await store.close();
});

test('reads projected fields from their own columns: a filtered, sorted findFields of them parses no document', async () => {
  const file = freshFile();
  const store = await openSqliteStore({ file });
  await store.activities.insert(activity('act1', 'u1', { start: T0 + 1, analysis_key: 'a1', analysis_version: 4 }));
  await store.activities.insert(activity('act2', 'u1', { local_date: '2024-01-02', analysis_key: null as never }));
  // The documents lose the fields behind the store's back; only the columns still hold them.
  const raw = new Database(file);
  raw.exec(`UPDATE activities SET doc = json_remove(doc, '$.sport', '$.start', '$.local_date', '$.analysis_key', '$.analysis_version')`);
  const filter = { user_id: 'u1', sport: { $prefix: 'cycling' }, local_date: { $gte: '2024-01-01' } };
  const fields = ['id', 'sport', 'start', 'local_date', 'analysis_key', 'analysis_version'] as const;
  assert.equal(await store.activities.findFields(filter, fields, { sort: { start: 1 } }), [
    { id: 'act2', sport: 'cycling.road', start: T0, local_date: '2024-01-02' },
    { id: 'act1', sport: 'cycling.road', start: T0 + 1, local_date: '2024-01-01', analysis_key: 'a1', analysis_version: 4 },
  ], 'a NULL column asks the document whether the field is null or missing (here: gone from it)');
  const { sql, params } = whereClause(parseFilter(filter), 'activities');
  const plan = (raw.prepare(`EXPLAIN QUERY PLAN SELECT id FROM activities WHERE ${sql}`).all(...params) as { detail: string }[]).map((row) => row.detail).join('; ');
  assert.match(plan, /USING INDEX activities_by_user_id_(local_date|start)/, plan);
  assert.not.match(sql, /doc/, sql);
  raw.close();
  await store.close();
});

test('reads a list page (newest first, id the tie-breaker) off an index, without a temporary B-tree', async () => {
  const file = freshFile();
  const store = await openSqliteStore({ file });
  for (let i = 0; i < 30; i++) await store.activities.insert(activity(`act${i % 7}-${i}`, i % 3 === 0 ? 'u2' : 'u1', { source_index: i, start: T0 + (i % 4) * 1000 }));
  const page = await store.activities.findFields({ user_id: 'u1' }, ['id', 'start'], { sort: { start: -1 }, limit: 5, offset: 1 });
  const every = (await store.activities.findFields({ user_id: 'u1' }, ['id', 'start']))
    .sort((a, b) => b.start - a.start || (a.id < b.id ? -1 : 1));
  assert.equal(page, every.slice(1, 6), 'start descending, ties by id ascending');
  const raw = new Database(file);
  const { sql, params } = whereClause(parseFilter({ user_id: 'u1' }), 'activities');
  const query = `SELECT id, listing FROM activities WHERE ${sql}${orderBy(parseSort({ start: -1 }), 'activities')} LIMIT 50`;
  const plan = (raw.prepare(`EXPLAIN QUERY PLAN ${query}`).all(...params) as { detail: string }[]).map((row) => row.detail).join('; ');
  assert.match(plan, /USING INDEX activities_by_user_id_start_desc_id/, plan);
  assert.not.match(plan, /TEMP B-TREE/, plan);
  raw.close();
  await store.close();
});

test('reads a traces page (newest first, id the tie-breaker) off an index, without a temporary B-tree', async () => {
  const file = freshFile();
  const store = await openSqliteStore({ file });
  await store.close();
  const raw = new Database(file);
  const { sql, params } = whereClause(parseFilter({ user_id: 'u1' }), 'traces');
  const query = `SELECT doc FROM traces WHERE ${sql}${orderBy(parseSort({ timestamp: -1 }), 'traces')} LIMIT 100 OFFSET 5000`;
  const plan = (raw.prepare(`EXPLAIN QUERY PLAN ${query}`).all(...params) as { detail: string }[]).map((row) => row.detail).join('; ');
  assert.match(plan, /USING INDEX traces_by_user_id_timestamp_desc_id/, plan);
  assert.not.match(plan, /TEMP B-TREE/, plan);
  raw.close();
});

test('rebuilds a table made before its projected fields: the columns before the document, filled, indexed', async () => {
  const file = freshFile();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const old = new Database(file);
  old.exec('CREATE TABLE "activities" (id TEXT PRIMARY KEY, doc TEXT NOT NULL, "listing", "listing_version")');
  old.exec(`CREATE INDEX "activities_by_user_id_start" ON "activities" (json_extract(doc, '$.user_id'), json_extract(doc, '$.start'))`);
  const insert = old.prepare('INSERT INTO "activities" (id, doc, listing, listing_version) VALUES (?, ?, ?, ?)');
  insert.run('act1', JSON.stringify(activity('act1', 'u1', { analysis_key: null as never })), '{"id":"act1"}', 3);
  insert.run('act2', JSON.stringify(activity('act2', 'u1', { start: T0 + 1, analysis_key: 'k2', analysis_version: 7 })), null, null);
  old.close();

  const store = await openSqliteStore({ file });
  assert.equal(await store.activities.findFields({ user_id: 'u1', start: { $gte: T0 } }, ['id', 'start', 'analysis_key', 'analysis_version', 'listing'], { sort: { start: -1 } }), [
    { id: 'act2', start: T0 + 1, analysis_key: 'k2', analysis_version: 7 },
    { id: 'act1', start: T0, analysis_key: null, listing: '{"id":"act1"}' },
  ]);
  assert.equal(await store.activities.findOne({ id: 'act1', user_id: 'u1' }), { ...activity('act1', 'u1', { analysis_key: null as never }), listing: '{"id":"act1"}', listing_version: 3 });
  await store.close();

  const db = new Database(file, { readonly: true });
  const columns = (db.prepare('PRAGMA table_info("activities")').all() as { name: string }[]).map((column) => column.name);
  assert.equal(columns, ['id', ...SCHEMA.activities.projected!, 'doc', 'listing', 'listing_version']);
  const index = (db.prepare(`SELECT sql FROM sqlite_master WHERE name = 'activities_by_user_id_start'`).get() as { sql: string }).sql;
  assert.is(index, 'CREATE INDEX "activities_by_user_id_start" ON "activities" ("user_id", "start")');
  const root = db.prepare(`SELECT rootpage FROM sqlite_master WHERE name = 'activities'`).pluck().get();
  db.close();
  const reopened = await openSqliteStore({ file });
  await reopened.close();
  const again = new Database(file, { readonly: true });
  assert.is(again.prepare(`SELECT rootpage FROM sqlite_master WHERE name = 'activities'`).pluck().get(), root, 'rebuilt once, not on every start');
  again.close();
});

/** A real FIT file (1 MB, multisport): an original upload as the store keeps it. */
const FIT_FILE = path.join(FIXTURES, 'fit', 'python-fitparse', 'activity-large-fenxi2-multisport.fit');

test('stores a blob Brotli-compressed, its encoding and own size beside the smaller bytes', async () => {
  const file = freshFile();
  const store = await openSqliteStore({ file });
  const fit = new Uint8Array(fs.readFileSync(FIT_FILE));
  await store.blobs.put('source:s1', fit, { userId: 'u1' });
  await store.blobs.put('tiny', new Uint8Array([1, 2, 3]), { userId: 'u1' });
  assert.ok(Buffer.from((await store.blobs.get('source:s1'))!).equals(fit));
  assert.is(await store.blobs.size('source:s1'), fit.byteLength);
  await store.close();

  const raw = new Database(file, { readonly: true });
  const row = (key: string) => raw.prepare('SELECT encoding, size, length(bytes) AS stored FROM blobs WHERE key = ?').get(key) as { encoding: string; size: number; stored: number };
  const stored = row('source:s1');
  assert.is(stored.encoding, 'br');
  assert.is(stored.size, fit.byteLength);
  assert.ok(stored.stored < fit.byteLength * 0.5, `stored ${stored.stored} of ${fit.byteLength} bytes`);
  assert.equal(row('tiny'), { encoding: 'identity', size: 3, stored: 3 }, 'a few bytes are kept as given');
  raw.close();
});

test('reads blobs stored uncompressed by the previous version, in a table made before encodings', async () => {
  const file = freshFile();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const fit = fs.readFileSync(FIT_FILE);
  // Bytes that are themselves a valid Brotli stream: the stored encoding decides, never the bytes.
  const looksCompressed = brotliCompressSync(fit);
  const old = new Database(file);
  old.exec('CREATE TABLE blobs (key TEXT PRIMARY KEY, user_id TEXT, bytes BLOB NOT NULL)');
  const insert = old.prepare('INSERT INTO blobs (key, user_id, bytes) VALUES (?, ?, ?)');
  insert.run('source:old', 'u1', fit);
  insert.run('files/old.br', 'u1', looksCompressed);
  old.close();

  const store = await openSqliteStore({ file });
  assert.ok(Buffer.from((await store.blobs.get('source:old'))!).equals(fit));
  assert.is(await store.blobs.size('source:old'), fit.byteLength);
  assert.ok(Buffer.from((await store.blobs.get('files/old.br'))!).equals(looksCompressed));
  assert.is(await store.blobs.size('files/old.br'), looksCompressed.byteLength);
  await store.blobs.put('source:new', fit, { userId: 'u1' });
  assert.ok(Buffer.from((await store.blobs.get('source:new'))!).equals(fit), 'the upgraded table stores new blobs too');
  assert.is(await store.blobs.deletePrefix('source:'), 2);
  await store.close();
});

test('answers equality on an indexed field from its expression index', async () => {
  const file = freshFile();
  await (await openSqliteStore({ file })).close();
  const raw = new Database(file, { readonly: true });
  const plan = (table: string, filter: object): string => {
    const { sql, params } = whereClause(parseFilter(filter), table);
    return (raw.prepare(`EXPLAIN QUERY PLAN SELECT doc FROM "${table}" WHERE ${sql}`).all(...params) as { detail: string }[])
      .map((row) => row.detail).join('; ');
  };
  assert.match(plan('users', { email: 'a@example.com' }), 'USING INDEX users_by_email');
  assert.match(plan('authorization_codes', { code_hash: 'h', consumed_at: null }), 'USING INDEX authorization_codes_by_code_hash');
  assert.match(plan('activities', { user_id: 'u1', start: { $gte: 0, $lt: 10 } }), 'USING INDEX activities_by_user_id_start');
  assert.match(plan('grants', { user_id: 'u1', application_id: { $in: ['a', 'b'] } }), 'USING INDEX grants_by_user_id_application_id');
  raw.close();
});


test('upgrades an older database: the unique (source_id, source_index) gives way to (user_id, start, source_id, source_index)', async () => {
  const file = freshFile();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const old = new Database(file);
  old.exec('CREATE TABLE "activities" (id TEXT PRIMARY KEY, doc TEXT NOT NULL)');
  old.exec(`CREATE UNIQUE INDEX "activities_by_source_id_source_index" ON "activities" (json_extract(doc, '$.source_id'), json_extract(doc, '$.source_index'))`);
  old.close();
  const store = await openSqliteStore({ file });
  await store.close();
  const reopened = new Database(file);
  const indexes = (reopened.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'activities'`).all() as { name: string }[]).map((row) => row.name);
  reopened.close();
  assert.not.ok(indexes.includes('activities_by_source_id_source_index'), 'the replaced index is dropped');
  assert.ok(indexes.includes('activities_by_user_id_start_source_id_source_index'), indexes.join(', '));
});

test.run();
