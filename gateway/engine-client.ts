/**
 * Typed calls to the engine over gRPC. Every call carries a deadline and can be cancelled with an
 * AbortSignal (the gateway aborts when the HTTP client goes away). gRPC statuses become HTTP errors
 * in one table, `httpErrorFor`.
 */
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { protoPath as healthProtoPath } from 'grpc-health-check';
import { createEngineClient, type DecodeSourceRequest, type DecodeSourceResponse, type EngineClient as EngineStub } from '../engine/proto.js';
import { authorizationMetadata } from '../engine/authenticate.js';
import { errorCodeOf } from '../engine/errors.js';
import { HttpError, NotFoundError, UnavailableError } from './errors.js';

export interface CallOptions {
  deadlineMs?: number;
  signal?: AbortSignal;
}

const HEALTH_STATUSES = ['UNKNOWN', 'SERVING', 'NOT_SERVING', 'SERVICE_UNKNOWN'];

type UnaryMethod = (request: unknown, metadata: grpc.Metadata, options: grpc.CallOptions, callback: (error: grpc.ServiceError | null, response: unknown) => void) => grpc.ClientUnaryCall;

export class EngineClient {
  private readonly engine: EngineStub;
  private readonly health: grpc.Client;
  private readonly metadata: grpc.Metadata;

  constructor(readonly address: string, private readonly options: { token: string | null; deadlineMs: number }) {
    this.engine = createEngineClient(address);
    const Health = healthClientConstructor();
    this.health = new Health(address, grpc.credentials.createInsecure());
    this.metadata = authorizationMetadata(options.token);
  }

  decodeSource(request: DecodeSourceRequest, options: CallOptions = {}): Promise<DecodeSourceResponse> {
    return this.unary(this.engine, 'DecodeSource', request, options) as Promise<DecodeSourceResponse>;
  }

  /** The engine's health status for the Engine service ('SERVING' when ready). */
  async healthStatus(options: CallOptions = {}): Promise<string> {
    const response = (await this.unary(this.health, 'Check', { service: 'threshold.engine.v1.Engine' }, options)) as { status: number };
    return HEALTH_STATUSES[response.status] ?? 'UNKNOWN';
  }

  close(): void {
    this.engine.close();
    this.health.close();
  }

  private unary(client: grpc.Client, method: string, request: unknown, options: CallOptions): Promise<unknown> {
    const deadline = new Date(Date.now() + (options.deadlineMs ?? this.options.deadlineMs));
    return new Promise((resolve, reject) => {
      if (options.signal?.aborted) return reject(httpErrorFor({ code: grpc.status.CANCELLED, details: 'cancelled by caller' } as grpc.ServiceError));
      const call = (client as unknown as Record<string, UnaryMethod>)[method]!.call(client, request, this.metadata, { deadline }, (error, response) => {
        options.signal?.removeEventListener('abort', cancel);
        if (error) reject(httpErrorFor(error));
        else resolve(response);
      });
      const cancel = () => call.cancel();
      options.signal?.addEventListener('abort', cancel, { once: true });
    });
  }
}

/** The one gRPC status → HTTP table. Engine messages are shown only where they describe the input. */
export function httpErrorFor(error: grpc.ServiceError): HttpError {
  const details = error.details || error.message;
  switch (error.code) {
    case grpc.status.INVALID_ARGUMENT:
      return new HttpError(400, details, { code: 'invalid_argument', cause: error });
    case grpc.status.NOT_FOUND:
      return new NotFoundError(details);
    case grpc.status.FAILED_PRECONDITION:
      return new HttpError(409, details, { code: errorCodeOf(error) ?? 'failed_precondition', cause: error });
    case grpc.status.RESOURCE_EXHAUSTED:
      return new HttpError(429, 'The compute engine is busy; retry shortly', { code: 'engine_busy', headers: { 'Retry-After': '1' }, cause: error });
    case grpc.status.DEADLINE_EXCEEDED:
      return new HttpError(504, 'The computation did not finish in time', { code: 'engine_timeout', expose: true, cause: error });
    case grpc.status.UNAVAILABLE:
    case grpc.status.CANCELLED:
      return new UnavailableError('The compute engine is unavailable', { cause: error });
    default:
      return new HttpError(500, 'engine call failed', { code: 'engine_error', cause: error });
  }
}

/** The standard health service client, from grpc-health-check's own proto. */
function healthClientConstructor(): grpc.ServiceClientConstructor {
  const definition = protoLoader.loadSync(healthProtoPath, { keepCase: true, enums: Number, defaults: true });
  const loaded = grpc.loadPackageDefinition(definition) as unknown as { grpc: { health: { v1: { Health: grpc.ServiceClientConstructor } } } };
  return loaded.grpc.health.v1.Health;
}
