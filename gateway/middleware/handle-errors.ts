/**
 * The one error writer. Typed errors become their documented bodies; errors raised by Koa and its
 * body parser keep their status with a JSON body; anything else is a generic 500 whose cause is only
 * logged (no secret, token or stack trace ever reaches a response).
 */
import { STATUS_CODES } from 'node:http';
import type { Context, Next } from 'koa';
import { HttpError, OAuthError, ProblemError, ValidationError } from '../errors.js';

interface KoaLikeError {
  status?: number;
  statusCode?: number;
  expose?: boolean;
  message?: string;
  type?: string;
  headers?: Record<string, string>;
}

export function handleErrors() {
  return async function handleErrorsMiddleware(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
      // Statuses set without a body (no route, 405 from allowedMethods) still get a JSON detail.
      if (ctx.status >= 400 && ctx.body == null) writeJson(ctx, ctx.status, { detail: STATUS_CODES[ctx.status] ?? 'Error' });
    } catch (error) {
      writeError(ctx, error);
    }
  };
}

export function writeError(ctx: Context, error: unknown): void {
  if (error instanceof ValidationError) {
    writeJson(ctx, 422, { detail: error.issues });
  } else if (error instanceof OAuthError) {
    // RFC 6749 §5.1: "Cache-Control: no-store" and "Pragma: no-cache", on errors too.
    for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Pragma', 'no-cache');
    writeJson(ctx, error.status, { error: error.error, error_description: error.description });
  } else if (error instanceof ProblemError) {
    writeJson(ctx, error.status, { type: 'about:blank', title: error.title, status: error.status, detail: error.message, code: error.code });
    ctx.type = 'application/problem+json';
  } else if (error instanceof HttpError) {
    for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
    if (error.expose) {
      writeJson(ctx, error.status, { detail: error.message });
    } else {
      ctx.state.logger?.error({ err: error.cause ?? error }, 'request failed');
      writeJson(ctx, error.status, { detail: 'Internal Server Error' });
    }
  } else if (isClientError(error)) {
    writeClientError(ctx, error);
  } else {
    ctx.state.logger?.error({ err: error }, 'unhandled error');
    writeJson(ctx, 500, { detail: 'Internal Server Error' });
  }
}

function isClientError(error: unknown): error is KoaLikeError {
  if (typeof error !== 'object' || error === null) return false;
  const status = (error as KoaLikeError).status ?? (error as KoaLikeError).statusCode;
  return typeof status === 'number' && status >= 400 && status < 500;
}

/** Errors from Koa and co-body: a malformed JSON body is a 422 like FastAPI's `json_invalid`. */
function writeClientError(ctx: Context, error: KoaLikeError): void {
  const status = error.status ?? error.statusCode ?? 400;
  if (status === 400 && /json/i.test(error.message ?? '')) {
    writeJson(ctx, 422, { detail: [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }] });
    return;
  }
  const detail = status === 413 ? 'Request body too large' : status === 415 ? 'Unsupported media type' : (error.expose && error.message) || 'Bad Request';
  writeJson(ctx, status, { detail });
}

function writeJson(ctx: Context, status: number, body: unknown): void {
  ctx.status = status;
  ctx.body = body;
  ctx.type = 'application/json';
}
