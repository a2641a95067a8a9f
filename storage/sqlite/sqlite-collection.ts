/**
 * One collection of the SQLite backend: a `(id TEXT PRIMARY KEY, doc TEXT NOT NULL)` table of JSON
 * documents, plus one column per derived field (schema.ts `derived`; NULL when absent), which is merged
 * into the document on every read and read alone by `findFields` without parsing the document, and one
 * column per projected field (schema.ts `projected`; a copy of the document's value, NULL when missing or
 * null), written with the document and read by filters, sorts and `findFields` instead of it. Every operation has a synchronous form (`…Now`) that the store's transactions
 * (batch, deleteUser) call directly — better-sqlite3 transactions cannot span an `await` — and the
 * port's async form around it. Read-then-write operations run in an IMMEDIATE transaction, which
 * takes the write lock first, so a conditional `updateOne` is atomic across connections and
 * processes, not only within this event loop.
 */
import type BetterSqlite3 from 'better-sqlite3';
import {
  DuplicateKeyError, type Change, type Collection, type CollectionName, type Doc, type Filter, type FindOptions,
  type InsertOutcome,
} from '../store.js';
import { keyFilter, parseFields, parseFilter, parsePage, parseSort, type SortKey } from '../query.js';
import { SCHEMA } from '../schema.js';
import { applyChange, checkDoc, isEmptyChange, parseWrite, projectedValue, writtenDoc } from '../apply-change.js';
import { checkGetById, checkOwnedDoc, checkOwnedFilter } from '../shard-keys.js';
import { orderBy, whereClause, type SqlValue, type SqlWhere } from './sql-filter.js';

/** What a collection needs from its database: cached statements, IMMEDIATE transactions, and where the port's writes run. */
export interface SqliteHandle {
  prepare(sql: string): BetterSqlite3.Statement;
  immediate<R>(work: () => R): R;
  /** Runs a write of the async port: at once, or in the next group commit (write-groups.ts). */
  write<R>(work: () => R): Promise<R>;
}

/** A row as read: the document's JSON text and, by name, each derived field's column. */
interface DocRow {
  doc: string;
  [derived: string]: string | number | null;
}

/** A field's value from `json_type` and `json_extract` (which gives 1/0 for booleans and JSON text for objects and arrays). */
function fieldValue(type: string, value: unknown): unknown {
  switch (type) {
    case 'true': return true;
    case 'false': return false;
    case 'null': return null;
    case 'object': case 'array': return JSON.parse(value as string);
    default: return value;
  }
}

/** The type findFields selects for a value read as it is (a number: no string made per row). */
const AS_IS = 1;

const UNIQUE_VIOLATIONS = new Set(['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY']);

export class SqliteCollection<T extends Doc> implements Collection<T> {
  private readonly table: string;
  private readonly derived: readonly string[];
  /** `doc` and the derived fields' columns: what every whole-document read selects. */
  private readonly docColumns: string;
  private readonly projected: readonly string[];
  /** The columns a whole-document write sets after `doc`: the projected fields'. */
  private readonly written: string[];
  /** Rewrites a document, its derived and its projected columns: `doc = ?, "<field>" = ? …` with the id last. */
  private readonly rewrite: string;

  constructor(private readonly handle: SqliteHandle, readonly name: CollectionName) {
    this.table = `"${name}"`;
    this.derived = SCHEMA[name].derived ?? [];
    this.projected = SCHEMA[name].projected ?? [];
    this.docColumns = ['doc', ...this.derived.map((field) => `"${field}"`)].join(', ');
    this.written = this.projected.map((field) => `"${field}"`);
    this.rewrite = `UPDATE ${this.table} SET ${['doc', ...this.derived.map((field) => `"${field}"`), ...this.written].map((column) => `${column} = ?`).join(', ')} WHERE id = ?`;
  }

  /** The projected columns' values of a document, in `projected` order. */
  private projectedValues(doc: object): (string | number | null)[] {
    return this.projected.map((field) => projectedValue((doc as Record<string, unknown>)[field]));
  }

  private where(filter: Filter<T>): SqlWhere {
    checkOwnedFilter(this.name, filter);
    return whereClause(parseFilter(filter, this.derived), this.name);
  }

  private sort(options: Pick<FindOptions<T>, 'sort'> | undefined): SortKey[] {
    return parseSort(options?.sort, this.derived);
  }

  /** The document a row holds, its derived fields included. */
  private readDoc(row: DocRow): T {
    const doc = JSON.parse(row.doc) as Record<string, unknown>;
    for (const field of this.derived) if (row[field] !== null) doc[field] = row[field];
    return doc as T;
  }

