/**
 * The engine contract, loaded once from proto/threshold/engine/v1/engine.proto. The server serves it;
 * the gateway's client, batch jobs and tests build their clients from the same definition, so both
 * sides always agree on the loader options below.
 *
 * Message types here describe objects as proto-loader hands them over with these options
 * (keepCase, longs as strings, enums as strings, defaults filled in).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  credentials, loadPackageDefinition, type CallOptions, type ChannelOptions, type Client, type ClientUnaryCall,
  type GrpcObject, type Metadata, type ServiceClientConstructor, type ServiceDefinition, type requestCallback,
} from '@grpc/grpc-js';
import { loadSync, type Options, type PackageDefinition } from '@grpc/proto-loader';

export const ENGINE_PROTO_FILE = 'threshold/engine/v1/engine.proto';
export const ENGINE_SERVICE_NAME = 'threshold.engine.v1.Engine';

export const LOADER_OPTIONS: Options = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true };

/**
 * Channel options for engine clients: series of long activities exceed grpc-js's 4 MiB default
 * receive limit, so clients accept up to 1 GiB.
 */
export const ENGINE_CLIENT_OPTIONS: ChannelOptions = { 'grpc.max_receive_message_length': 1024 * 1024 * 1024 };

export type TableFormat = 'TABLE_FORMAT_UNSPECIFIED' | 'ARROW_IPC' | 'PARQUET';

/** int64 fields: strings when read (longs: String); numbers or strings when written. */
export type Int64 = string | number;

export interface DecodeSourceRequest {
  user_id: string;
  source_id: string;
  format?: TableFormat;
}

export interface IngestSourceRequest {
  user_id: string;
  source_id: string;
}

export interface IngestSourceResponse {
  status: 'processed' | 'failed';
  activity_ids: string[];
  error: { code: string; message: string } | null;
  warnings: string[];
}

export interface DecodedActivity {
  /** Canonical Open Sport Taxonomy string. */
  sport: string;
  /** First and last sample, UTC epoch milliseconds. */
  start: Int64;
  end: Int64;
  /** UTC offset of the first sample, minutes east of UTC. */
  offset: number;
  samples: Int64;
  metrics: string[];
  /** Arrow IPC stream bytes. */
  series: Uint8Array;
}

export interface DecodeSourceResponse {
  activities: DecodedActivity[];
  warnings: string[];
}

/** A client of the Engine service as `loadPackageDefinition` builds it. */
export interface EngineClient extends Client {
  DecodeSource(
    request: DecodeSourceRequest,
    metadata: Metadata,
    options: CallOptions,
    callback: requestCallback<DecodeSourceResponse>,
  ): ClientUnaryCall;
}

export interface EngineContract {
  packageDefinition: PackageDefinition;
  grpcObject: GrpcObject;
  /** Service definition for `server.addService`. */
  EngineService: ServiceDefinition;
  /** Client constructor: `new EngineClientConstructor(address, credentials, ENGINE_CLIENT_OPTIONS)`. */
  EngineClientConstructor: new (...args: ConstructorParameters<ServiceClientConstructor>) => EngineClient;
}

let contract: EngineContract | null = null;

export function loadEngineContract(): EngineContract {
  if (contract !== null) return contract;
  const packageDefinition = loadSync(ENGINE_PROTO_FILE, { ...LOADER_OPTIONS, includeDirs: [protoRoot()] });
  const grpcObject = loadPackageDefinition(packageDefinition);
  const Constructor = lookup(grpcObject, ENGINE_SERVICE_NAME) as ServiceClientConstructor;
  contract = {
    packageDefinition,
    grpcObject,
    EngineService: Constructor.service,
    EngineClientConstructor: Constructor as unknown as EngineContract['EngineClientConstructor'],
  };
  return contract;
}

/** An insecure-channel client (the engine listens on loopback or a private network; see ENGINE_TOKEN). */
export function createEngineClient(address: string, options: ChannelOptions = {}): EngineClient {
  const { EngineClientConstructor } = loadEngineContract();
  return new EngineClientConstructor(address, credentials.createInsecure(), { ...ENGINE_CLIENT_OPTIONS, ...options });
}

/** proto/ at the repository root, from dist/engine/ (compiled) or engine/ (sources). */
function protoRoot(): string {
  for (const relative of ['../../proto/', '../proto/']) {
    const root = fileURLToPath(new URL(relative, import.meta.url));
    if (existsSync(`${root}${ENGINE_PROTO_FILE}`)) return root;
  }
  throw new Error(`engine: cannot find proto/${ENGINE_PROTO_FILE} from ${import.meta.url}`);
}

function lookup(root: GrpcObject, dotted: string): unknown {
  let node: unknown = root;
  for (const part of dotted.split('.')) node = (node as GrpcObject)[part];
  if (node === undefined) throw new Error(`engine: ${dotted} is not in the contract`);
  return node;
}
