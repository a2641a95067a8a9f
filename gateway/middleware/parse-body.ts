/**
 * Body parsing, a step of each route's chain (route-table.ts) rather than of the whole app, so a route
 * that needs a different parser declares it. The default takes JSON or urlencoded forms up to 1 MB;
 * uploads parse their own multipart bodies (multipart.ts); the token endpoint takes only small forms
 * (routes/oauth-token.ts declares `tokenFormParser`).
 */
import { bodyParser } from '@koa/bodyparser';
import type { Middleware } from 'koa';

/** JSON and form bodies are small; uploads go through their own multipart parser. */
const BODY_LIMIT = '1mb';

/** The default: JSON or urlencoded form, UTF-8, at most BODY_LIMIT (413 beyond it). */
export function parseBody(): Middleware {
  return bodyParser({ enableTypes: ['json', 'form'], jsonLimit: BODY_LIMIT, formLimit: BODY_LIMIT, encoding: 'utf-8' });
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