  /** Writes `next` over the row with its id: the document without derived fields, each of those in its column. */
  private rewriteNow(next: T): T {
    const { id } = next;
    const plain = JSON.stringify(writtenDoc(next, this.name));
    const columns = this.derived.map((field) => ((next as Record<string, unknown>)[field] ?? null) as string | number | null);
    this.write(() => this.handle.prepare(this.rewrite).run(plain, ...columns, ...this.projectedValues(next), id));
    const written = JSON.parse(plain) as Record<string, unknown>;
    for (const [i, field] of this.derived.entries()) if (columns[i] !== null) written[field] = columns[i];
    return written as T;
  }

  /** Runs a write, turning a unique-constraint failure into the port's DuplicateKeyError. */
  private write<R>(work: () => R): R {
    try {
      return work();
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (typeof code === 'string' && UNIQUE_VIOLATIONS.has(code)) {
        throw new DuplicateKeyError(this.name, (error as Error).message);
      }
      throw error;
    }
  }

  insertNow(doc: T): void {
    checkDoc(doc, this.name, 'insert');
    checkOwnedDoc(this.name, doc, 'insert');
    const json = JSON.stringify(writtenDoc(doc, this.name));
    this.write(() => this.handle.prepare(`INSERT INTO ${this.table} (${['id', 'doc', ...this.written].join(', ')}) VALUES (${['?', '?', ...this.written.map(() => '?')].join(', ')})`)
      .run(doc.id, json, ...this.projectedValues(doc)));
  }

  putNow(doc: T): void {
    checkDoc(doc, this.name, 'put');
    checkOwnedDoc(this.name, doc, 'put');
    const json = JSON.stringify(writtenDoc(doc, this.name));
    const replaced = [...this.docColumns.split(', '), ...this.written];
    this.write(() => this.handle.prepare(
      `INSERT INTO ${this.table} (${['id', 'doc', ...this.written].join(', ')}) VALUES (${['?', '?', ...this.written.map(() => '?')].join(', ')}) ` +
      `ON CONFLICT (id) DO UPDATE SET ${replaced.map((column) => `${column} = excluded.${column}`).join(', ')}`,
    ).run(doc.id, json, ...this.projectedValues(doc)));
  }

  insertIfAbsentNow(doc: T, key: (keyof T & string)[]): InsertOutcome<T> {
    const existingFilter = keyFilter(doc, key) as Filter<T>;
    return this.handle.immediate(() => {
      try {
        this.insertNow(doc);
        return { inserted: true, doc: writtenDoc(doc, this.name) };
      } catch (error) {
        if (!(error instanceof DuplicateKeyError)) throw error;
        const existing = this.findNow(existingFilter, { limit: 1 })[0];
        if (existing === undefined) throw error; // the collision was on another unique index
        return { inserted: false, existing };
      }
    });
  }

  /** `SELECT <columns>` over what `find(filter, options)` matches, in its order and page; null for `limit: 0`. */
  private selectPage(columns: string, filter: Filter<T>, options: FindOptions<T> | undefined): { sql: string; args: SqlValue[] } | null {
    const { sql, params } = this.where(filter);
    const { limit, offset } = parsePage(options);
    if (limit === 0) return null;
    const paged = limit !== null || offset > 0;
    const page = paged ? ' LIMIT ? OFFSET ?' : '';
    return {
      sql: `SELECT ${columns} FROM ${this.table} WHERE ${sql}${orderBy(this.sort(options), this.name)}${page}`,
      args: [...params, ...(paged ? [limit ?? -1, offset] : [])],
    };
  }

  findNow(filter: Filter<T>, options?: FindOptions<T>): T[] {
    const query = this.selectPage(this.docColumns, filter, options);
    if (query === null) return [];
    const rows = this.handle.prepare(query.sql).all(...query.args) as DocRow[];
    return rows.map((row) => this.readDoc(row));
  }

