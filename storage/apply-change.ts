/**
 * What may be written: documents (`checkDoc`) and the port's `Change` (set / unset / inc), validated once for both backends and applied in
 * JavaScript where the backend has no native update operators (SQLite). MongoDB translates the
 * parsed change to `$set` / `$unset` / `$inc` (mongo/mongo-collection.ts) and must agree with
 * `applyChange` — test/storage/contract.ts keeps them equal.
 */
import { checkOwnerKept } from './shard-keys.js';
import { StoreUsageError, type CollectionName } from './store.js';
import { checkField } from './query.js';
import { SCHEMA } from './schema.js';

export interface ParsedChange {
  set: [field: string, value: unknown][];
  unset: string[];
  inc: [field: string, amount: number][];
}

function changedField(name: string, where: string, seen: Set<string>): string {
  checkField(name, where);
  if (name === 'id') throw new StoreUsageError(`${where}: the id can never be changed`);
  if (seen.has(name)) throw new StoreUsageError(`${where}: field ${name} appears more than once in one change`);
  seen.add(name);
  return name;
}

export function parseChange(change: unknown): ParsedChange {
  if (typeof change !== 'object' || change === null) throw new StoreUsageError('change: expected an object');
  const { set = {}, unset = [], inc = {}, ...rest } = change as { set?: unknown; unset?: unknown; inc?: unknown };
  const unknown = Object.keys(rest);
  if (unknown.length > 0) throw new StoreUsageError(`change: unknown part ${JSON.stringify(unknown[0])}`);
  if (typeof set !== 'object' || set === null || Array.isArray(set)) throw new StoreUsageError('change.set: expected an object');
  if (!Array.isArray(unset)) throw new StoreUsageError('change.unset: expected an array of field names');
  if (typeof inc !== 'object' || inc === null || Array.isArray(inc)) throw new StoreUsageError('change.inc: expected an object');

  const seen = new Set<string>();
  const parsed: ParsedChange = { set: [], unset: [], inc: [] };
  for (const [field, value] of Object.entries(set)) {
    changedField(field, 'change.set', seen);
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint') {
      throw new StoreUsageError(`change.set.${field}: ${typeof value} cannot be stored (use unset to remove a field)`);
    }
    parsed.set.push([field, value]);
  }
  for (const field of unset) {
    if (typeof field !== 'string') throw new StoreUsageError('change.unset: expected field names');
    parsed.unset.push(changedField(field, 'change.unset', seen));
  }
  for (const [field, amount] of Object.entries(inc)) {
    changedField(field, 'change.inc', seen);
    if (typeof amount !== 'number' || !Number.isFinite(amount)) throw new StoreUsageError(`change.inc.${field}: expected a finite number`);
    parsed.inc.push([field, amount]);
  }
  return parsed;
}

/**
 * A change as a backend writes it to `collection`: a change that writes anything also unsets every derived
 * field it does not name (schema.ts `derived`); an empty change writes nothing and stays empty.
 */
export function parseWrite(change: unknown, collection: CollectionName): ParsedChange {
  const parsed = parseChange(change);
  checkOwnerKept(collection, [...parsed.set.map(([field]) => field), ...parsed.unset, ...parsed.inc.map(([field]) => field)]);
  for (const [field, value] of parsed.set) checkProjected(collection, field, value, 'change.set');
  const derived = SCHEMA[collection].derived;
  if (derived === undefined || isEmptyChange(parsed)) return parsed;
  for (const [field, value] of parsed.set) {
    if (derived.includes(field) && typeof value !== 'string' && !(typeof value === 'number' && Number.isFinite(value))) {
      throw new StoreUsageError(`change.set.${field}: a derived field holds a string or a number`);
    }
  }
  for (const [field] of parsed.inc) if (derived.includes(field)) throw new StoreUsageError(`change.inc.${field}: a derived field is only set`);
  const named = new Set([...parsed.set.map(([field]) => field), ...parsed.unset, ...parsed.inc.map(([field]) => field)]);
  for (const field of derived) if (!named.has(field)) parsed.unset.push(field);
  return parsed;
}

/** A whole document as a backend writes it to `collection` (`insert`, `put`): without its derived fields. */
export function writtenDoc<T extends object>(doc: T, collection: CollectionName): T {
  const derived = SCHEMA[collection].derived;
  if (derived === undefined || !derived.some((field) => Object.hasOwn(doc, field))) return doc;
  const written: Record<string, unknown> = { ...(doc as Record<string, unknown>) };
  for (const field of derived) delete written[field];
  return written as T;
}

/**
 * A document to write to `collection` by `operation`: a plain object with a non-empty string id (its other
 * fields are plain JSON), whose projected fields (schema.ts `projected`) hold what such a field may.
 */
export function checkDoc(doc: unknown, collection: CollectionName, operation: string): void {
  const where = `${collection}.${operation}`;
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new StoreUsageError(`${where}: expected a document object`);
  const id = (doc as { id?: unknown }).id;
  if (typeof id !== 'string' || id.length === 0) throw new StoreUsageError(`${where}: the document needs a non-empty string id`);
  for (const field of SCHEMA[collection].projected ?? []) checkProjected(collection, field, (doc as Record<string, unknown>)[field], where);
}

/** A projected field's value (schema.ts `projected`) as SQLite's column holds it: the value, or null when missing or null. */
export function projectedValue(value: unknown): string | number | null {
  return typeof value === 'string' || typeof value === 'number' ? value : null;
}

/** Refuses a value a projected field cannot hold: anything but a string, a finite number, null or missing. */
function checkProjected(collection: CollectionName, field: string, value: unknown, where: string): void {
  if (value === undefined || value === null || typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))) return;
  if (!(SCHEMA[collection].projected ?? []).includes(field)) return;
  throw new StoreUsageError(`${where}.${field}: a projected field of ${collection} holds a string, a finite number or null, got ${Array.isArray(value) ? 'an array' : typeof value}`);
}

export function isEmptyChange(change: ParsedChange): boolean {
  return change.set.length === 0 && change.unset.length === 0 && change.inc.length === 0;
}

/** Returns a new document with the change applied (`doc` is left alone). */
export function applyChange<T extends object>(doc: T, change: ParsedChange): T {
  const next: Record<string, unknown> = { ...(doc as Record<string, unknown>) };
  for (const [field, value] of change.set) next[field] = value;
  for (const field of change.unset) delete next[field];
  for (const [field, amount] of change.inc) {
    // "missing counts as 0"; null or any other type is refused, as MongoDB's $inc refuses it.
    const current = Object.hasOwn(next, field) ? next[field] : 0;
    if (typeof current !== 'number') {
      throw new StoreUsageError(`change.inc.${field}: the stored value is ${current === null ? 'null' : typeof current}, not a number`);
    }
    next[field] = current + amount;
  }
  return next as T;
}
