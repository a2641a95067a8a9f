/**
 * Typed calls to the engine over gRPC. Every call carries a deadline and can be cancelled with an
 * AbortSignal (the gateway aborts when the HTTP client goes away). gRPC statuses become HTTP errors
 * in one table, `httpErrorFor`.
 *
 * Server-streamed tables (GetActivitySeries, GetLongitudinalSeries) arrive as a byte `Readable` once the
 * first chunk is in: a failure before it rejects with the mapped HTTP error (nothing has been sent, so
 * the route can still answer it); a failure after it destroys the stream with that error. The stream
 * reads the call only as fast as it is consumed (backpressure), and destroying it cancels the call.
 */
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { Readable } from 'node:stream';
import { protoPath as healthProtoPath } from 'grpc-health-check';
import {
  createEngineClient, type DecodeSourceRequest, type DecodeSourceResponse, type EngineClient as EngineStub, type GetAccumulatedWorkDurationRequest,
  type GetActivitySeriesRequest, type GetLongitudinalAccumulatedWorkDurationRequest, type GetLongitudinalMeanMaxRequest, type GetLongitudinalSeriesRequest,
  type GetTemplateWeekRequest, type GetTemplateWeekResponse, type GetZonesRequest, type GetZonesResponse, type GetTrainingLoadRequest, type GetActivityNumbersRequest, type GetActivityNumbersResponse, type TemplateDay, type ZoneBand, type ZonesProblemCode,
  TEMPLATE_WEEKDAYS,
  type GetMeanMaxRequest, type GetIntensityDurationModelRequest, type GetIntensityDurationModelResponse, type GetMetabolicMapRequest,
  type GetMetabolicMapResponse, type GetMetricsResponse, type BeginProviderConnectionRequest, type CompleteProviderConnectionRequest, type CompleteProviderConnectionResponse,
  type ReceiveProviderPushRequest, type LactateThreshold, type LactateThresholdsRequest, type LactateThresholdsResponse, type TableChunk, type TableMessage,
} from '../engine/contract.js';
import { authorizationMetadata } from '../engine/authenticate.js';
import { REQUEST_ID_KEY, errorCodeOf } from '../engine/error-codes.js';
import { HttpError, NotFoundError, UnavailableError } from './errors.js';
import { engineChannel } from './engine-channel.js';
import { engineInstances, labelSamples, type EngineScrape } from './engine-metrics.js';

export interface CallOptions {
  deadlineMs?: number;
  signal?: AbortSignal;
  /** The HTTP request's id, sent as `x-request-id` so the engine logs the call under it. */
  requestId?: string;
}

export interface EngineClientOptions {
  token: string | null;
  deadlineMs: number;
  /** Told how every call ended (the gateway's engine-call latency metric): method, gRPC status name, seconds. */
  observe?: (method: string, code: string, seconds: number) => void;
}

const HEALTH_STATUSES = ['UNKNOWN', 'SERVING', 'NOT_SERVING', 'SERVICE_UNKNOWN'];

type StreamMethod = (request: unknown, metadata: grpc.Metadata, options: grpc.CallOptions) => grpc.ClientReadableStream<TableChunk>;

type UnaryMethod = (request: unknown, metadata: grpc.Metadata, options: grpc.CallOptions, callback: (error: grpc.ServiceError | null, response: unknown) => void) => grpc.ClientUnaryCall;

export class EngineClient {
  private readonly engine: EngineStub;
  private readonly health: grpc.Client;
  private readonly metadata: grpc.Metadata;
  /** One client per engine, for what must reach each engine alone (metricsOfEach). */
  private readonly members = new Map<string, EngineClient>();

  /** `address`: ENGINE_ADDRESS, one engine or several (calls balanced round-robin, engine-channel.ts). */
  constructor(readonly address: string, private readonly options: EngineClientOptions) {
    const channel = engineChannel(address);
    this.engine = createEngineClient(channel.target, channel.options);
    const Health = healthClientConstructor();
    this.health = new Health(channel.target, grpc.credentials.createInsecure(), channel.options);
    this.metadata = authorizationMetadata(options.token);
  }