  /**
   * Two columns per field, its JSON type and `json_extract`'s value, so only objects and arrays are parsed;
   * a derived field's column is read as it is, without touching the document, and so is a projected one's
   * unless it is NULL (then the document says whether the field is null or missing).
   */
  findFieldsNow<K extends keyof T & string>(filter: Filter<T>, fields: readonly K[], options?: FindOptions<T>): Pick<T, K>[] {
    const names = parseFields(fields);
    const columns = names.map((field) => {
      if (field === 'id') return `${AS_IS}, id`;
      if (this.derived.includes(field)) return `iif("${field}" IS NULL, NULL, ${AS_IS}), "${field}"`;
      if (this.projected.includes(field)) return `iif("${field}" IS NULL, json_type(doc, '$.${field}'), ${AS_IS}), "${field}"`;
      return `json_type(doc, '$.${field}'), json_extract(doc, '$.${field}')`;
    });
    const query = this.selectPage(columns.join(', '), filter, options);
    if (query === null) return [];
    const rows = this.handle.prepare(query.sql).raw(true).all(...query.args) as unknown[][];
    return rows.map((row) => {
      const picked: Record<string, unknown> = {};
      for (let i = 0; i < names.length; i++) {
        const type = row[2 * i] as string | number | null;
        if (type === AS_IS) picked[names[i]!] = row[2 * i + 1];
        else if (type !== null) picked[names[i]!] = fieldValue(type as string, row[2 * i + 1]);
      }
      return picked as Pick<T, K>;
    });
  }

  findIdsNow(filter: Filter<T>): string[] {
    const { sql, params } = this.where(filter);
    const rows = this.handle.prepare(`SELECT id FROM ${this.table} WHERE ${sql}`).all(...params) as { id: string }[];
    return rows.map((row) => row.id);
  }

  updateOneNow(filter: Filter<T>, change: Change<T>, options?: Pick<FindOptions<T>, 'sort'>): T | null {
    const parsed = parseWrite(change, this.name);
    const { sql, params } = this.where(filter);
    const select = `SELECT ${this.docColumns} FROM ${this.table} WHERE ${sql}${orderBy(this.sort(options), this.name)} LIMIT 1`;
    return this.handle.immediate(() => {
      const row = this.handle.prepare(select).get(...params) as DocRow | undefined;
      if (row === undefined) return null;
      if (isEmptyChange(parsed)) return this.readDoc(row);
      return this.rewriteNow(applyChange(this.readDoc(row), parsed));
    });
  }

  updateManyNow(filter: Filter<T>, change: Change<T>): number {
    const parsed = parseWrite(change, this.name);
    const { sql, params } = this.where(filter);
    return this.handle.immediate(() => {
      const rows = this.handle.prepare(`SELECT ${this.docColumns} FROM ${this.table} WHERE ${sql}`).all(...params) as DocRow[];
      if (isEmptyChange(parsed)) return rows.length;
      for (const row of rows) this.rewriteNow(applyChange(this.readDoc(row), parsed));
      return rows.length;
    });
  }

  deleteManyNow(filter: Filter<T>): number {
    const { sql, params } = this.where(filter);
    return this.handle.prepare(`DELETE FROM ${this.table} WHERE ${sql}`).run(...params).changes;
  }

  async insert(doc: T): Promise<void> {
    return this.handle.write(() => this.insertNow(doc));
  }

  async insertIfAbsent(doc: T, key: (keyof T & string)[]): Promise<InsertOutcome<T>> {
    return this.handle.write(() => this.insertIfAbsentNow(doc, key));
  }

  async get(id: string): Promise<T | null> {
    checkGetById(this.name);
    const row = this.handle.prepare(`SELECT ${this.docColumns} FROM ${this.table} WHERE id = ?`).get(id) as DocRow | undefined;
    return row === undefined ? null : this.readDoc(row);
  }

  async findOne(filter: Filter<T>, options?: Pick<FindOptions<T>, 'sort'>): Promise<T | null> {
    return this.findNow(filter, { ...options, limit: 1 })[0] ?? null;
  }

  async find(filter: Filter<T>, options?: FindOptions<T>): Promise<T[]> {
    return this.findNow(filter, options);
  }

  async findFields<K extends keyof T & string>(filter: Filter<T>, fields: readonly K[], options?: FindOptions<T>): Promise<Pick<T, K>[]> {
    return this.findFieldsNow(filter, fields, options);
  }

  async count(filter: Filter<T>): Promise<number> {
    const { sql, params } = this.where(filter);
    const row = this.handle.prepare(`SELECT count(*) AS n FROM ${this.table} WHERE ${sql}`).get(...params) as { n: number };
    return row.n;
  }

  async updateOne(filter: Filter<T>, change: Change<T>, options?: Pick<FindOptions<T>, 'sort'>): Promise<T | null> {
    return this.handle.write(() => this.updateOneNow(filter, change, options));
  }

  async updateMany(filter: Filter<T>, change: Change<T>): Promise<number> {
    return this.handle.write(() => this.updateManyNow(filter, change));
  }

  async put(doc: T): Promise<void> {
    return this.handle.write(() => this.putNow(doc));
  }

  async deleteMany(filter: Filter<T>): Promise<number> {
    return this.handle.write(() => this.deleteManyNow(filter));
  }
}
