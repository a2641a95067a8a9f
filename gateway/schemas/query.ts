/**
 * Building blocks for query-string schemas. Query values arrive as strings, or arrays of strings when
 * repeated; a scalar parameter given twice takes the last value (as FastAPI does), an array parameter
 * accepts one or many (`sport=a&sport=b`).
 */
import { z } from 'zod';

function last(value: unknown): unknown {
  return Array.isArray(value) ? value[value.length - 1] : value;
}

/** An integer query parameter. */
export function queryInt(range: { min?: number; max?: number } = {}) {
  let schema = z.number().int();
  if (range.min !== undefined) schema = schema.min(range.min);
  if (range.max !== undefined) schema = schema.max(range.max);
  return z.preprocess((value) => {
    const text = last(value);
    return typeof text === 'string' && /^-?\d{1,15}$/.test(text) ? Number(text) : text;
  }, schema);
}

/** A boolean query parameter: true/false, 1/0, yes/no, on/off (pydantic's spellings). */
export function queryBool() {
  return z.preprocess((value) => {
    const text = last(value);
    if (typeof text !== 'string') return text;
    const lower = text.toLowerCase();
    if (['true', '1', 'yes', 'on', 't', 'y'].includes(lower)) return true;
    if (['false', '0', 'no', 'off', 'f', 'n'].includes(lower)) return false;
    return text;
  }, z.boolean());
}

/** A repeated query parameter: always an array after parsing; `max` bounds how often it may repeat. */
export function queryArray<T extends z.ZodType>(item: T, options: { max?: number } = {}) {
  const array = options.max === undefined ? z.array(item) : z.array(item).max(options.max);
  return z.preprocess((value) => (value === undefined ? undefined : Array.isArray(value) ? value : [value]), array);
}

/** A single string query parameter (the last one when repeated). */
export function queryString<T extends z.ZodType = z.ZodString>(inner?: T) {
  return z.preprocess(last, (inner ?? z.string()) as T);
}

/** `limit` and `offset` of a paged list: `page.default` entries per page, at most `page.max`. */
export function pageParameters(page: { default: number; max: number }) {
  return {
    limit: queryInt({ min: 1, max: page.max }).default(page.default).describe(`Entries per page: 1 to ${page.max}, default ${page.default}`),
    offset: queryInt({ min: 0 }).default(0).describe('Entries to skip before the page (default 0)'),
  };
}
