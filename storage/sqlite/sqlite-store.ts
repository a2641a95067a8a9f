/**
 * The embedded backend: one SQLite file (better-sqlite3, WAL mode) holding one table of JSON
 * documents per collection, expression indexes per SCHEMA, and the blob table.
 *
 * better-sqlite3 is synchronous; each call is short, and the port's methods stay `async`. Because
 * nothing awaits inside a transaction, a transaction never interleaves with other work on the same
 * connection; across connections and processes, IMMEDIATE transactions and the busy timeout
 * serialise writers. Kept honest by test/storage/contract.ts and test/storage/sqlite.test.ts.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { StoreUsageError, type CollectionName, type Collections, type Doc, type JobRecord, type Store } from '../store.js';
import { COLLECTION_NAMES, SCHEMA, indexName, isDescending } from '../schema.js';
import { batchStep, checkMatched, claimJobQuery, userDeletion, type DeletionResult, type DeletionStep } from '../store-operations.js';
import { SqliteCollection, type SqliteHandle } from './sqlite-collection.js';
import { SqliteBlobs, BLOBS_SCHEMA, addBlobColumns } from './sqlite-blobs.js';
import { fieldExpression } from './sql-filter.js';
import { makePrivateDir, makePrivateFile, tighten } from '../private-files.js';
import { holdServiceLock, type ServiceLock } from './service-lock.js';
import { walFilesOf } from './sqlite-files.js';
import { writeGroups, type GroupCommit, type WriteGroups } from './write-groups.js';

/** How long a writer waits for another connection's write lock before failing, in milliseconds. */
const BUSY_TIMEOUT_MS = 5000;
/** Prepared statements kept per connection (queries with long `$in` lists make many distinct texts). */
const STATEMENT_CACHE_SIZE = 500;

/** The CREATE INDEX statement of each declared index of `name`, by index name (without IF NOT EXISTS: as sqlite_master keeps it). */
function indexStatements(name: CollectionName): Map<string, string> {
  const statements = new Map<string, string>();
  for (const index of SCHEMA[name].indexes) {
    const expression = (field: string) => fieldExpression(field, name);
    const columns = index.fields.map((field) => `${expression(field)}${isDescending(index, field) ? ' DESC' : ''}`).join(', ');
    // A sparse unique index constrains only documents in which every field is present and not null.
    // (A plain UNIQUE index lets NULLs repeat where MongoDB would not; the records never leave
    // the fields of non-sparse unique indexes null.)
    const partial = index.sparse ? ` WHERE ${index.fields.map((f) => `${expression(f)} IS NOT NULL`).join(' AND ')}` : '';
    statements.set(indexName(name, index), `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX "${indexName(name, index)}" ON "${name}" (${columns})${partial}`);
  }
  return statements;
}

/**
 * A collection's table: the id, the projected fields' columns, the document, the derived fields' columns.
 * The projected columns come before the document so that a row's first bytes hold them: reading them never
 * walks the document's overflow pages (a document with laps spans several).
 */
function tableColumns(name: CollectionName): string[] {
  const { derived = [], projected = [] } = SCHEMA[name];
  return ['id TEXT PRIMARY KEY', ...projected.map((field) => `"${field}"`), 'doc TEXT NOT NULL', ...derived.map((field) => `"${field}"`)];
}

/**
 * Brings a table made before a field was declared to tableColumns: a derived field's column is added (NULL:
 * nothing derived yet); projected columns that are missing or placed after the document rebuild the table
 * once, each filled from its document's value (when it is one a projected field holds). Indexes are made
 * again by createIndexes.
 */
