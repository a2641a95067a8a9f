/**
 * Writes a route's JSON body with the route's declared response schema (presenters/json-writer.ts), so
 * float-typed fields carry a decimal point: gaps.md "Float-typed fields are written with a decimal point
 * (`4998.0`)". It runs first in the route's chain and acts after the handler, on a body left as a value for
 * Koa to serialise; a body already written (a string, a buffer, a stream) is left alone, and so is a status
 * the route declares no schema for (errors are written by handle-errors.ts). Kept honest by
 * test/gateway/float-fields.test.ts.
 */
import type { Context, Next } from 'koa';
import type { z } from 'zod';
import { holdsFloats, jsonWriter } from '../presenters/json-writer.js';

/** A route's declared responses by status: JSON ones (no media type, application/json or a +json one) carry a schema. */
type Responses = Record<number, { schema?: z.ZodType; mediaType?: string }>;

/**
 * The middleware, or null when no declared JSON response holds a float. Called as routes are mounted (every
 * schema module loaded), so each writer is built at start-up and a schema it cannot read stops the start.
 */
export function writeJson(responses: Responses) {
  const schemas = new Map<number, z.ZodType>();
  for (const [status, response] of Object.entries(responses)) {
    const json = response.mediaType === undefined || response.mediaType === 'application/json' || response.mediaType.endsWith('+json');
    if (response.schema && json && holdsFloats(response.schema)) schemas.set(Number(status), response.schema);
  }
  if (schemas.size === 0) return null;
  return async function writeJsonBody(ctx: Context, next: Next): Promise<void> {
    await next();
    const body: unknown = ctx.body;
    if (!isPlainValue(body)) return;
    const schema = schemas.get(ctx.status);
    if (schema === undefined) return;
    // Koa typed the body JSON when the handler set it; the header stays as it is.
    ctx.body = jsonWriter(schema)(body);
  };
}

/** An array or a plain object, as presenters build them: not text, a buffer, a stream or a blob. */
function isPlainValue(body: unknown): body is object {
  if (typeof body !== 'object' || body === null) return false;
  if (Array.isArray(body)) return true;
  const prototype: unknown = Object.getPrototypeOf(body);
  return prototype === Object.prototype || prototype === null;
}
