/**
 * What every engine call from a request carries: an AbortSignal that fires when the HTTP client closes
 * the connection before the response is complete, and the request's id, which the engine logs with the
 * call (gRPC metadata `x-request-id`), so one id follows a request across both processes.
 */
import type { Context } from 'koa';
import type { CallOptions } from './engine-client.js';

export function clientGone(ctx: Context): AbortSignal {
  const controller = new AbortController();
  ctx.res.once('close', () => {
    if (!ctx.res.writableFinished) controller.abort();
  });
  return controller.signal;
}

/** `{signal, requestId}` for an engine call made on behalf of this request. */
export function engineCallOptions(ctx: Context): CallOptions {
  return { signal: clientGone(ctx), requestId: ctx.state.requestId as string | undefined };
}