  decodeSource(request: DecodeSourceRequest, options: CallOptions = {}): Promise<DecodeSourceResponse> {
    return this.unary(this.engine, 'DecodeSource', request, options) as Promise<DecodeSourceResponse>;
  }

  /** One activity's series as a table file (Parquet unless `format` says otherwise). */
  activitySeries(request: GetActivitySeriesRequest, options: CallOptions = {}): Promise<Readable> {
    return this.serverStream('GetActivitySeries', request, options);
  }

  /** Every matching activity's series, concatenated into one table file, streamed as the engine encodes it. */
  longitudinalSeries(request: GetLongitudinalSeriesRequest, options: CallOptions = {}): Promise<Readable> {
    return this.serverStream('GetLongitudinalSeries', request, options);
  }

  /** One activity's mean-max curve as a table file. */
  meanMax(request: GetMeanMaxRequest, options: CallOptions = {}): Promise<TableMessage> {
    return this.unary(this.engine, 'GetMeanMax', request, options) as Promise<TableMessage>;
  }

  /** One activity's accumulated work duration as a table file. */
  accumulatedWorkDuration(request: GetAccumulatedWorkDurationRequest, options: CallOptions = {}): Promise<TableMessage> {
    return this.unary(this.engine, 'GetAccumulatedWorkDuration', request, options) as Promise<TableMessage>;
  }

  /** The best mean-max curve across matching activities (after fatigue states when given). */
  longitudinalMeanMax(request: GetLongitudinalMeanMaxRequest, options: CallOptions = {}): Promise<TableMessage> {
    return this.unary(this.engine, 'GetLongitudinalMeanMax', request, options) as Promise<TableMessage>;
  }

  /** The longitudinal AWD levels as a table file. */
  longitudinalAccumulatedWorkDuration(request: GetLongitudinalAccumulatedWorkDurationRequest, options: CallOptions = {}): Promise<TableMessage> {
    return this.unary(this.engine, 'GetLongitudinalAccumulatedWorkDuration', request, options) as Promise<TableMessage>;
  }

  /** Daily load, fitness, fatigue and form as a table file (ANALYTICS.md §10). */
  trainingLoad(request: GetTrainingLoadRequest, options: CallOptions = {}): Promise<TableMessage> {
    return this.unary(this.engine, 'GetTrainingLoad', request, options) as Promise<TableMessage>;
  }

  /** One activity's load numbers with every optional field null when unset. */
  async activityNumbers(request: GetActivityNumbersRequest, options: CallOptions = {}): Promise<ActivityNumbers> {
    const reply = (await this.unary(this.engine, 'GetActivityNumbers', request, options)) as WireActivityNumbers;
    const optional = (value: number | undefined): number | null => value ?? null;
    return {
      ...reply,
      work_kj: optional(reply.work_kj),
      weighted_intensity: optional(reply.weighted_intensity),
      intensity_factor: optional(reply.intensity_factor),
      load: optional(reply.load),
      trimp: optional(reply.trimp),
      threshold: reply.threshold ?? null,
      resting_hr: optional(reply.resting_hr),
      heart_rate_max: optional(reply.heart_rate_max),
      zones: reply.zones.map((zones) => ({
        ...zones,
        zones: zones.zones.map((zone) => ({ ...zone, upper: (zone.upper as number | undefined) ?? null })),
        problem: zones.problem ? { ...zones.problem, code: zones.problem.code as ZonesProblemCode } : null,
      })),
    };
  }

  /**
   * LT1 and LT2 derived from a lactate test's points, unrounded, every key present (null when not derived
   * or not measured). The engine answers INVALID_ARGUMENT (here a 400) for points outside the contract's
   * limits (MAX_LACTATE_POINTS, MAX_LACTATE_INTENSITY, lactate > 0).
   */
  async lactateThresholds(request: LactateThresholdsRequest, options: CallOptions = {}): Promise<LactateThresholdsResponse> {
    const reply = (await this.unary(this.engine, 'LactateThresholds', request, options)) as WireThresholds;
    return { lt1: thresholdOf(reply.lt1), lt2: thresholdOf(reply.lt2) };
  }

