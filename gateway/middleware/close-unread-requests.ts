/**
 * Never keep a connection whose request was not read to the end. A refusal that leaves a body unread —
 * a body parser's 413 or 415, the token endpoint's own limit, an upload over its limit, a 401 before a
 * body was looked at — would otherwise leave the unread rest on a keep-alive socket, where the client's
 * next request waits behind it (a deflate bomb refused at its inflated limit stalled the next request
 * for seconds: the parser had started reading, so Node did not discard the rest itself).
 *
 * For a response to a request not received in full: a declared remainder of at most DRAIN_LIMIT_BYTES
 * is read and discarded, so the connection stays usable; a larger or undeclared (chunked) one is not
 * read at all, and the response carries `Connection: close`, so Node ends the socket after it and the
 * client opens a fresh one. One mechanism for every route; kept honest by test/gateway/http-edge.test.ts.
 */
import type { Context, Next } from 'koa';

/** The most a refused request may still send that is read and discarded instead of closing, bytes. */
export const DRAIN_LIMIT_BYTES = 1024 * 1024;

export function closeUnreadRequests() {
  return async function closeUnreadRequestsMiddleware(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
    } finally {
      // `complete`: the whole message (headers and body) has been received and parsed.
      if (!ctx.req.complete) settleUnread(ctx);
    }
  };
}

function settleUnread(ctx: Context): void {
  const declared = Number(ctx.get('content-length'));
  if (ctx.get('content-length') !== '' && Number.isSafeInteger(declared) && declared <= DRAIN_LIMIT_BYTES) {
    // At most DRAIN_LIMIT_BYTES in all; whatever a parser left unconsumed is dropped as it arrives.
    ctx.req.removeAllListeners('data');
    ctx.req.resume();
    return;
  }
  ctx.set('Connection', 'close');
}
