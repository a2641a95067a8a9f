/**
 * The one edge where engine errors become gRPC statuses.
 *
 * - `EngineError(status, message, errorCode?)` is the only error that leaves the engine as itself:
 *   its status, its message, and — when it has one — its stable machine code (e.g.
 *   `csv_naive_timestamp`) in the trailing metadata entry `threshold-error-code` (error-codes.ts).
 * - `wrapUnary` wraps every RPC handler once, so each call settles exactly once: with the handler's
 *   response, with DEADLINE_EXCEEDED / CANCELLED as soon as the deadline passes or the caller
 *   cancels (the handler's `signal` aborts the pool task), or with the handler's error. Anything
 *   that is not an `EngineError` becomes INTERNAL with a generic message, and the real error is
 *   logged (grpc-js would otherwise echo a thrown message as UNKNOWN).
 * - `wrapServerStream` does the same for server-streaming RPCs, whose handlers write through a
 *   `StreamSink` that waits for 'drain' (backpressure) and rejects once the call has settled.
 *
 * test/engine/errors.test.ts and test/engine/server.test.ts keep it honest.
 */
import {
  Metadata, status, type StatusObject, type handleServerStreamingCall, type handleUnaryCall, type ServerUnaryCall, type ServerWritableStream,
} from '@grpc/grpc-js';
import type { Logger } from '../domain/logger.js';
import { ERROR_CODE_KEY, REQUEST_ID_KEY } from './error-codes.js';

export class EngineError extends Error {
  constructor(
    /** The gRPC status the caller sees. */
    readonly status: status,
    message: string,
    /** Stable machine-readable code (snake_case), sent as `threshold-error-code`; null when none. */
    readonly errorCode: string | null = null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'EngineError';
  }
}

export interface CallContext {
  /** Aborts when the deadline passes or the caller cancels; hand it to `pool.run`. */
  readonly signal: AbortSignal;
  /** The call's deadline, UTC epoch milliseconds (the caller's, or now + the default). */
  readonly deadline: number;
}