  /** The template week as of `request.date` with exactly the contract's keys, and the algorithm version. */
  async templateWeek(request: GetTemplateWeekRequest, options: CallOptions = {}): Promise<GetTemplateWeekResponse> {
    const reply = (await this.unary(this.engine, 'GetTemplateWeek', request, options)) as Record<string, unknown>;
    const week = { algorithm: reply.algorithm as string } as GetTemplateWeekResponse;
    for (const day of TEMPLATE_WEEKDAYS) week[day] = templateDayOf(reply[day] as TemplateDay | null | undefined);
    return week;
  }

  /**
   * The zones on `request.date`, or the problem that prevents them (`problem` non-null, `zones` empty), and
   * the algorithm version. Every zone has exactly `{name, label, lower, upper}`, `upper` null when open.
   */
  async zones(request: GetZonesRequest, options: CallOptions = {}): Promise<GetZonesResponse> {
    const reply = (await this.unary(this.engine, 'GetZones', request, options)) as WireZones;
    return {
      zones: reply.zones.map((zone): ZoneBand => ({ name: zone.name, label: zone.label, lower: zone.lower, upper: zone.upper ?? null })),
      problem: reply.problem ? { code: reply.problem.code as ZonesProblemCode, detail: reply.problem.detail, markers: reply.problem.markers } : null,
      algorithm: reply.algorithm,
    };
  }

  /** The fitted intensity-duration curve (empty with too little data) and the algorithm that fitted it. */
  intensityDurationModel(request: GetIntensityDurationModelRequest, options: CallOptions = {}): Promise<GetIntensityDurationModelResponse> {
    return this.unary(this.engine, 'GetIntensityDurationModel', request, options) as Promise<GetIntensityDurationModelResponse>;
  }

  /** A metabolic map, or its problem (`problem` set: missing_body_mass, insufficient_data); markers without a value have `value` null. */
  async metabolicMap(request: GetMetabolicMapRequest, options: CallOptions = {}): Promise<GetMetabolicMapResponse> {
    const reply = (await this.unary(this.engine, 'GetMetabolicMap', request, options)) as GetMetabolicMapResponse;
    return { ...reply, markers: reply.markers.map((marker) => ({ name: marker.name, value: marker.value ?? null, provenance: marker.provenance })) };
  }

  /** The provider URL to send the browser to, the state stored and bound to `binding`. */
  async beginProviderConnection(request: BeginProviderConnectionRequest, options: CallOptions = {}): Promise<string> {
    return ((await this.unary(this.engine, 'BeginProviderConnection', request, options)) as { url: string }).url;
  }

  /** Completes a provider authorization from its callback (code exchange in the engine). */
  completeProviderConnection(request: CompleteProviderConnectionRequest, options: CallOptions = {}): Promise<CompleteProviderConnectionResponse> {
    return this.unary(this.engine, 'CompleteProviderConnection', request, options) as Promise<CompleteProviderConnectionResponse>;
  }

  async disconnectProvider(request: { user_id: string; provider: string }, options: CallOptions = {}): Promise<boolean> {
    return ((await this.unary(this.engine, 'DisconnectProvider', request, options)) as { disconnected: boolean }).disconnected;
  }

  /** Verifies and durably stores a provider push; the number of items it carried. */
  async receiveProviderPush(request: ReceiveProviderPushRequest, options: CallOptions = {}): Promise<number> {
    return ((await this.unary(this.engine, 'ReceiveProviderPush', request, options)) as { items: number }).items;
  }

  /** The engine's health status for the Engine service ('SERVING' when ready). */
  async healthStatus(options: CallOptions = {}): Promise<string> {
    const response = (await this.unary(this.health, 'Check', { service: 'threshold.engine.v1.Engine' }, options)) as { status: number };
    return HEALTH_STATUSES[response.status] ?? 'UNKNOWN';
  }

