/**
 * The shard-key discipline of the port, enforced the same way by both backends: on a collection that
 * schema.ts declares sharded (user-owned data), every filter names its user by `user_id` equality and every
 * written document carries every field of the shard key. A MongoDB sharded cluster routes such a command to
 * the one shard holding that user's data; without the user it would reach every shard (a read), or be refused
 * (an upsert). SQLite has no shards, but refusing the same calls there means every test run catches a caller
 * that forgets its user. Violations are programming errors: `StoreUsageError`.
 */
import { StoreUsageError, type CollectionName, type Doc } from './store.js';
import { shardKeyOf } from './schema.js';

function isUserId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

/** The user a filter names by equality (`user_id: 'u'` or `user_id: { $eq: 'u' }`), or null. */
export function filteredUser(filter: object): string | null {
  const condition = (filter as { user_id?: unknown }).user_id;
  if (isUserId(condition)) return condition;
  if (typeof condition === 'object' && condition !== null && Object.keys(condition).length === 1 && isUserId((condition as { $eq?: unknown }).$eq)) {
    return (condition as { $eq: string }).$eq;
  }
  return null;
}

/** Throws unless a filter on `collection` names its user, where the collection is sharded. */
export function checkOwnedFilter(collection: CollectionName, filter: object): void {
  if (shardKeyOf(collection) === null || filteredUser(filter) !== null) return;
  throw new StoreUsageError(`${collection} is sharded by user: a filter must name user_id by equality (got fields ${JSON.stringify(Object.keys(filter))})`);
}

/** Throws unless a document written to `collection` carries every shard-key field, where the collection is sharded. */
export function checkOwnedDoc(collection: CollectionName, doc: Doc, operation: string): void {
  const key = shardKeyOf(collection);
  if (key === null) return;
  const fields = doc as unknown as Record<string, unknown>;
  if (!isUserId(fields['user_id'])) throw new StoreUsageError(`${collection}.${operation}: a document of a collection sharded by user needs its user_id`);
  for (const field of key) {
    if (fields[field] === undefined || fields[field] === null) {
      throw new StoreUsageError(`${collection}.${operation}: a document needs every shard-key field (${key.join(', ')}); ${field} is missing`);
    }
  }
}

/** Throws when a change to a collection sharded by user names `user_id`: a record never moves to another user (or shard). */
export function checkOwnerKept(collection: CollectionName, fields: readonly string[]): void {
  if (shardKeyOf(collection) !== null && fields.includes('user_id')) {
    throw new StoreUsageError(`${collection} is sharded by user: a change must not set, unset or increment user_id`);
  }
}

/** Throws where `collection` is sharded: a lookup by id alone would reach every shard. */
export function checkGetById(collection: CollectionName): void {
  if (shardKeyOf(collection) === null) return;
  throw new StoreUsageError(`${collection} is sharded by user: get(id) does not name the user; use findOne({ id, user_id })`);
}

/** The filter that finds `record` again: its id, and its user where it has one (all that generic code needs). */
export function recordKey(record: { id: string; user_id?: unknown }): { id: string; user_id?: string } {
  return typeof record.user_id === 'string' ? { id: record.id, user_id: record.user_id } : { id: record.id };
}
