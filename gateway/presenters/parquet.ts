/**
 * Parquet responses, written one way for every endpoint: a whole table the engine returned (analyses)
 * or a stream of its chunks (series). A stream that fails after its first byte can only end the
 * connection (a Parquet reader then rejects the cut file, which lacks its footer).
 */
import { Readable } from 'node:stream';
import type { Context } from 'koa';
import type { ResponseSpec } from '../route-table.js';

/** gaps.md "Wire conventions": "Media types: Parquet `application/vnd.apache.parquet`". */
export const PARQUET_MEDIA_TYPE = 'application/vnd.apache.parquet';

/** The 200 response of a Parquet endpoint in the route table. */
export const PARQUET_RESPONSE: ResponseSpec = { description: 'Parquet file', mediaType: PARQUET_MEDIA_TYPE };

/** Sends a table file: bytes as they are, or a stream piped with backpressure. */
export function sendParquet(ctx: Context, body: Readable | Uint8Array): void {
  ctx.type = PARQUET_MEDIA_TYPE;
  if (!(body instanceof Readable)) {
    ctx.body = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    return;
  }
  body.once('error', (error: Error) => {
    if (!ctx.res.writableFinished && ctx.res.destroyed) return; // the client left; nothing to report
    ctx.state.logger?.warn({ err: error }, 'parquet response failed after it started');
  });
  ctx.body = body;
}
