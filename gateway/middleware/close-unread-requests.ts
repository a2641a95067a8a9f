/**
 * Never keep a connection whose request was not read to the end. A refusal that leaves a body unread —
 * a body parser's 413 or 415, the token endpoint's own limit, an upload over its limit, a 401 before a
 * body was looked at — would otherwise leave the unread rest on a keep-alive socket, where the client's
 * next request waits behind it (a deflate bomb refused at its inflated limit stalled the next request
 * for seconds). Any response to a request not received in full is sent with `Connection: close`, so Node
 * ends the socket after it and the client opens a fresh one. One mechanism for every route; kept honest
 * by test/gateway/http-edge.test.ts.
 */
import type { Context, Next } from 'koa';

export function closeUnreadRequests() {
  return async function closeUnreadRequestsMiddleware(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
    } finally {
      // `complete`: the whole message (headers and body) has been received and parsed.
      if (!ctx.req.complete) ctx.set('Connection', 'close');
    }
  };
}
