/**
 * Predicates (storage/query.ts) → SQLite WHERE / ORDER BY over `(id, doc)` tables of JSON
 * documents, with every value bound as a parameter. Field names reach the SQL only after
 * `checkField` (lower-case snake case), inside `'$.field'` JSON paths.
 *
 * MongoDB semantics, reproduced:
 * - `json_extract` is NULL for a missing field and for JSON null, so `IS NULL` is Mongo's `{f: null}`;
 * - every comparison also tests `json_type`, because `json_extract` gives 1/0 for true/false and
 *   JSON text for arrays and objects: numbers meet only numbers, strings only strings, booleans
 *   only booleans (Mongo's type bracketing) — except equality with a string that no object or
 *   array's JSON text can equal (`needsTypeTest`);
 * - negations (`ne`, `nin`) are `NOT IFNULL(…, 0)`, so a missing field (NULL) matches them;
 * - `$all` / `$any` look at the elements through `json_each`; `$prefix` compares `substr`, so
 *   `%`, `_` and regex characters in the prefix are plain characters.
 * The comparison's `json_extract(doc, '$.f') op ?` term is written exactly as the expression
 * indexes are, so the planner can use them (test/storage/sqlite.test.ts checks one plan).
 *
 * A projected field (schema.ts `projected`) is read from its own column instead, which holds what
 * `json_extract` would give (the field holds only a string, a number or null), and `typeof` of it is
 * `json_type` wherever a type test looks (text, integer, real; never a match for null or missing): such a
 * query parses no document. Its indexes are on the column too.
 */
import type { Predicate, SortKey, Value } from '../query.js';
import { SCHEMA } from '../schema.js';
import type { CollectionName } from '../store.js';

export type SqlValue = string | number | null;

export interface SqlWhere {
  sql: string;
  params: SqlValue[];
}

/** SQL expressions for a field's value (as `json_extract` returns it) and its JSON type name. */
interface Operand {
  value: string;
  type: string;
}

/** Whether `collection` keeps `field` in a column of its own (schema.ts `projected`). */
export function isProjected(collection: string, field: string): boolean {
  return SCHEMA[collection as CollectionName]?.projected?.includes(field) ?? false;
}

/** The indexed expression for a field of `collection`: shared with the CREATE INDEX statements. */
export function fieldExpression(field: string, collection: string): string {
  if (field === 'id') return 'id';
  return isProjected(collection, field) ? `"${field}"` : `json_extract(doc, '$.${field}')`;
}

function operand(field: string, table: string): Operand {
  if (field === 'id') return { value: 'id', type: `'text'` };
  const value = fieldExpression(field, table);
  return { value, type: isProjected(table, field) ? `typeof(${value})` : `json_type(doc, '$.${field}')` };
}

/** `json_each` arguments for a field, qualified with the table name (json_each has its own `id` column). */
function elements(table: string, field: string): string {
  return field === 'id' ? `json_quote("${table}".id)` : `"${table}".doc, '$.${field}'`;
}

const ELEMENT: Operand = { value: 'e.value', type: 'e.type' };

function typeTest(type: string, value: Value): string {
  switch (typeof value) {
    case 'string': return `${type} = 'text'`;
    case 'number': return `${type} IN ('integer', 'real')`;
    default: return `${type} IN ('true', 'false')`;
  }
}

function bind(value: Value, params: SqlValue[]): string {
  params.push(typeof value === 'boolean' ? (value ? 1 : 0) : value);
  return '?';
}

/**
 * Whether equality with these values needs the type test. It does not for strings that cannot be the JSON
 * text `json_extract` gives for an object or array (which starts with `{` or `[`): numbers and booleans come
 * back as SQL numbers, never equal to text, so such a string can only meet a JSON string. Skipping the test
 * spares parsing each candidate document when an index answers the comparison (`user_id = ?`).
 */
function needsTypeTest(values: readonly Value[]): boolean {
  return values.some((value) => typeof value !== 'string' || value.startsWith('{') || value.startsWith('['));
}

function compare(on: Operand, sqlOp: string, value: Value, params: SqlValue[]): string {
  if (sqlOp === '=' && !needsTypeTest([value])) return `(${on.value} = ${bind(value, params)})`;
  return `(${on.value} ${sqlOp} ${bind(value, params)} AND ${typeTest(on.type, value)})`;
}

/** One IN list per type class, so `1` never meets `true` and `'1'` never meets `1`. */
function inList(on: Operand, values: readonly (Value | null)[], params: SqlValue[]): string {
  const parts: string[] = [];
  for (const kind of ['string', 'number', 'boolean'] as const) {
    const same = values.filter((v): v is Value => v !== null && typeof v === kind);
    if (same.length === 0) continue;
    const list = same.map((v) => bind(v, params)).join(', ');
    parts.push(needsTypeTest(same) ? `(${on.value} IN (${list}) AND ${typeTest(on.type, same[0]!)})` : `(${on.value} IN (${list}))`);
  }
  if (values.includes(null)) parts.push(`${on.value} IS NULL`);
  return parts.length === 0 ? '0' : `(${parts.join(' OR ')})`;
}

const RANGE_SQL = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

function compile(p: Predicate, table: string, params: SqlValue[]): string {
  switch (p.op) {
    case 'and':
    case 'or': {
      if (p.items.length === 0) return p.op === 'and' ? '1' : '0';
      return `(${p.items.map((item) => compile(item, table, params)).join(p.op === 'and' ? ' AND ' : ' OR ')})`;
    }
    case 'eq':
      return p.value === null ? `${operand(p.field, table).value} IS NULL` : compare(operand(p.field, table), '=', p.value, params);
    case 'ne':
      return p.value === null
        ? `${operand(p.field, table).value} IS NOT NULL`
        : `NOT IFNULL(${compare(operand(p.field, table), '=', p.value, params)}, 0)`;
    case 'gt': case 'gte': case 'lt': case 'lte':
      return compare(operand(p.field, table), RANGE_SQL[p.op], p.value, params);
    case 'in':
      return inList(operand(p.field, table), p.values, params);
    case 'nin':
      return `NOT IFNULL(${inList(operand(p.field, table), p.values, params)}, 0)`;
    case 'all': {
      if (p.values.length === 0) return '0';
      const on = operand(p.field, table);
      const each = p.values.map((v) => `EXISTS (SELECT 1 FROM json_each(${elements(table, p.field)}) AS e WHERE ${compare(ELEMENT, '=', v, params)})`);
      return `(${on.type} <> 'object' AND ${each.join(' AND ')})`;
    }
    case 'any': {
      if (p.values.length === 0) return '0';
      const on = operand(p.field, table);
      return `(${on.type} <> 'object' AND EXISTS (SELECT 1 FROM json_each(${elements(table, p.field)}) AS e WHERE ${inList(ELEMENT, p.values, params)}))`;
    }
    case 'prefix': {
      const on = operand(p.field, table);
      params.push(p.prefix, p.prefix);
      return `(${on.type} = 'text' AND substr(${on.value}, 1, length(?)) = ?)`;
    }
  }
}

export function whereClause(predicate: Predicate, table: string): SqlWhere {
  const params: SqlValue[] = [];
  const sql = compile(predicate, table, params);
  return { sql, params };
}

/** ORDER BY for a parsed sort (which already ends with the id tie-breaker), or '' when unsorted. */
export function orderBy(keys: readonly SortKey[], collection: string): string {
  if (keys.length === 0) return '';
  return ` ORDER BY ${keys.map(([field, direction]) => `${fieldExpression(field, collection)} ${direction === 1 ? 'ASC' : 'DESC'}`).join(', ')}`;
}
