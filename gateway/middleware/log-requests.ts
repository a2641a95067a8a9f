/**
 * Request ids and structured access logs. The id comes from a well-formed incoming `X-Request-Id`
 * (so a proxy's id carries through) or is generated, is echoed in the response header and rides on
 * every log line of the request through `ctx.state.logger`.
 */
import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import type { Logger } from '../../domain/logger.js';

const INCOMING_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function logRequests(logger: Logger) {
  return async function logRequestsMiddleware(ctx: Context, next: Next): Promise<void> {
    const incoming = ctx.get('x-request-id');
    const requestId = INCOMING_ID.test(incoming) ? incoming : randomUUID();
    const started = process.hrtime.bigint();
    ctx.state.requestId = requestId;
    ctx.state.logger = logger.child({ request_id: requestId });
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      // The path only: query strings may carry codes or tokens.
      ctx.state.logger.info({ method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(ms * 10) / 10 }, 'request');
    }
  };
}
