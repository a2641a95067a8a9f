/**
 * The port's query language (filters, sort orders, pages), validated once and turned into a small
 * predicate tree that each backend compiles natively: SQL in sqlite/sql-filter.ts, a query document
 * in mongo/mongo-filter.ts. Everything a caller can get wrong is refused here with StoreUsageError,
 * so both backends accept and refuse exactly the same queries. Kept honest by
 * test/storage/contract.ts.
 */
import { StoreUsageError, type Scalar } from './store.js';

/** A non-null scalar: what ordering comparisons and array elements take. */
export type Value = string | number | boolean;

export type Predicate =
  | { op: 'and' | 'or'; items: Predicate[] }
  /** `value: null` means missing or null (`eq`) / present and not null (`ne`). */
  | { op: 'eq' | 'ne'; field: string; value: Scalar }
  | { op: 'gt' | 'gte' | 'lt' | 'lte'; field: string; value: Value }
  /** A null among `values` matches a missing or null field (`in`), or excludes it (`nin`). */
  | { op: 'in' | 'nin'; field: string; values: Scalar[] }
  /** Array fields: every (`all`) or some (`any`) of `values` is an element. Empty matches nothing. */
  | { op: 'all' | 'any'; field: string; values: Value[] }
  | { op: 'prefix'; field: string; prefix: string };

export type SortKey = [field: string, direction: 1 | -1];

/** Document field names: lower-case snake case, which is also safe to place in SQL and JSON paths. */
const FIELD_NAME = /^[a-z_][a-z0-9_]*$/;

export function checkField(name: string, where: string): string {
  if (!FIELD_NAME.test(name) || name === '__proto__') throw new StoreUsageError(`${where}: field name ${JSON.stringify(name)} is not allowed`);
  return name;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function scalar(value: unknown, where: string): Scalar {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  throw new StoreUsageError(`${where}: expected a string, a finite number, a boolean or null, got ${describe(value)}`);
}

function nonNull(value: unknown, where: string): Value {
  const v = scalar(value, where);
  if (v === null) throw new StoreUsageError(`${where}: null is not allowed here`);
  return v;
}

function list(value: unknown, where: string): unknown[] {
  if (!Array.isArray(value)) throw new StoreUsageError(`${where}: expected an array, got ${describe(value)}`);
  return value;
}

function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' && value !== null ? 'an object' : `${typeof value} ${String(value)}`;
}

const RANGE = { $gt: 'gt', $gte: 'gte', $lt: 'lt', $lte: 'lte' } as const;

function condition(field: string, cond: unknown, out: Predicate[]): void {
  const where = `filter.${field}`;
  if (!isPlainObject(cond)) {
    out.push({ op: 'eq', field, value: scalar(cond, where) });
    return;
  }
  const operators = Object.entries(cond);
  if (operators.length === 0) throw new StoreUsageError(`${where}: empty condition`);
  for (const [operator, arg] of operators) {
    const at = `${where}.${operator}`;
    switch (operator) {
      case '$eq': out.push({ op: 'eq', field, value: scalar(arg, at) }); break;
      case '$ne': out.push({ op: 'ne', field, value: scalar(arg, at) }); break;
      case '$gt': case '$gte': case '$lt': case '$lte':
        out.push({ op: RANGE[operator], field, value: nonNull(arg, at) });
        break;
      case '$in': case '$nin':
        out.push({ op: operator === '$in' ? 'in' : 'nin', field, values: list(arg, at).map((v, i) => scalar(v, `${at}[${i}]`)) });
        break;
      case '$all': case '$any':
        out.push({ op: operator === '$all' ? 'all' : 'any', field, values: list(arg, at).map((v, i) => nonNull(v, `${at}[${i}]`)) });
        break;
      case '$exists':
        // "true: the field is present and not null; false: missing or null."
        if (typeof arg !== 'boolean') throw new StoreUsageError(`${at}: expected a boolean, got ${describe(arg)}`);
        out.push({ op: arg ? 'ne' : 'eq', field, value: null });
        break;
      case '$prefix':
        if (typeof arg !== 'string') throw new StoreUsageError(`${at}: expected a string, got ${describe(arg)}`);
        out.push({ op: 'prefix', field, prefix: arg });
        break;
      default:
        throw new StoreUsageError(`${where}: unknown operator ${JSON.stringify(operator)}`);
    }
  }
}

