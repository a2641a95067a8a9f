/**
 * Request validation with the route's declared zod schemas. Failures become one 422 listing every
 * problem in FastAPI's shape: `loc` starts with where the value came from (`path`, `query`, `body`),
 * then the field path. Parsed values land on `ctx.state.input` (path and query parameters, flat) and
 * `ctx.state.body`.
 */
import type { Context, Next } from 'koa';
import type { z } from 'zod';
import { ValidationError, type ValidationIssue } from '../errors.js';

export interface RequestSchemas {
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
}

type Origin = 'path' | 'query' | 'body';

export function validate(schemas: RequestSchemas) {
  return async function validateRequest(ctx: Context, next: Next): Promise<void> {
    const issues: ValidationIssue[] = [];
    const params = parse(schemas.params, (ctx as unknown as { params?: unknown }).params ?? {}, 'path', issues);
    const query = parse(schemas.query, ctx.query, 'query', issues);
    const body = schemas.body ? parse(schemas.body, (ctx.request as { body?: unknown }).body, 'body', issues) : undefined;
    if (issues.length > 0) throw new ValidationError(issues);
    ctx.state.input = { ...(query as object), ...(params as object) };
    ctx.state.body = body;
    await next();
  };
}

function parse(schema: z.ZodType | undefined, value: unknown, origin: Origin, issues: ValidationIssue[]): unknown {
  if (!schema) return {};
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  for (const issue of result.error.issues) issues.push(...toFastApi(issue, origin, value));
  return undefined;
}

/** Maps one zod issue to FastAPI/pydantic's `{loc, msg, type}` vocabulary. */
export function toFastApi(issue: z.core.$ZodIssue, origin: Origin, root: unknown): ValidationIssue[] {
  const loc: (string | number)[] = [origin, ...issue.path.map((part) => (typeof part === 'symbol' ? String(part) : part))];
  switch (issue.code) {
    case 'invalid_type':
      if (valueAt(root, issue.path) === undefined) return [{ loc, msg: 'Field required', type: 'missing' }];
      return [{ loc, msg: `Input should be a valid ${describe(issue.expected)}`, type: `${issue.expected === 'number' ? 'float' : issue.expected}_type` }];
    case 'too_big':
      return [{ loc, msg: issue.message, type: issue.origin === 'string' ? 'string_too_long' : issue.origin === 'array' ? 'too_long' : 'less_than_equal' }];
    case 'too_small':
      return [{ loc, msg: issue.message, type: issue.origin === 'string' ? 'string_too_short' : issue.origin === 'array' ? 'too_short' : 'greater_than_equal' }];
    case 'invalid_value':
      // zod reports a missing enum field as a bad option; FastAPI calls it missing.
      if (isMissingKey(root, issue.path)) return [{ loc, msg: 'Field required', type: 'missing' }];
      return [{ loc, msg: issue.message, type: 'enum' }];
    case 'unrecognized_keys':
      return issue.keys.map((key) => ({ loc: [...loc, key], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }));
    case 'invalid_union':
      return [{ loc, msg: issue.message, type: 'union_error' }];
    default:
      return [{ loc, msg: issue.message, type: 'value_error' }];
  }
}

function describe(expected: string): string {
  return expected === 'int' ? 'integer' : expected === 'number' ? 'number' : expected;
}

function valueAt(root: unknown, path: PropertyKey[]): unknown {
  let value = root;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** True when the value at `path` is a key absent from an object that is there (not a preprocessed value's item). */
function isMissingKey(root: unknown, path: PropertyKey[]): boolean {
  if (path.length === 0) return root === undefined;
  const parent = valueAt(root, path.slice(0, -1));
  return parent !== null && typeof parent === 'object' && (parent as Record<PropertyKey, unknown>)[path[path.length - 1]!] === undefined;
}
