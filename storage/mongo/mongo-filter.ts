/**
 * Predicates (storage/query.ts) → MongoDB query documents. Most operators are Mongo's own, whose
 * semantics the SQLite backend reproduces (null = missing or null, `$ne` matches missing, no
 * comparison across types); `$prefix` becomes an anchored regex of the escaped prefix, which the
 * server can answer from an index; `$any` is `$in` on the array's elements. The port's `id` is
 * stored as `_id`.
 */
import type { Document } from 'mongodb';
import type { Predicate, SortKey } from '../query.js';

/** A condition that matches nothing (an empty `$or`, an empty `$all` / `$any`). */
const NOTHING: Document = { _id: { $in: [] } };

export function mongoField(field: string): string {
  return field === 'id' ? '_id' : field;
}

/** Escapes every regex metacharacter, so the prefix is matched literally. */
export function escapeRegex(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
}

export function mongoQuery(p: Predicate): Document {
  switch (p.op) {
    case 'and':
      if (p.items.length === 0) return {};
      return p.items.length === 1 ? mongoQuery(p.items[0]!) : { $and: p.items.map(mongoQuery) };
    case 'or':
      return p.items.length === 0 ? NOTHING : { $or: p.items.map(mongoQuery) };
    case 'eq': return { [mongoField(p.field)]: { $eq: p.value } };
    case 'ne': return { [mongoField(p.field)]: { $ne: p.value } };
    case 'gt': return { [mongoField(p.field)]: { $gt: p.value } };
    case 'gte': return { [mongoField(p.field)]: { $gte: p.value } };
    case 'lt': return { [mongoField(p.field)]: { $lt: p.value } };
    case 'lte': return { [mongoField(p.field)]: { $lte: p.value } };
    case 'in': return { [mongoField(p.field)]: { $in: p.values } };
    case 'nin': return { [mongoField(p.field)]: { $nin: p.values } };
    case 'all': return p.values.length === 0 ? NOTHING : { [mongoField(p.field)]: { $all: p.values } };
    case 'any': return p.values.length === 0 ? NOTHING : { [mongoField(p.field)]: { $in: p.values } };
    case 'prefix': return { [mongoField(p.field)]: { $regex: `^${escapeRegex(p.prefix)}` } };
  }
}

/** A parsed sort (ending with the id tie-breaker) as a Mongo sort document, or undefined when unsorted. */
export function mongoSort(keys: readonly SortKey[]): Document | undefined {
  if (keys.length === 0) return undefined;
  const sort: Document = {};
  for (const [field, direction] of keys) sort[mongoField(field)] = direction;
  return sort;
}