export interface UnaryOptions {
  logger: Logger;
  /** Deadline applied when the caller sets none, milliseconds. */
  defaultDeadlineMs: number;
  /** Told how every call settled (the metrics' RPC latency): method, gRPC status name, seconds. */
  observe?: (method: string, code: string, seconds: number) => void;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The call's logger: with the caller's request id when it sent a well-formed one. */
function callLogger(logger: Logger, metadata: Metadata): Logger {
  const [id] = metadata.get(REQUEST_ID_KEY);
  return typeof id === 'string' && REQUEST_ID.test(id) ? logger.child({ request_id: id }) : logger;
}

/** setTimeout fires at once for delays above 2^31 − 1 ms; longer deadlines are waited in this cap. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export function wrapUnary<Req, Res>(
  method: string,
  handler: (request: Req, context: CallContext) => Promise<Res>,
  options: UnaryOptions,
): handleUnaryCall<Req, Res> {
  const { defaultDeadlineMs, observe } = options;
  return function unary(call, callback) {
    const logger = callLogger(options.logger, call.metadata);
    const { started, deadline, controller, release, start } = watchCall(call, defaultDeadlineMs);
    let settled = false;

    const settle = (error: unknown, response?: Res): void => {
      if (settled) return;
      settled = true;
      release();
      const ms = Date.now() - started;
      if (error === null) {
        logger.debug({ method, ms }, 'engine: call ok');
        observe?.(method, 'OK', ms / 1000);
        callback(null, response);
        return;
      }
      const failure = failureStatus(error, controller.signal, logger, { method, ms });
      observe?.(method, status[failure.code!], ms / 1000);
      callback(failure);
    };

    controller.signal.addEventListener('abort', () => settle(controller.signal.reason), { once: true });
    start();
    if (settled) return;

    Promise.resolve()
      .then(() => handler(call.request, { signal: controller.signal, deadline }))
      .then((response) => settle(null, response), (error: unknown) => settle(error));
  };
}

/**
 * The stream a server-streaming handler writes to. `write` resolves when the call can take another
 * message (at once, or after 'drain' when grpc-js's buffer is full: that is the backpressure a slow
 * reader exerts), and rejects once the call has settled (deadline, cancellation, failure).
 */
export interface StreamSink<Res> {
  write(message: Res): Promise<void>;
}

/**
 * `wrapUnary` for server-streaming RPCs, with the same guarantees: a deadline on every call, the
 * handler's `signal` aborted when it passes or the caller cancels, one settlement (the call ends OK
 * when the handler resolves, or with the mapped status when it fails or the signal aborts; messages
 * already written are delivered first), `EngineError` statuses and codes kept, anything else INTERNAL
 * and logged. A handler failure also aborts the signal, so pool tasks still running stop.
 */
export function wrapServerStream<Req, Res>(
  method: string,
  handler: (request: Req, sink: StreamSink<Res>, context: CallContext) => Promise<void>,
  options: UnaryOptions,
): handleServerStreamingCall<Req, Res> {
  const { defaultDeadlineMs, observe } = options;
  return function serverStream(call) {
    const logger = callLogger(options.logger, call.metadata);
    const { started, deadline, controller, release, start } = watchCall(call, defaultDeadlineMs);
    const { signal } = controller;
    let settled = false;
    let messages = 0;

    const settle = (error: unknown): void => {
      if (settled) return;
      settled = true;
      release();
      const ms = Date.now() - started;
      if (error === null) {
        logger.debug({ method, ms, messages }, 'engine: call ok');
        observe?.(method, 'OK', ms / 1000);
        call.end();
        return;
      }
      const failure = failureStatus(error, signal, logger, { method, ms, messages });
      observe?.(method, status[failure.code!], ms / 1000);
      // grpc-js ends the call with this status once the messages already written are sent.
      call.emit('error', failure);
      if (!signal.aborted) controller.abort(new EngineError(status.CANCELLED, 'engine: call failed'));
    };

    const sink: StreamSink<Res> = {
      write(message) {
        if (settled) return Promise.reject(signal.reason ?? new EngineError(status.CANCELLED, 'engine: call already ended'));
        messages += 1;
        if (call.write(message)) return Promise.resolve();
        return new Promise((resolve, reject) => {
          const onDrain = (): void => {
            signal.removeEventListener('abort', onAbort);
            resolve();
          };
          const onAbort = (): void => {
            call.removeListener('drain', onDrain);
            reject(signal.reason);
          };
          call.once('drain', onDrain);
          signal.addEventListener('abort', onAbort, { once: true });
        });
      },
    };

    signal.addEventListener('abort', () => settle(signal.reason), { once: true });
    start();
    if (settled) return;

    Promise.resolve()
      .then(() => handler(call.request, sink, { signal, deadline }))
      .then(() => settle(null), (error: unknown) => settle(error));
  };
}

/**
 * The lifecycle every call shares: its deadline (the caller's or the default), an AbortController
 * aborted with DEADLINE_EXCEEDED when it passes or CANCELLED when the caller cancels. `start()` checks
 * a call already cancelled or past its deadline (after the caller has subscribed to the signal);
 * `release()` stops watching once the call has settled.
 */
function watchCall(call: ServerUnaryCall<unknown, unknown> | ServerWritableStream<unknown, unknown>, defaultDeadlineMs: number) {
  const started = Date.now();
  const deadline = callerDeadline(call) ?? started + defaultDeadlineMs;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(deadlineExceeded()), Math.min(MAX_TIMER_MS, Math.max(0, deadline - started)));
  const onCancelled = (): void => {
    controller.abort(Date.now() >= deadline ? deadlineExceeded() : new EngineError(status.CANCELLED, 'engine: call cancelled'));
  };
  call.once('cancelled', onCancelled);
  return {
    started,
    deadline,
    controller,
    start(): void {
      if (call.cancelled) onCancelled();
      else if (deadline <= started) controller.abort(deadlineExceeded());
    },
    release(): void {
      clearTimeout(timer);
      call.removeListener('cancelled', onCancelled);
    },
  };
}

/** The status a failed call ends with; unexpected errors become a generic INTERNAL and are logged. */
function failureStatus(error: unknown, signal: AbortSignal, logger: Logger, context: Record<string, unknown>): Partial<StatusObject> {
  const failure = toEngineError(error, signal);
  if (failure === null) {
    logger.error({ ...context, err: error }, 'engine: internal error');
    return { code: status.INTERNAL, details: 'engine: internal error', metadata: new Metadata() };
  }
  logger.debug({ ...context, status: status[failure.status], errorCode: failure.errorCode }, failure.message);
  const metadata = new Metadata();
  if (failure.errorCode !== null) metadata.set(ERROR_CODE_KEY, failure.errorCode);
  return { code: failure.status, details: failure.message, metadata };
}

function deadlineExceeded(): EngineError {
  return new EngineError(status.DEADLINE_EXCEEDED, 'engine: deadline exceeded');
}

function callerDeadline(call: Pick<ServerUnaryCall<unknown, unknown>, 'getDeadline'>): number | null {
  const value = call.getDeadline();
  const ms = value instanceof Date ? value.getTime() : value;
  return Number.isFinite(ms) ? ms : null;
}

/** The status an error leaves with, or null when it is unexpected (INTERNAL, logged). */
function toEngineError(error: unknown, signal: AbortSignal): EngineError | null {
  if (error instanceof EngineError) return error;
  // An AbortError (Piscina's, or a DOMException from fetch-like APIs) after our own abort: the
  // abort reason says why. One without our signal aborted is unexpected.
  if (error instanceof Error && error.name === 'AbortError' && signal.aborted) {
    return signal.reason instanceof EngineError ? signal.reason : new EngineError(status.CANCELLED, 'engine: call cancelled');
  }
  return null;
}
