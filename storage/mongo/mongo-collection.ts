/**
 * One collection of the MongoDB backend. Documents are stored with `_id` = the port's `id` and
 * mapped back on every read, so `_id` never leaks. Every method takes an optional session as a last
 * argument, which `batch` and `deleteUser` pass to run inside a transaction. Conditional writes are
 * single server-side operations (`findOneAndUpdate`), atomic per document.
 */
import { MongoServerError, type ClientSession, type Collection as MongoCollectionApi, type Document, type Filter as MongoFilter, type UpdateFilter } from 'mongodb';
import {
  DuplicateKeyError, StoreUsageError, type Change, type Collection, type CollectionName, type Doc, type Filter,
  type FindOptions, type InsertOutcome,
} from '../store.js';
import { keyFilter, parseFields, parseFilter, parsePage, parseSort } from '../query.js';
import { checkDoc, isEmptyChange, parseWrite, writtenDoc } from '../apply-change.js';
import { mongoQuery, mongoSort } from './mongo-filter.js';
import { SCHEMA, shardKeyOf } from '../schema.js';
import { checkGetById, checkOwnedDoc, checkOwnedFilter } from '../shard-keys.js';

/** A document as stored: the port's fields with `_id` in place of `id`. */
export interface StoredDoc {
  _id: string;
  [field: string]: unknown;
}

/** MongoDB error codes the port gives a meaning to. */
const DUPLICATE_KEY = 11000;
const TYPE_MISMATCH = 14;

/** How often insertIfAbsent looks again for the winner when it vanished between collision and read. */
const INSERT_IF_ABSENT_ATTEMPTS = 3;

/** Maps driver errors to the port's: duplicate keys and `$inc` on a non-number. Others pass unchanged (with their labels, which transactions retry on). */
export function portError(error: unknown, collection: string): unknown {
  if (error instanceof MongoServerError) {
    if (error.code === DUPLICATE_KEY) return new DuplicateKeyError(collection, error.message);
    if (error.code === TYPE_MISMATCH) return new StoreUsageError(`${collection}: ${error.message}`);
  }
  return error;
}

export function fromStored<T>(stored: StoredDoc): T {
  const { _id, ...fields } = stored;
  return { id: _id, ...fields } as T;
}

function toStored(doc: Doc): StoredDoc {
  const { id, ...fields } = doc as Doc & Record<string, unknown>;
  return { _id: id, ...fields };
}

function mongoUpdate(change: Change<Doc>, collection: CollectionName): UpdateFilter<StoredDoc> | null {
  const parsed = parseWrite(change, collection);
  if (isEmptyChange(parsed)) return null;
  const update: Document = {};
  if (parsed.set.length > 0) update['$set'] = Object.fromEntries(parsed.set);
  if (parsed.unset.length > 0) update['$unset'] = Object.fromEntries(parsed.unset.map((field) => [field, '']));
  if (parsed.inc.length > 0) update['$inc'] = Object.fromEntries(parsed.inc);
  return update as UpdateFilter<StoredDoc>;
}

export class MongoCollection<T extends Doc> implements Collection<T> {
  private readonly derived: readonly string[];

  constructor(private readonly native: MongoCollectionApi<StoredDoc>, readonly name: CollectionName) {
    this.derived = SCHEMA[name].derived ?? [];
  }

  private query(filter: Filter<T>): MongoFilter<StoredDoc> {
    checkOwnedFilter(this.name, filter);
    return mongoQuery(parseFilter(filter, this.derived)) as MongoFilter<StoredDoc>;
  }

  private async attempt<R>(work: () => Promise<R>): Promise<R> {
    try {
      return await work();
    } catch (error) {
      throw portError(error, this.name);
    }
  }

  async insert(doc: T, session?: ClientSession): Promise<void> {
    checkDoc(doc, `${this.name}.insert`);
    checkOwnedDoc(this.name, doc, 'insert');
    await this.attempt(() => this.native.insertOne(toStored(writtenDoc(doc, this.name)), { session }));
  }

  async insertIfAbsent(doc: T, key: (keyof T & string)[], session?: ClientSession): Promise<InsertOutcome<T>> {
    const existingFilter = keyFilter(doc, key) as Filter<T>;
    try {
      await this.insert(doc, session);
      return { inserted: true, doc: writtenDoc(doc, this.name) };
    } catch (error) {
      if (!(error instanceof DuplicateKeyError)) throw error;
      // The winner's insert is committed once ours collides on the unique index; it can only be
      // missing if someone deleted it since, so look a few times before giving up.
      for (let attempt = 0; attempt < INSERT_IF_ABSENT_ATTEMPTS; attempt++) {
        const existing = await this.findOne(existingFilter, undefined, session);
        if (existing !== null) return { inserted: false, existing };
      }
      throw error; // the collision was on another unique index
    }
  }