  /**
   * Connects to the engine now rather than at the first call (gRPC channels connect lazily), so the first
   * request after a start does not pay for the connection. Resolves true once the channel is ready,
   * false if it is not within `deadlineMs` (the engine may start later: calls connect as they always did).
   */
  connect(deadlineMs = this.options.deadlineMs): Promise<boolean> {
    return new Promise((resolve) => this.engine.waitForReady(Date.now() + deadlineMs, (error) => resolve(error === undefined || error === null)));
  }

  close(): void {
    this.engine.close();
    this.health.close();
    for (const member of this.members.values()) member.close();
    this.members.clear();
  }

  /** The engine's metrics, Prometheus text (from whichever engine the balancer picks). */
  async metrics(options: CallOptions = {}): Promise<string> {
    return ((await this.unary(this.engine, 'GetMetrics', {}, options)) as GetMetricsResponse).text;
  }

  /**
   * Every engine's metrics, each asked on a channel of its own (engine-metrics.ts), labelled `engine` when
   * ENGINE_ADDRESS names several; an engine that does not answer within the deadline is `up: false`.
   */
  async metricsOfEach(options: CallOptions = {}): Promise<EngineScrape[]> {
    const instances = await engineInstances(this.address);
    if (instances === null) return [await this.metrics(options).then((text) => ({ engine: null, up: true, text }), () => ({ engine: null, up: false, text: '' }))];
    for (const [address, member] of this.members) {
      if (instances.includes(address)) continue;
      member.close();
      this.members.delete(address);
    }
    return Promise.all(instances.map(async (engine) => {
      let member = this.members.get(engine);
      if (member === undefined) this.members.set(engine, (member = new EngineClient(engine, this.options)));
      return member.metrics(options).then((text) => ({ engine, up: true, text: labelSamples(text, engine) }), () => ({ engine, up: false, text: '' }));
    }));
  }

  private metadataFor(options: CallOptions): grpc.Metadata {
    if (options.requestId === undefined) return this.metadata;
    const metadata = this.metadata.clone();
    metadata.set(REQUEST_ID_KEY, options.requestId);
    return metadata;
  }

  /** Starts timing a call; the returned function reports its end once. */
  private timer(method: string): (code: grpc.status) => void {
    const observe = this.options.observe;
    if (observe === undefined) return () => {};
    const started = process.hrtime.bigint();
    let done = false;
    return (code) => {
      if (done) return;
      done = true;
      observe(method, grpc.status[code] ?? String(code), Number(process.hrtime.bigint() - started) / 1e9);
    };
  }

  /** A server-streamed table as bytes; resolves at the first chunk (or an empty end), rejects on an earlier failure. */
  private serverStream(method: string, request: unknown, options: CallOptions): Promise<Readable> {
    if (options.signal?.aborted) return Promise.reject(httpErrorFor(cancelledByCaller()));
    const deadline = new Date(Date.now() + (options.deadlineMs ?? this.options.deadlineMs));
    const call = (this.engine as unknown as Record<string, StreamMethod>)[method]!.call(this.engine, request, this.metadataFor(options), { deadline });
    const ended = this.timer(method);
    call.on('status', (status: grpc.StatusObject) => ended(status.code));
    const cancel = (): void => call.cancel();
    options.signal?.addEventListener('abort', cancel, { once: true });
    return new Promise((resolve, reject) => {
      let started = false;
      const body = new Readable({
        read() {
          call.resume();
        },
        destroy(error, callback) {
          options.signal?.removeEventListener('abort', cancel);
          call.cancel(); // the HTTP response is gone: stop the engine's work (a no-op once the call ended)
          callback(error);
        },
      });
      const start = (): void => {
        if (started) return;
        started = true;
        resolve(body);
      };
      call.on('data', (chunk: TableChunk) => {
        start();
        if (!body.destroyed && !body.push(chunk.data)) call.pause();
      });
      call.on('end', () => {
        options.signal?.removeEventListener('abort', cancel);
        start();
        body.push(null);
      });
      call.on('error', (error: grpc.ServiceError) => {
        const failure = httpErrorFor(error);
        if (started) {
          body.destroy(failure);
          return;
        }
        started = true;
        body.destroy();
        reject(failure);
      });
    });
  }

