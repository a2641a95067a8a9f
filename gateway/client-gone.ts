/** An AbortSignal for engine calls that fires when the HTTP client closes the connection before the response is complete. */
import type { Context } from 'koa';

export function clientGone(ctx: Context): AbortSignal {
  const controller = new AbortController();
  ctx.res.once('close', () => {
    if (!ctx.res.writableFinished) controller.abort();
  });
  return controller.signal;
}