  async get(id: string, session?: ClientSession): Promise<T | null> {
    checkGetById(this.name);
    const stored = await this.native.findOne({ _id: id }, { session });
    return stored === null ? null : fromStored<T>(stored);
  }

  async findOne(filter: Filter<T>, options?: Pick<FindOptions<T>, 'sort'>, session?: ClientSession): Promise<T | null> {
    const query = this.query(filter);
    const stored = await this.native.findOne(query, { sort: mongoSort(parseSort(options?.sort, this.derived)), session });
    return stored === null ? null : fromStored<T>(stored);
  }

  async find(filter: Filter<T>, options?: FindOptions<T>, session?: ClientSession): Promise<T[]> {
    const query = this.query(filter);
    const sort = mongoSort(parseSort(options?.sort, this.derived));
    const { limit, offset } = parsePage(options);
    if (limit === 0) return []; // Mongo reads limit 0 as "no limit"
    const cursor = this.native.find(query, { sort, skip: offset, limit: limit ?? undefined, session });
    return (await cursor.toArray()).map((stored) => fromStored<T>(stored));
  }

  async findFields<K extends keyof T & string>(filter: Filter<T>, fields: readonly K[], options?: FindOptions<T>, session?: ClientSession): Promise<Pick<T, K>[]> {
    const names = parseFields(fields);
    const query = this.query(filter);
    const sort = mongoSort(parseSort(options?.sort, this.derived));
    const { limit, offset } = parsePage(options);
    if (limit === 0) return []; // Mongo reads limit 0 as "no limit"
    const projection: Document = { _id: names.includes('id') ? 1 : 0 };
    for (const name of names) if (name !== 'id') projection[name] = 1;
    const cursor = this.native.find(query, { projection, sort, skip: offset, limit: limit ?? undefined, session });
    // Rows are picked from what the server sends: one that ignores the projection (the bundled jongodb
    // does) sends more bytes, never more fields.
    return (await cursor.toArray()).map((stored) => {
      const row: Record<string, unknown> = {};
      for (const name of names) {
        const field = name === 'id' ? '_id' : name;
        if (Object.hasOwn(stored, field)) row[name] = stored[field];
      }
      return row as Pick<T, K>;
    });
  }

  async findIds(filter: Filter<T>, session?: ClientSession): Promise<string[]> {
    const cursor = this.native.find(this.query(filter), { projection: { _id: 1 }, session });
    return (await cursor.toArray()).map((stored) => stored._id);
  }

  async count(filter: Filter<T>, session?: ClientSession): Promise<number> {
    return this.native.countDocuments(this.query(filter), { session });
  }

  async updateOne(filter: Filter<T>, change: Change<T>, options?: Pick<FindOptions<T>, 'sort'>, session?: ClientSession): Promise<T | null> {
    const query = this.query(filter);
    const sort = mongoSort(parseSort(options?.sort, this.derived));
    const update = mongoUpdate(change as Change<Doc>, this.name);
    if (update === null) return this.findOne(filter, options, session);
    const stored = await this.attempt(() => this.native.findOneAndUpdate(query, update, { sort, returnDocument: 'after', session }));
    return stored === null ? null : fromStored<T>(stored);
  }

  async updateMany(filter: Filter<T>, change: Change<T>, session?: ClientSession): Promise<number> {
    const query = this.query(filter);
    const update = mongoUpdate(change as Change<Doc>, this.name);
    if (update === null) return this.count(filter, session);
    const result = await this.attempt(() => this.native.updateMany(query, update, { session }));
    return result.matchedCount;
  }

  async put(doc: T, session?: ClientSession): Promise<void> {
    checkDoc(doc, `${this.name}.put`);
    checkOwnedDoc(this.name, doc, 'put');
    const { _id, ...fields } = toStored(writtenDoc(doc, this.name));
    // An upsert on a sharded collection names the whole shard key, so mongos routes it to one shard.
    const target: Record<string, unknown> = { _id };
    for (const field of shardKeyOf(this.name) ?? []) target[field] = fields[field];
    await this.attempt(() => this.native.replaceOne(target as MongoFilter<StoredDoc>, fields, { upsert: true, session }));
  }

  async deleteMany(filter: Filter<T>, session?: ClientSession): Promise<number> {
    const result = await this.native.deleteMany(this.query(filter), { session });
    return result.deletedCount;
  }
}
