/**
 * The real engine on 127.0.0.1:0 over the real embedded store, called over real gRPC with a client
 * built from engine/contract.ts.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import {
  credentials, loadPackageDefinition, logVerbosity, makeGenericClientConstructor, Metadata, setLogVerbosity, status, type Client, type ClientDuplexStream,
  type GrpcObject, type ServiceClientConstructor, type ServiceError,
} from '@grpc/grpc-js';
import { loadFileDescriptorSetFromBuffer, loadSync, type MethodDefinition } from '@grpc/proto-loader';
import { DataType, TimeUnit, tableFromIPC, type Timestamp } from 'apache-arrow';
import { service as healthService } from 'grpc-health-check';
import { errorCodeOf } from '../../engine/error-codes.js';
import { ENGINE_SERVICE_NAME } from '../../engine/contract.js';
import { startEngine } from '../../engine/server.js';
import type { Store } from '../../storage/store.js';
import {
  callDecodeSource, captureLogger, csvBytes, largeCsv, openTestStore, putSource, silentLogger, startTestEngine, statusName, testConfig,
  type CallOutcome,
  type TestEngine,
} from './support.js';

const USER = 'u1';
const T0 = Date.UTC(2024, 4, 1, 5, 0, 0);

let store: Store;
let engine: TestEngine;
const log = captureLogger();

test.before(async () => {
  store = await openTestStore();
  engine = await startTestEngine(store, { logger: log.logger });
});

test.after(async () => {
  await engine.close();
  await store.close();
});

function failure<T>(outcome: CallOutcome<T>): ServiceError {
  if (outcome.ok) throw new Error('expected the call to fail');
  return outcome.error;
}

function expectStatus<T>(outcome: CallOutcome<T>, expected: status): ServiceError {
  const error = failure(outcome);
  assert.is(statusName(error.code), statusName(expected), error.details);
  return error;
}

test('decodes a stored CSV source into one activity with its Arrow series', async () => {
  const source = await putSource(store, USER, csvBytes([
    'timestamp,sport,power,heart_rate,watts',
    '2024-05-01T07:00:00+02:00,cycling.road,200,120,1',
    '2024-05-01T07:00:01+02:00,cycling.road,,121,1',
  ]));
  const outcome = await callDecodeSource(engine.client, { user_id: USER, source_id: source.id, format: 'ARROW_IPC' });
  assert.ok(outcome.ok, outcome.ok ? '' : outcome.error.details);
  if (!outcome.ok) return;
  const { activities, warnings } = outcome.value;
  assert.equal(warnings, ["csv decode: unknown columns ignored: 'watts'"]);
  assert.is(activities.length, 1);
  const activity = activities[0]!;
  assert.equal(
    { sport: activity.sport, start: activity.start, end: activity.end, offset: activity.offset, samples: activity.samples, metrics: activity.metrics },
    // Two samples 1 s apart: the last holds 1 s, so the activity ends 2 s after it starts.
    { sport: 'cycling.road', start: String(T0), end: String(T0 + 2000), offset: 120, samples: '2', metrics: ['power', 'heart_rate'] },
  );
  const table = tableFromIPC(activity.series);
  const timestamp = table.schema.fields[0]!;
  assert.ok(DataType.isTimestamp(timestamp.type));
  assert.is((timestamp.type as Timestamp).unit, TimeUnit.MILLISECOND);
  assert.is((timestamp.type as Timestamp).timezone, 'UTC');
  assert.equal(table.toArray().map((row) => row.toJSON()), [
    { timestamp: T0, power: 200, heart_rate: 120 },
    { timestamp: T0 + 1000, power: null, heart_rate: 121 },
  ]);
});

test('returns a series larger than gRPC\'s default 4 MiB message limit to a contract client', async () => {
  const source = await putSource(store, USER, largeCsv(100_000));
  const outcome = await callDecodeSource(engine.client, { user_id: USER, source_id: source.id });
  assert.ok(outcome.ok, outcome.ok ? '' : outcome.error.details);
  if (!outcome.ok) return;
  const activity = outcome.value.activities[0]!;
  assert.ok(activity.series.byteLength > 4 * 1024 * 1024, `${activity.series.byteLength} bytes`);
  assert.is(activity.samples, '100000');
  const table = tableFromIPC(activity.series);
  assert.is(table.numRows, 100_000);
  assert.is(table.getChild('timestamp')!.get(99_999), T0 + 99_999_000);
  assert.equal(activity.metrics, ['power', 'speed', 'heart_rate', 'cadence', 'distance']);
});

test('rejects start-up when the address is already taken', async () => {
  setLogVerbosity(logVerbosity.NONE); // grpc-js would print the bind failure to stderr too
  try {
    await startEngine({ config: testConfig(), store, logger: silentLogger(), address: engine.address });
    assert.unreachable('the second engine should not start');
  } catch (error) {
    assert.match((error as Error).message, `engine: cannot listen on ${engine.address}`);
  } finally {
    setLogVerbosity(logVerbosity.ERROR);
  }
});

test('answers NOT_FOUND for another user\'s source and for an unknown id', async () => {
  const source = await putSource(store, 'someone-else', csvBytes(['timestamp,sport', '2024-05-01T05:00:00Z,running']));
  const theirs = expectStatus(await callDecodeSource(engine.client, { user_id: USER, source_id: source.id }), status.NOT_FOUND);
  assert.is(theirs.details, `engine: source ${source.id} not found`);
  expectStatus(await callDecodeSource(engine.client, { user_id: USER, source_id: 'no-such-source' }), status.NOT_FOUND);
});

test('answers FAILED_PRECONDITION with the decoder\'s code for a naive-timestamp CSV', async () => {
  const source = await putSource(store, USER, csvBytes(['timestamp,sport', '2024-05-01T07:00:00,cycling']));
  const error = expectStatus(await callDecodeSource(engine.client, { user_id: USER, source_id: source.id }), status.FAILED_PRECONDITION);
  assert.is(error.details, "csv decode: line 2 column timestamp: '2024-05-01T07:00:00' has no UTC offset");
  assert.is(errorCodeOf(error), 'csv_naive_timestamp');
});

test('answers FAILED_PRECONDITION fit_not_fit for a FIT source whose bytes are not FIT', async () => {
  const source = await putSource(store, USER, new Uint8Array([14, 16, 0, 0]), { type: 'fit', filename: 'ride.fit' });
  const error = expectStatus(await callDecodeSource(engine.client, { user_id: USER, source_id: source.id }), status.FAILED_PRECONDITION);
  assert.match(error.details, 'fit decode: not a FIT file');
  assert.is(errorCodeOf(error), 'fit_not_fit');
});

test('answers INVALID_ARGUMENT for an empty user or source id', async () => {
  const noSource = expectStatus(await callDecodeSource(engine.client, { user_id: USER, source_id: '' }), status.INVALID_ARGUMENT);
  assert.is(noSource.details, 'decode source: source_id must not be empty');
  const noUser = expectStatus(await callDecodeSource(engine.client, { user_id: '', source_id: 'abc' }), status.INVALID_ARGUMENT);
  assert.is(noUser.details, 'decode source: user_id must not be empty');
  expectStatus(await callDecodeSource(engine.client, { user_id: USER, source_id: 'abc', format: 'PARQUET' }), status.INVALID_ARGUMENT);
});

test('answers DEADLINE_EXCEEDED when the deadline passes mid-decode, aborts the task and keeps serving', async () => {
  const big = await putSource(store, USER, largeCsv(120_000));
  expectStatus(await callDecodeSource(engine.client, { user_id: USER, source_id: big.id }, { deadlineMs: 60 }), status.DEADLINE_EXCEEDED);
  // The engine aborts the pool task too: on its own deadline timer, or on the caller's cancellation
  // (the client resets the stream at its deadline, a hair before the server's copy of it passes).
  const aborted = (line: Record<string, unknown>) =>
    line['method'] === 'DecodeSource' && (line['status'] === 'DEADLINE_EXCEEDED' || line['status'] === 'CANCELLED');
  const until = Date.now() + 5_000;
  while (!log.lines.some(aborted)) {
    assert.ok(Date.now() < until, 'the engine gave up the call');
    await new Promise((resolve) => setImmediate(resolve));
  }
  const small = await putSource(store, USER, csvBytes(['timestamp,sport', '2024-05-02T05:00:00Z,running']));
  assert.ok((await callDecodeSource(engine.client, { user_id: USER, source_id: small.id })).ok);
});

test('answers DEADLINE_EXCEEDED for a deadline already past', async () => {
  const source = await putSource(store, USER, csvBytes(['timestamp,sport', '2024-05-03T05:00:00Z,running']));
  expectStatus(await callDecodeSource(engine.client, { user_id: USER, source_id: source.id }, { deadlineMs: -1 }), status.DEADLINE_EXCEEDED);
});

interface HealthClient extends Client {
  Check(request: { service: string }, metadata: Metadata, callback: (error: ServiceError | null, response?: { status: string }) => void): void;
}

function healthCheck(address: string, service: string): Promise<string> {
  const Health = makeGenericClientConstructor(healthService, 'Health') as unknown as new (...args: ConstructorParameters<ServiceClientConstructor>) => HealthClient;
  const client = new Health(address, credentials.createInsecure());
  return new Promise((resolve, reject) => {
    client.Check({ service }, new Metadata(), (error, response) => {
      client.close();
      if (error) reject(error);
      else resolve(response!.status);
    });
  });
}

test('reports SERVING for the server and the Engine service over grpc.health.v1', async () => {
  assert.is(await healthCheck(engine.address, ''), 'SERVING');
  assert.is(await healthCheck(engine.address, ENGINE_SERVICE_NAME), 'SERVING');
});

test('lists the Engine service through server reflection', async () => {
  const reflectionDir = path.join(path.dirname(createRequire(import.meta.url).resolve('@grpc/reflection/package.json')), 'build', 'proto');
  const definition = loadSync('grpc/reflection/v1alpha/reflection.proto', { includeDirs: [reflectionDir], keepCase: true, defaults: true, oneofs: true });
  const reflection = (loadPackageDefinition(definition) as { grpc: { reflection: { v1alpha: GrpcObject } } }).grpc.reflection.v1alpha;
  const Reflection = reflection['ServerReflection'] as ServiceClientConstructor;
  const client = new Reflection(engine.address, credentials.createInsecure());
  const stream = (client as unknown as { ServerReflectionInfo(): ClientDuplexStream<object, { list_services_response?: { service: { name: string }[] } }> }).ServerReflectionInfo();
  const names = await new Promise<string[]>((resolve, reject) => {
    stream.on('data', (response) => {
      resolve((response.list_services_response?.service ?? []).map((entry: { name: string }) => entry.name));
      stream.end();
    });
    stream.on('error', reject);
    stream.write({ list_services: '' });
  });
  client.close();
  assert.ok(names.includes(ENGINE_SERVICE_NAME), names.join(', '));
});

// ---------------------------------------------------------------------------------------------------------
// Reflection v1 (grpcurl's first choice), asked as grpcurl asks: list the services, then the file of a
// symbol, from which a client is built and called ("health checks by symbol").

interface ReflectionAnswer {
  list_services_response?: { service: { name: string }[] };
  file_descriptor_response?: { file_descriptor_proto: Buffer[] };
  error_response?: { error_code: number; error_message: string };
}

/** One request on a fresh v1 ServerReflectionInfo stream, and its answer. */
async function reflect(address: string, request: object): Promise<ReflectionAnswer> {
  const reflectionDir = path.join(path.dirname(createRequire(import.meta.url).resolve('@grpc/reflection/package.json')), 'build', 'proto');
  const definition = loadSync('grpc/reflection/v1/reflection.proto', { includeDirs: [reflectionDir], keepCase: true, defaults: true, oneofs: true });
  const Reflection = (loadPackageDefinition(definition) as { grpc: { reflection: { v1: GrpcObject } } }).grpc.reflection.v1['ServerReflection'] as ServiceClientConstructor;
  const client = new Reflection(address, credentials.createInsecure());
  try {
    const stream = (client as unknown as { ServerReflectionInfo(): ClientDuplexStream<object, ReflectionAnswer> }).ServerReflectionInfo();
    return await new Promise<ReflectionAnswer>((resolve, reject) => {
      stream.on('data', (response: ReflectionAnswer) => {
        resolve(response);
        stream.end();
      });
      stream.on('error', reject);
      stream.write(request);
    });
  } finally {
    client.close();
  }
}