/** A field a filter or sort may name: well formed, and not one of the collection's `derived` fields (schema.ts). */
function queryField(name: string, where: string, derived: readonly string[]): string {
  checkField(name, where);
  if (derived.includes(name)) throw new StoreUsageError(`${where}: derived field ${name} cannot be queried`);
  return name;
}

/** Validates a `Filter` and returns it as an `and` of predicates. */
export function parseFilter(filter: unknown, derived: readonly string[] = []): Predicate {
  if (!isPlainObject(filter)) throw new StoreUsageError(`filter: expected an object, got ${describe(filter)}`);
  const items: Predicate[] = [];
  for (const [key, cond] of Object.entries(filter)) {
    if (key === '$or') {
      items.push({ op: 'or', items: list(cond, 'filter.$or').map((alternative) => parseFilter(alternative, derived)) });
    } else {
      condition(queryField(key, 'filter', derived), cond, items);
    }
  }
  return { op: 'and', items };
}

/** Validates a `Sort`; `id` is appended as the final tie-breaker unless the sort names it. */
export function parseSort(sort: unknown, derived: readonly string[] = []): SortKey[] {
  if (sort === undefined) return [];
  if (!isPlainObject(sort)) throw new StoreUsageError(`sort: expected an object, got ${describe(sort)}`);
  const keys = Object.entries(sort).map(([field, direction]): SortKey => {
    queryField(field, 'sort', derived);
    if (direction !== 1 && direction !== -1) throw new StoreUsageError(`sort.${field}: expected 1 or -1`);
    return [field, direction];
  });
  if (keys.length > 0 && !keys.some(([field]) => field === 'id')) keys.push(['id', 1]);
  return keys;
}

export interface Page {
  limit: number | null;
  offset: number;
}

export function parsePage(options: { limit?: number; offset?: number } | undefined): Page {
  const limit = options?.limit ?? null;
  const offset = options?.offset ?? 0;
  if (limit !== null && !(Number.isSafeInteger(limit) && limit >= 0)) throw new StoreUsageError(`limit: expected a non-negative integer, got ${limit}`);
  if (!(Number.isSafeInteger(offset) && offset >= 0)) throw new StoreUsageError(`offset: expected a non-negative integer, got ${offset}`);
  return { limit, offset };
}

/** The filter that finds the document `insertIfAbsent` collided with: equality on every key field. */
export function keyFilter(doc: object, key: readonly string[]): Record<string, Scalar> {
  if (key.length === 0) throw new StoreUsageError('insertIfAbsent: the key names no field');
  const filter: Record<string, Scalar> = {};
  for (const field of key) {
    const value = (doc as Record<string, unknown>)[checkField(field, 'insertIfAbsent key')];
    if (value === null || value === undefined) throw new StoreUsageError(`insertIfAbsent: key field ${field} is ${value} in the document`);
    filter[field] = scalar(value, `insertIfAbsent key ${field}`);
  }
  return filter;
}

/** Validates the field list of `findFields`: at least one name, each as in filters, none twice. */
export function parseFields(fields: unknown): string[] {
  if (!Array.isArray(fields) || fields.length === 0) throw new StoreUsageError(`fields: expected a non-empty list, got ${describe(fields)}`);
  const names = fields.map((field) => {
    if (typeof field !== 'string') throw new StoreUsageError(`fields: expected names, got ${describe(field)}`);
    return checkField(field, 'fields');
  });
  if (new Set(names).size !== names.length) throw new StoreUsageError(`fields: a name appears twice in ${JSON.stringify(names)}`);
  return names;
}