function upgradeTable(db: Database.Database, name: CollectionName): void {
  const { derived = [], projected = [] } = SCHEMA[name];
  const columns = (db.prepare(`PRAGMA table_info("${name}")`).all() as { name: string }[]).map((column) => column.name);
  for (const field of derived) if (!columns.includes(field)) db.exec(`ALTER TABLE "${name}" ADD COLUMN "${field}"`);
  const doc = columns.indexOf('doc');
  if (projected.every((field) => { const at = columns.indexOf(field); return at !== -1 && at < doc; })) return;
  const rebuilt = `${name}__rebuilt`;
  const kept = ['id', 'doc', ...derived].map((column) => `"${column}"`);
  const filled = projected.map((field) => `iif(json_type(doc, '$.${field}') IN ('text', 'integer', 'real'), json_extract(doc, '$.${field}'), NULL)`);
  db.exec(`DROP TABLE IF EXISTS "${rebuilt}"`);
  db.exec(`CREATE TABLE "${rebuilt}" (${tableColumns(name).join(', ')})`);
  db.exec(`INSERT INTO "${rebuilt}" (${[...kept, ...projected.map((field) => `"${field}"`)].join(', ')}) SELECT ${[...kept, ...filled].join(', ')} FROM "${name}"`);
  db.exec(`DROP TABLE "${name}"`);
  db.exec(`ALTER TABLE "${rebuilt}" RENAME TO "${name}"`);
}

/**
 * Drops the indexes a collection no longer declares (named by the `<collection>_by_` rule of schema.ts), and
 * those declared on other expressions (a field that became projected is indexed on its column), so an older
 * database upgrades: activities' unique `(source_id, source_index)` became `(user_id, start, source_id,
 * source_index)`; createIndexes makes them again.
 */