/** The FileDescriptorProtos of an answer as a FileDescriptorSet (field 1, length-delimited, repeated). */
function descriptorSet(files: Buffer[]): Buffer {
  const parts: Buffer[] = [];
  for (const file of files) {
    const length: number[] = [];
    for (let n = file.length; ; n >>>= 7) {
      if (n < 0x80) { length.push(n); break; }
      length.push((n & 0x7f) | 0x80);
    }
    parts.push(Buffer.from([0x0a, ...length]), file);
  }
  return Buffer.concat(parts);
}

test('lists grpc.health.v1.Health beside the Engine service through reflection v1', async () => {
  const answer = await reflect(engine.address, { list_services: '' });
  const names = (answer.list_services_response?.service ?? []).map((entry) => entry.name);
  assert.ok(names.includes('grpc.health.v1.Health'), names.join(', '));
  assert.ok(names.includes(ENGINE_SERVICE_NAME), names.join(', '));
});

test('resolves grpc.health.v1.Health by symbol to a file from which a health check is made, as grpcurl does', async () => {
  const answer = await reflect(engine.address, { file_containing_symbol: 'grpc.health.v1.Health' });
  assert.is(answer.error_response, undefined, answer.error_response?.error_message);
  const files = answer.file_descriptor_response?.file_descriptor_proto ?? [];
  assert.ok(files.length > 0, 'a file descriptor');
  const described = loadFileDescriptorSetFromBuffer(descriptorSet(files), { keepCase: true, enums: String, defaults: true, oneofs: true });
  const health = described['grpc.health.v1.Health'] as Record<string, MethodDefinition<object, object>> | undefined;
  assert.ok(health, Object.keys(described).join(', '));
  assert.ok(health!.Check && health!.Watch, 'Check and Watch');
  // A client built from the reflected description alone checks the Engine's health.
  const Health = makeGenericClientConstructor(health!, 'Health') as unknown as new (...args: ConstructorParameters<ServiceClientConstructor>) => HealthClient;
  const client = new Health(engine.address, credentials.createInsecure());
  const state = await new Promise<string>((resolve, reject) => {
    client.Check({ service: ENGINE_SERVICE_NAME }, new Metadata(), (error, response) => (error ? reject(error) : resolve(response!.status)));
  }).finally(() => client.close());
  assert.is(state, 'SERVING');
  // The message types resolve too (grpcurl describes the request before sending it).
  const request = await reflect(engine.address, { file_containing_symbol: 'grpc.health.v1.HealthCheckRequest' });
  assert.ok((request.file_descriptor_response?.file_descriptor_proto ?? []).length > 0, 'HealthCheckRequest resolves');
});

test('with ENGINE_TOKEN set, answers UNAUTHENTICATED without the right bearer token and serves with it', async () => {
  const token = 'engine-token-for-tests';
  const guarded = await startTestEngine(store, { token });
  try {
    const source = await putSource(store, USER, csvBytes(['timestamp,sport', '2024-05-04T05:00:00Z,running']));
    const request = { user_id: USER, source_id: source.id };
    const missing = expectStatus(await callDecodeSource(guarded.client, request), status.UNAUTHENTICATED);
    assert.is(missing.details, 'engine: missing or wrong engine token');
    expectStatus(await callDecodeSource(guarded.client, request, { token: 'engine-token-for-test' }), status.UNAUTHENTICATED);
    const ok = await callDecodeSource(guarded.client, request, { token });
    assert.ok(ok.ok);
    assert.is(await healthCheck(guarded.address, ''), 'SERVING', 'health checks need no token');
  } finally {
    await guarded.close();
  }
});

test.run();
