/** Helpers shared by the engine tests: CSV bytes, decode failures, a real engine on port 0, gRPC calls. */
import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { pino } from 'pino';
import type { Logger } from '../../domain/logger.js';
import { loadEngineConfig, type EngineConfig } from '../../engine/config.js';
import { DecodeError } from '../../engine/ingest/decode-error.js';
import { createEngineClient, type DecodeSourceRequest, type DecodeSourceResponse, type EngineClient } from '../../engine/contract.js';
import { startEngine } from '../../engine/server.js';
import type { SourceRecord, Store } from '../../storage/store.js';
import { storeOptionsFor } from '../../storage/config.js';
import { newId } from '../../storage/ids.js';
import { openStore } from '../../storage/open-store.js';

export function csvBytes(lines: string[]): Uint8Array {
  return new TextEncoder().encode(`${lines.join('\n')}\n`);
}

/** The DecodeError a decode rejects with (fails the test when it resolves or rejects otherwise). */
export async function decodeFailure(decoding: Promise<unknown>): Promise<DecodeError> {
  try {
    await decoding;
  } catch (error) {
    if (error instanceof DecodeError) return error;
    throw error;
  }
  throw new Error('expected the decode to fail');
}

/** A CSV of `rows` one-second samples with power and heart rate, for load and deadline tests. */
export function largeCsv(rows: number): Uint8Array {
  const t0 = Date.UTC(2024, 4, 1, 5, 0, 0);
  const lines = ['timestamp,sport,power,heart_rate,cadence,speed,distance'];
  for (let i = 0; i < rows; i++) {
    lines.push(`${new Date(t0 + i * 1000).toISOString()},cycling.road,${200 + (i % 50)},${120 + (i % 30)},${85 + (i % 10)},${(8 + (i % 7) / 10).toFixed(1)},${i * 8}`);
  }
  return csvBytes(lines);
}

/** A logger that keeps every line it writes, parsed, for assertions. */
export function captureLogger(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, sink), lines };
}

export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

export function sourceRecord(overrides: Partial<SourceRecord> & Pick<SourceRecord, 'user_id'>): SourceRecord {
  const id = overrides.id ?? newId();
  const now = Date.now();
  return {
    id,
    type: 'csv',
    origin: 'manual_upload',
    filename: 'ride.csv',
    content_hash: '0'.repeat(64),
    size: 0,
    status: 'processing',
    activity_ids: [],
    error: null,
    warnings: [],
    bytes_key: `sources/${id}`,
    application_id: null,
    created_at: now,
    updated_at: now,
    ...overrides,
  };
}

/** Stores a source record and its bytes (distinct bytes per user: the store keeps one source per content); returns the record. */
export async function putSource(store: Store, userId: string, bytes: Uint8Array, overrides: Partial<SourceRecord> = {}): Promise<SourceRecord> {
  const contentHash = createHash('sha256').update(bytes).digest('hex'); // unique per user in the store
  const record = sourceRecord({ user_id: userId, size: bytes.byteLength, content_hash: contentHash, ...overrides });
  await store.blobs.put(record.bytes_key, bytes, { userId });
  await store.sources.insert(record);
  return record;
}

/** Engine settings as the environment of a test run gives them: port 0, two threads, in-memory store. */
export function testConfig(overrides: Partial<EngineConfig> = {}): EngineConfig {
  const config = loadEngineConfig({ ENGINE_ADDRESS: '127.0.0.1:0', ENGINE_THREADS: '2', LOG_LEVEL: 'silent', DATA_DIR: ':memory:' });
  return { ...config, ...overrides };
}

/** The real embedded store, in memory. */
export function openTestStore(): Promise<Store> {
  const { store } = testConfig();
  return openStore(storeOptionsFor(store));
}

export interface TestEngine {
  address: string;
  client: EngineClient;
  close(): Promise<void>;
}

/** The real engine on 127.0.0.1:0 over `store`, and a client of it. */
export async function startTestEngine(store: Store, options: { token?: string; logger?: Logger; config?: Partial<EngineConfig> } = {}): Promise<TestEngine> {
  const engine = await startEngine({
    config: testConfig({ engineToken: options.token ?? null, ...options.config }),
    store,
    logger: options.logger ?? silentLogger(),
    address: '127.0.0.1:0',
  });
  const client = createEngineClient(engine.address);
  return {
    address: engine.address,
    client,
    async close() {
      client.close();
      await engine.close();
    },
  };
}

export type CallOutcome<T> = { ok: true; value: T } | { ok: false; error: ServiceError };

export interface CallOptions {
  token?: string;
  /** Deadline from now, milliseconds (default 10 s). */
  deadlineMs?: number;
}

export function callDecodeSource(client: EngineClient, request: DecodeSourceRequest, options: CallOptions = {}): Promise<CallOutcome<DecodeSourceResponse>> {
  return callUnary<DecodeSourceResponse>(client, 'DecodeSource', request, options);
}

/** Any unary RPC of the Engine service by name, settling with its value or its error. */
export function callUnary<T>(client: EngineClient, method: string, request: object, options: CallOptions = {}): Promise<CallOutcome<T>> {
  const metadata = new Metadata();
  if (options.token !== undefined) metadata.set('authorization', `Bearer ${options.token}`);
  const rpc = (client as unknown as Record<string, (...args: unknown[]) => unknown>)[method]!;
  return new Promise((resolve) => {
    rpc.call(client, request, metadata, { deadline: Date.now() + (options.deadlineMs ?? 10_000) }, (error: ServiceError | null, value: T) => {
      if (error) resolve({ ok: false, error });
      else resolve({ ok: true, value });
    });
  });
}

export function statusName(code: number): string {
  return status[code] ?? String(code);
}