  private unary(client: grpc.Client, method: string, request: unknown, options: CallOptions): Promise<unknown> {
    const deadline = new Date(Date.now() + (options.deadlineMs ?? this.options.deadlineMs));
    return new Promise((resolve, reject) => {
      if (options.signal?.aborted) return reject(httpErrorFor(cancelledByCaller()));
      const ended = this.timer(method);
      const call = (client as unknown as Record<string, UnaryMethod>)[method]!.call(client, request, this.metadataFor(options), { deadline }, (error, response) => {
        options.signal?.removeEventListener('abort', cancel);
        ended(error ? error.code : grpc.status.OK);
        if (error) reject(httpErrorFor(error));
        else resolve(response);
      });
      const cancel = () => call.cancel();
      options.signal?.addEventListener('abort', cancel, { once: true });
    });
  }
}

/** LactateThresholds as proto-loader decodes it: unset messages null, unset optional fields absent. */
interface WireThresholds {
  lt1: WireThreshold | null;
  lt2: WireThreshold | null;
}
type WireThreshold = { intensity: number; lactate: number; heart_rate?: number; vo2?: number };

/** The threshold with exactly the contract's keys (no proto-loader oneof markers), absent values null. */
function thresholdOf(wire: WireThreshold | null | undefined): LactateThreshold | null {
  if (wire === null || wire === undefined) return null;
  return { intensity: wire.intensity, lactate: wire.lactate, heart_rate: wire.heart_rate ?? null, vo2: wire.vo2 ?? null };
}

/** A weekday as proto-loader decodes it (never unset from our engine; an empty day if it were). */
function templateDayOf(wire: TemplateDay | null | undefined): TemplateDay {
  return {
    sports: wire?.sports ?? [],
    avg_training_duration: wire?.avg_training_duration || 'PT0S',
    typical_training_duration: wire?.typical_training_duration || 'PT0S',
  };
}

/** GetActivityNumbers as the gateway hands it on: every unset optional number null. */
export type ActivityNumbers = Omit<GetActivityNumbersResponse, 'work_kj' | 'weighted_intensity' | 'intensity_factor' | 'load' | 'trimp' | 'resting_hr' | 'heart_rate_max'>
  & Record<'work_kj' | 'weighted_intensity' | 'intensity_factor' | 'load' | 'trimp' | 'resting_hr' | 'heart_rate_max', number | null>;

/** GetActivityNumbers as proto-loader decodes it: unset optionals absent, unset messages null. */
type WireActivityNumbers = Omit<GetActivityNumbersResponse, 'threshold'> & { threshold: GetActivityNumbersResponse['threshold'] | undefined };

/** GetZones as proto-loader decodes it: unset `upper` absent, unset `problem` null. */
interface WireZones {
  zones: { name: string; label: string; lower: number; upper?: number }[];
  problem: { code: string; detail: string; markers: string[] } | null;
  algorithm: string;
}

function cancelledByCaller(): grpc.ServiceError {
  return { code: grpc.status.CANCELLED, details: 'cancelled by caller' } as grpc.ServiceError;
}

/** The one gRPC status → HTTP table. Engine messages are shown only where they describe the input. */
export function httpErrorFor(error: grpc.ServiceError): HttpError {
  const details = error.details || error.message;
  switch (error.code) {
    case grpc.status.INVALID_ARGUMENT:
      return new HttpError(400, details, { code: 'invalid_argument', cause: error });
    case grpc.status.NOT_FOUND:
      return new NotFoundError(details);
    case grpc.status.PERMISSION_DENIED:
      return new HttpError(403, details, { code: errorCodeOf(error) ?? 'permission_denied', cause: error });
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
