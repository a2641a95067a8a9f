/**
 * The conversation over the MessagePort of a `streamSeriesTable` task (engine/pool/tasks.ts), between
 * the handler on the engine's event loop (which reads the store and writes the gRPC stream) and the
 * worker (which encodes):
 *
 *   worker  → handler  { type: 'next' }                       send me the next activity
 *   handler → worker   { type: 'activity', series, … }        its stored series, transferred
 *   handler → worker   { type: 'end' }                        there is none
 *   worker  → handler  { type: 'chunk', data }                file bytes, in order, transferred
 *   worker  → handler  { type: 'done', rows, bytes }          the file is complete
 *
 * The worker asks for one activity at a time and the handler answers only once the gRPC stream has
 * room, so at most one activity and one row group are in flight: memory stays bounded however many
 * activities match, and a slow reader slows the encoding instead of filling buffers.
 */
import type { MessagePort } from 'node:worker_threads';

export interface ActivityMessage {
  type: 'activity';
  /** The stored series (Arrow IPC stream), a standalone buffer transferred to the worker. */
  series: ArrayBuffer;
  id: string;
  /** Canonical Open Sport Taxonomy string. */
  sport: string;
  /** Minutes east of UTC. */
  offset: number;
}

export type ToWorker = ActivityMessage | { type: 'end' };

export type FromWorker =
  | { type: 'next' }
  | { type: 'chunk'; data: ArrayBuffer }
  | { type: 'done'; rows: number; bytes: number };

/**
 * Handler side: the worker's messages as an awaitable queue. `next()` rejects once `fail` was called
 * (the task failed), the signal aborted, or the port closed before a 'done'.
 */
export class PortInbox {
  private readonly messages: FromWorker[] = [];
  private waiting: { resolve: (message: FromWorker) => void; reject: (error: unknown) => void } | null = null;
  private failure: { error: unknown } | null = null;

  constructor(private readonly port: MessagePort, signal: AbortSignal) {
    port.on('message', (message: FromWorker) => {
      if (this.waiting === null) {
        this.messages.push(message);
        return;
      }
      const { resolve } = this.waiting;
      this.waiting = null;
      resolve(message);
    });
    port.once('close', () => this.fail(new Error('series stream: the worker closed the port before finishing')));
    if (signal.aborted) this.fail(signal.reason);
    else signal.addEventListener('abort', () => this.fail(signal.reason), { once: true });
  }

  next(): Promise<FromWorker> {
    const message = this.messages.shift();
    if (message !== undefined) return Promise.resolve(message);
    if (this.failure !== null) return Promise.reject(this.failure.error);
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
    });
  }

  send(message: ToWorker): void {
    this.port.postMessage(message, message.type === 'activity' ? [message.series] : []);
  }

  /** The first failure wins; messages already queued are still delivered before it. */
  fail(error: unknown): void {
    if (this.failure !== null) return;
    this.failure = { error };
    if (this.waiting !== null) {
      const { reject } = this.waiting;
      this.waiting = null;
      reject(error);
    }
  }

  close(): void {
    this.port.close();
  }
}

/** Worker side: asks the handler for the next activity and waits for its answer. */
export function requestActivity(port: MessagePort): Promise<ToWorker> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: ToWorker): void => {
      port.removeListener('close', onClose);
      resolve(message);
    };
    const onClose = (): void => {
      port.removeListener('message', onMessage);
      reject(new Error('series stream: the handler closed the port'));
    };
    port.once('message', onMessage);
    port.once('close', onClose);
    port.postMessage({ type: 'next' } satisfies FromWorker);
  });
}
