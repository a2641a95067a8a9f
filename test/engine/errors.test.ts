import { EventEmitter } from 'node:events';
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { Metadata, status, type ServerUnaryCall, type ServiceError } from '@grpc/grpc-js';
import { EngineError, wrapUnary, type CallContext } from '../../engine/errors.js';
import { errorCodeOf } from '../../engine/error-codes.js';
import { captureLogger, silentLogger } from './support.js';

interface Settlement {
  error: { code?: number; details?: string; metadata?: Metadata } | null;
  value: unknown;
}

/** Runs a wrapped handler against a stand-in call; resolves with the first settlement, counts them all. */
function invoke<Res>(
  handler: (request: { id: string }, context: CallContext) => Promise<Res>,
  options: { deadline?: number; defaultDeadlineMs?: number; logger?: ReturnType<typeof silentLogger> } = {},
) {
  const call = Object.assign(new EventEmitter(), {
    request: { id: 'x' },
    cancelled: false,
    metadata: new Metadata(),
    getDeadline: () => options.deadline ?? Number.POSITIVE_INFINITY,
  });
  const settlements: Settlement[] = [];
  const unary = wrapUnary('Test', handler, { logger: options.logger ?? silentLogger(), defaultDeadlineMs: options.defaultDeadlineMs ?? 30_000 });
  const first = new Promise<Settlement>((resolve) => {
    unary(call as unknown as ServerUnaryCall<{ id: string }, Res>, (error, value) => {
      settlements.push({ error: error as Settlement['error'], value });
      resolve({ error: error as Settlement['error'], value });
    });
  });
  return { call, first, settlements };
}

/** Resolves when the signal aborts, then (like Piscina) rejects with an AbortError. */
function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    signal.addEventListener('abort', () => reject(Object.assign(new Error('The task has been aborted'), { name: 'AbortError' })), { once: true });
  });
}

test('answers with the handler\'s response', async () => {
  const { first } = invoke(async (request) => ({ echoed: request.id }));
  assert.equal(await first, { error: null, value: { echoed: 'x' } });
});

test('sends an EngineError\'s status and message, and its code as threshold-error-code', async () => {
  const { first } = invoke(async () => {
    throw new EngineError(status.FAILED_PRECONDITION, 'csv decode: the file is empty', 'csv_empty');
  });
  const { error } = await first;
  assert.is(error!.code, status.FAILED_PRECONDITION);
  assert.is(error!.details, 'csv decode: the file is empty');
  assert.equal(error!.metadata!.get('threshold-error-code'), ['csv_empty']);
  assert.is(errorCodeOf(error as ServiceError), 'csv_empty');
});

test('turns any other error into INTERNAL with a generic message and logs the real one', async () => {
  const { logger, lines } = captureLogger();
  const { first } = invoke(async () => {
    throw new TypeError('cannot read properties of undefined (secret detail)');
  }, { logger });
  const { error } = await first;
  assert.is(error!.code, status.INTERNAL);
  assert.is(error!.details, 'engine: internal error');
  assert.is(errorCodeOf(error as ServiceError), null);
  const logged = lines.find((line) => line['msg'] === 'engine: internal error');
  assert.ok(logged, 'the real error is logged');
  assert.match(JSON.stringify(logged['err']), /secret detail/);
});

test('answers CANCELLED and aborts the signal when the caller cancels, ignoring the handler\'s late result', async () => {
  let seen: AbortSignal | null = null;
  const { call, first, settlements } = invoke(async (_request, { signal }) => {
    seen = signal;
    await untilAborted(signal).catch(() => undefined);
    return 'late';
  });
  call.emit('cancelled');
  const { error } = await first;
  assert.is(error!.code, status.CANCELLED);
  assert.ok(seen!.aborted);
  await Promise.resolve();
  assert.is(settlements.length, 1);
});

test('answers DEADLINE_EXCEEDED and aborts the signal when the caller\'s deadline passes', async () => {
  let seen: AbortSignal | null = null;
  const { first, settlements } = invoke((_request, { signal }) => {
    seen = signal;
    return untilAborted(signal);
  }, { deadline: Date.now() + 20 });
  const { error } = await first;
  assert.is(error!.code, status.DEADLINE_EXCEEDED);
  assert.is(error!.details, 'engine: deadline exceeded');
  assert.ok(seen!.aborted);
  assert.is(settlements.length, 1);
});

test('applies the default deadline when the caller sets none', async () => {
  let deadline = 0;
  const before = Date.now();
  const { first } = invoke((_request, context) => {
    deadline = context.deadline;
    return untilAborted(context.signal);
  }, { defaultDeadlineMs: 25 });
  const after = Date.now();
  assert.is((await first).error!.code, status.DEADLINE_EXCEEDED);
  // The deadline is the call's start plus the default (compared with the clock around the call, not with
  // when the timer fired: a timer may fire a millisecond before Date.now() reaches its deadline).
  assert.ok(deadline >= before + 25 && deadline <= after + 25, `deadline ${deadline - before} ms after the call`);
});

test('answers DEADLINE_EXCEEDED at once for a deadline already past, without running the handler late', async () => {
  let ran = false;
  const { first } = invoke(async ({ id }, { signal }) => {
    ran = !signal.aborted;
    return id;
  }, { deadline: Date.now() - 1000 });
  assert.is((await first).error!.code, status.DEADLINE_EXCEEDED);
  assert.is(ran, false);
});

test('reads no error code from a failure without one', () => {
  assert.is(errorCodeOf({ metadata: new Metadata() }), null);
});

test.run();
