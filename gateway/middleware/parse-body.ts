/**
 * Body parsing, a step of each route's chain (route-table.ts) rather than of the whole app, so a route
 * that needs a different parser declares it. The default takes JSON or urlencoded forms up to 1 MB;
 * uploads parse their own multipart bodies (multipart.ts); the token endpoint takes only small forms
 * (routes/oauth-token.ts declares `tokenFormParser`).
 *
 * Keys that could reach an object's prototype are refused with the interface's 422 (issue 26 item 8): a
 * JSON `__proto__` key anywhere (the parser, co-body with bourne, throws on it, which alone would be a bare
 * 400), and a `constructor` object holding `prototype`. Forms cannot carry either: qs drops keys that
 * Object.prototype has. Kept honest by test/gateway/hostile-input.test.ts.
 */
import { bodyParser } from '@koa/bodyparser';
import type { Middleware } from 'koa';
import { ValidationError } from '../errors.js';

/** JSON and form bodies are small; uploads go through their own multipart parser. */
const BODY_LIMIT = '1mb';

/** The default: JSON or urlencoded form, UTF-8, at most BODY_LIMIT (413 beyond it). */
export function parseBody(): Middleware {
  const parse = bodyParser({ enableTypes: ['json', 'form'], jsonLimit: BODY_LIMIT, formLimit: BODY_LIMIT, encoding: 'utf-8' });
  return async function parseJsonOrForm(ctx, next) {
    try {
      await parse(ctx, async () => {});
    } catch (error) {
      throw prototypeKeyError(error) ?? error;
    }
    const path = prototypeKeyPath((ctx.request as { body?: unknown }).body);
    if (path) throw prototypeKeyIssue(path);
    await next();
  };
}

/** bourne's refusal of a `__proto__` key, as a 422 at the key; null for any other parser error. */
function prototypeKeyError(error: unknown): ValidationError | null {
  const { message, body } = error as { message?: unknown; body?: unknown };
  if (typeof message !== 'string' || !/forbidden prototype property/.test(message) || typeof body !== 'string') return null;
  // JSON.parse defines `__proto__` as an own key (it never sets the prototype), so the walk can find it.
  return prototypeKeyIssue(prototypeKeyPath(JSON.parse(body)) ?? ['__proto__']);
}

function prototypeKeyIssue(path: (string | number)[]): ValidationError {
  return ValidationError.single(['body', ...path], `the key '${path[path.length - 1]}' is not accepted here`);
}

/**
 * Where `value` holds a `__proto__` key or a `constructor` object with a `prototype` key; null when it does
 * not. Iterative, so a body nested a million levels deep cannot overflow the stack.
 */
function prototypeKeyPath(value: unknown): (string | number)[] | null {
  const pending: { value: unknown; path: (string | number)[] }[] = [{ value, path: [] }];
  while (pending.length > 0) {
    const { value: node, path } = pending.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (Array.isArray(node)) {
      node.forEach((item, index) => pending.push({ value: item, path: [...path, index] }));
      continue;
    }
    for (const key of Object.keys(node)) {
      const child = (node as Record<string, unknown>)[key];
      if (key === '__proto__') return [...path, key];
      if (key === 'constructor' && typeof child === 'object' && child !== null && Object.hasOwn(child, 'prototype')) return [...path, key, 'prototype'];
      pending.push({ value: child, path: [...path, key] });
    }
  }
  return null;
}

/**
 * Urlencoded forms only, at most `limitBytes`; the parser's refusals (413, a malformed body) go through
 * `refuse`, so a protocol with its own error shape (RFC 6749) answers in it.
 */
export function parseFormOnly(limitBytes: number, refuse: (status: 400 | 413) => Error): Middleware {
  const parse = bodyParser({ enableTypes: ['form'], formLimit: `${limitBytes}b`, encoding: 'utf-8' });
  return async function parseForm(ctx, next) {
    try {
      await parse(ctx, async () => {});
    } catch (error) {
      throw refuse((error as { status?: number }).status === 413 ? 413 : 400);
    }
    await next();
  };
}
