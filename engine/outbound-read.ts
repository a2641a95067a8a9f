/**
 * The one reader of every outbound answer's body (webhook receivers, provider APIs, workout delivery): it
 * stops at a byte limit and at the call's deadline, and destroys the stream either way, so an answer that
 * never ends (a receiver streaming forever, or one that trickles a byte a minute) costs at most the limit in
 * memory and the deadline in time. The deadline is the caller's signal: the same one that bounds waiting for
 * the status line, so headers and body share one total.
 *
 * Deliberately not here: what a limit means to the caller (provider-http.ts makes it a ProviderCallError,
 * deliver.ts only wants a prefix or nothing). Kept honest by never-ending answers (test/support/
 * endless-answers.ts) in test/engine/webhooks.test.ts, test/engine/integrations/provider-limits.test.ts and
 * test/gateway/workouts.test.ts.
 */
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';

/** Which limit stopped a read. */
export type OutboundLimit = 'bytes' | 'time';

export class OutboundLimitError extends Error {
  constructor(readonly limit: OutboundLimit, message: string) {
    super(message);
    this.name = 'OutboundLimitError';
  }
}

export interface ReadLimits {
  /** Most bytes kept; one more is a `bytes` error (or, for readPrefix, the end of the read). */
  maxBytes: number;
  /** The call's total deadline (and any other stop); its abort ends the read as a `time` error. */
  signal: AbortSignal;
  /** The deadline in milliseconds, for the message only. */
  timeoutMs: number;
  /** Names the call in messages: `'garmin activity file'`. */
  what: string;
}

/** A body as fetch gives it (a web stream, or null for none) or as node:http gives it (a Readable). */
export type OutboundBody = Readable | ReadableStream<Uint8Array> | null;

/**
 * The whole body, or an OutboundLimitError naming the limit hit: `'garmin activity file: the answer
 * passed 67108864 bytes'`, `'… did not end within the 30000 ms deadline'`. Any other failure of the stream
 * (a reset connection) is rethrown as it is.
 */
export async function readBounded(body: OutboundBody, limits: ReadLimits): Promise<Buffer> {
  const { chunks, total, stopped } = await collect(body, limits);
  if (stopped) throw stopped;
  return Buffer.concat(chunks, total);
}

/**
 * At most `maxBytes` of the body and never an error: what came before a limit or a failure. For a body
 * that is only logged or quoted (a webhook receiver's answer, a provider's error text).
 */
export async function readPrefix(body: OutboundBody, limits: ReadLimits): Promise<Buffer> {
  const { chunks, total } = await collect(body, limits);
  return Buffer.concat(chunks, total).subarray(0, limits.maxBytes);
}

async function collect(body: OutboundBody, limits: ReadLimits): Promise<{ chunks: Buffer[]; total: number; stopped: Error | null }> {
  const chunks: Buffer[] = [];
  let total = 0;
  if (body === null) return { chunks, total, stopped: null };
  let stream: Readable;
  try {
    stream = body instanceof Readable ? body : Readable.fromWeb(body as WebReadableStream<Uint8Array>);
  } catch (error) {
    return { chunks, total, stopped: error as Error }; // a web stream already read or locked
  }
  const late = () => new OutboundLimitError('time', `${limits.what}: the answer did not end within the ${limits.timeoutMs} ms deadline`);
  const onAbort = () => stream.destroy(late());
  if (limits.signal.aborted) onAbort();
  else limits.signal.addEventListener('abort', onAbort, { once: true });
  try {
    for await (const chunk of stream as AsyncIterable<Buffer | Uint8Array | string>) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      total += bytes.byteLength;
      chunks.push(bytes);
      if (total > limits.maxBytes) return { chunks, total, stopped: new OutboundLimitError('bytes', `${limits.what}: the answer passed ${limits.maxBytes} bytes`) };
    }
    return { chunks, total, stopped: null };
  } catch (error) {
    // fetch aborts its own body on the same signal; whichever error arrives first, the deadline is what ended it.
    return { chunks, total, stopped: limits.signal.aborted ? late() : error as Error };
  } finally {
    limits.signal.removeEventListener('abort', onAbort);
    stream.destroy();
  }
}