function dropReplacedIndexes(db: Database.Database): void {
  for (const name of COLLECTION_NAMES) {
    const declared = indexStatements(name);
    const existing = db.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ?`).all(name) as { name: string; sql: string | null }[];
    for (const { name: index, sql } of existing) {
      if (index.startsWith(`${name}_by_`) && declared.get(index) !== sql) db.exec(`DROP INDEX "${index}"`);
    }
  }
}

function createIndexes(db: Database.Database): void {
  for (const name of COLLECTION_NAMES) {
    for (const sql of indexStatements(name).values()) db.exec(sql.replace(/^CREATE (UNIQUE )?INDEX /, 'CREATE $1INDEX IF NOT EXISTS '));
  }
}

/** The folder (when this creates it), the database and its `-wal` and `-shm` files readable by this user only (private-files.ts). */
function makePrivate(file: string): void {
  makePrivateDir(path.dirname(path.resolve(file)));
  makePrivateFile(file);
  for (const log of walFilesOf(file)) tighten(log);
}

function onDisk(file: string): boolean {
  return file !== ':memory:' && file !== '';
}

function connect(file: string): Database.Database {
  if (onDisk(file)) makePrivate(file);
  const db = new Database(file, { timeout: BUSY_TIMEOUT_MS });
  try {
    db.pragma('journal_mode = WAL');
    // FULL: a committed write (a consumed code, a claimed job) survives a power loss too, not only a
    // crash of the process. (better-sqlite3 would default WAL databases to NORMAL.)
    db.pragma('synchronous = FULL');
    db.transaction(() => {
      for (const name of COLLECTION_NAMES) {
        db.exec(`CREATE TABLE IF NOT EXISTS "${name}" (${tableColumns(name).join(', ')})`);
        upgradeTable(db, name);
      }
      for (const sql of BLOBS_SCHEMA) db.exec(sql);
      dropReplacedIndexes(db);
      createIndexes(db);
      addBlobColumns(db);
    }).immediate();
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

function handleFor(db: Database.Database, groups: WriteGroups | null): SqliteHandle {
  const statements = new Map<string, Database.Statement>();
  const transaction = db.transaction((work: () => unknown) => work());
  return {
    write: groups ? groups.write : async (work) => work(),
    prepare(sql) {
      let statement = statements.get(sql);
      if (statement === undefined) {
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.clear();
        statement = db.prepare(sql);
        statements.set(sql, statement);
      }
      return statement;
    },
    immediate<R>(work: () => R): R {
      return transaction.immediate(work) as R;
    },
  };
}

/**
 * Opens (creating when needed) the store in `file`, or an in-memory store for ':memory:'. `service`: this
 * process is part of the running service, and holds the service lock (service-lock.ts) until `close`.
 * `groupCommit`: the port's writes commit in groups (write-groups.ts); for bulk writers such as `threshold import`.
 * `withGroupCommit` gives the same store, on the same connection, with grouped writes: for a process's background writers.
 */
export async function openSqliteStore(options: { file: string; service?: boolean; groupCommit?: GroupCommit }): Promise<Store> {
  const lock: ServiceLock | null = options.service && onDisk(options.file) ? holdServiceLock(options.file) : null;
  let db: Database.Database;
  try {
    db = connect(options.file);
  } catch (error) {
    lock?.release();
    throw error;
  }
  /** Every group of this connection: a group still waiting commits before the database closes, and its writers are told once it did. */
  const allGroups: WriteGroups[] = [];
  const grouped = (groupCommit: GroupCommit): WriteGroups => {
    const groups = writeGroups(db, groupCommit);
    allGroups.push(groups);
    return groups;
  };
  const store: Store = {
    ...storeOn(db, handleFor(db, options.groupCommit ? grouped(options.groupCommit) : null)),
    async close() {
      for (const groups of allGroups) if (db.open) groups.commit();
      if (db.open) db.close();
      lock?.release();
    },
  };
  store.withGroupCommit = (groupCommit) => ({ ...storeOn(db, handleFor(db, grouped(groupCommit))), close: store.close, withGroupCommit: store.withGroupCommit });
  return store;
}

/** The port over one connection, writing through `handle` (directly, or in groups); `close` is the opener's. */
function storeOn(db: Database.Database, handle: SqliteHandle): Omit<Store, 'close'> {
  const blobs = new SqliteBlobs(handle);
  const collections = Object.fromEntries(
    COLLECTION_NAMES.map((name) => [name, new SqliteCollection<Doc>(handle, name)]),
  ) as Record<CollectionName, SqliteCollection<Doc>>;

  function runDeletionStep(step: DeletionStep): DeletionResult {
    switch (step.kind) {
      case 'find-ids': return collections[step.collection].findIdsNow(step.filter);
      case 'delete': return collections[step.collection].deleteManyNow(step.filter);
      case 'delete-blobs': return blobs.deleteOwnedNow(step.userIds);
    }
  }

  return {
    ...(collections as unknown as Collections),
    backend: 'sqlite',
    blobs,

    // "SQLite: one transaction."
    async batch(ops) {
      const steps = ops.map(batchStep);
      await handle.write(() => handle.immediate(() => {
        for (const step of steps) {
          const collection = collections[step.collection];
          switch (step.kind) {
            case 'insert': collection.insertNow(step.doc); break;
            case 'put': collection.putNow(step.doc); break;
            case 'update': checkMatched(step, collection.updateManyNow(step.filter, step.change)); break;
            case 'delete': collection.deleteManyNow(step.filter); break;
          }
        }
      }));
    },

    async claimJob(kinds, owner, leaseMs, now = Date.now()): Promise<JobRecord | null> {
      const claim = claimJobQuery(kinds, owner, leaseMs, now);
      const jobs = collections.jobs as unknown as SqliteCollection<JobRecord>;
      return handle.write(() => jobs.updateOneNow(claim.filter, claim.change, { sort: claim.sort }));
    },

    async deleteUser(userId) {
      if (typeof userId !== 'string' || userId.length === 0) throw new StoreUsageError('deleteUser: expected a user id');
      return handle.write(() => handle.immediate(() => {
        const walk = userDeletion(userId);
        let step = walk.next();
        while (!step.done) step = walk.next(runDeletionStep(step.value));
        return step.value;
      }));
    },

    async ping() {
      db.prepare('SELECT 1').get();
    },
  };
}
