/**
 * The engine's wire contract in one module: the proto definition (proto/threshold/engine/v1/engine.proto,
 * loaded once with the loader options both sides share), every request and response message as
 * proto-loader hands it over (keepCase, longs as strings, enums as strings, defaults filled in), and every
 * limit a request must respect. The engine serves and enforces it; the gateway, batch jobs and tests
 * import it instead of copying it, so a limit changes in one place. The gateway validates against the
 * same limits only to answer in the interface's 422 shape before a call.
 *
 * Nothing here reads storage or runs a kernel; test/architecture.test.ts keeps the gateway's engine
 * imports to this module, the token helper (authenticate.ts) and the error codes (error-codes.ts).
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
/**
 * The gateway's channel to the engine. Reconnect attempts back off to at most 5 s (grpc-js's default cap is
 * 120 s): after an engine restart that followed a long outage, the gateway serves again within seconds.
 */
export const ENGINE_CLIENT_OPTIONS: ChannelOptions = {
  'grpc.max_receive_message_length': 1024 * 1024 * 1024,
  'grpc.max_reconnect_backoff_ms': 5000,
};

export type TableFormat = 'TABLE_FORMAT_UNSPECIFIED' | 'ARROW_IPC' | 'PARQUET';

/** int64 fields: strings when read (longs: String); numbers or strings when written. */
export type Int64 = string | number;

// ---------------------------------------------------------------------------------------------------
// Limits

/** Longest duration a mean-max request may name: a week, in seconds. */
export const MAX_DURATION_S = 7 * 86_400;
/** Most durations one mean-max request may name. */
export const MAX_DURATIONS = 2000;
/** "At most 5 states per request." (interface §4, longitudinal mean-max `after`) */
export const MAX_AFTER_STATES = 5;

/** Most points one LactateThresholds request may carry (domain/lactate-points.ts, shared with the gateway's assembly). */
export { MAX_LACTATE_POINTS } from '../domain/lactate-points.js';
/** Highest intensity a LactateThresholds point may have: W for power, m/s for speed (bounds the 0.1 W / 0.01 m/s grid). */
export const MAX_LACTATE_INTENSITY = { power: 10_000, speed: 100 } as const;

/**
 * "When used, the date range is capped at 1 year": the earliest start date (YYYY-MM-DD) a request with
 * after states may have for a range ending on `endDate`.
 */
export { yearBefore as earliestAfterStart } from '../domain/time.js';

/**
 * The interface's Metric values (gaps.md "Shapes"), the columns a series table may hold: `duration`,
 * `lap`, `lactate`, `rpe` and `notes` are not per-sample series; the others are.
 */
export const METRICS = [
  'duration', 'lap', 'power', 'speed', 'heart_rate', 'respiration_rate', 'smo2', 'core_temperature', 'elevation',
  'altitude', 'cadence', 'temperature', 'distance', 'longitude', 'latitude', 'lactate', 'rpe', 'notes',
] as const;

export type Metric = (typeof METRICS)[number];

/** engine.proto: series `metrics` "empty = duration, power, speed, heart_rate". */
export const DEFAULT_METRICS: readonly Metric[] = ['duration', 'power', 'speed', 'heart_rate'];

// ---------------------------------------------------------------------------------------------------
// Messages

/** The `Table` message: a whole table file (Arrow IPC or Parquet) and its row count. */
export interface TableMessage {
  data: Uint8Array;
  rows: number;
}

/** A piece of a server-streamed table file; a stream's pieces concatenated are the file. */
export interface TableChunk {
  data: Uint8Array;
}

export interface GetActivitySeriesRequest {
  user_id: string;
  activity_id: string;
  metrics?: string[];
  format?: TableFormat;
  /** "power" | "speed" | "" (every sample). */
  segmentation_on?: string;
}

export interface GetLongitudinalSeriesRequest {
  user_id: string;
  sports?: string[];
  /** Inclusive local dates YYYY-MM-DD; empty = unbounded on that side. */
  start_date?: string;
  end_date?: string;
  metrics?: string[];
  format?: TableFormat;
  /** "power" | "speed" | "" (every sample). */
  segmentation_on?: string;
}

export interface GetMeanMaxRequest {
  user_id: string;
  activity_id: string;
  metric?: string;
  durations?: number[];
  all_durations?: boolean;
  format?: TableFormat;
}

export interface GetAccumulatedWorkDurationRequest {
  user_id: string;
  activity_id: string;
  metric?: string;
  format?: TableFormat;
}

export interface GetLongitudinalMeanMaxRequest {
  user_id: string;
  sports?: string[];
  start_date?: string;
  end_date?: string;
  metric?: string;
  durations?: number[];
  all_durations?: boolean;
  after?: number[];
  format?: TableFormat;
}

export interface GetLongitudinalAccumulatedWorkDurationRequest {
  user_id: string;
  sports?: string[];
  start_date?: string;
  end_date?: string;
  metric?: string;
  format?: TableFormat;
}

export interface GetTrainingLoadRequest {
  user_id: string;
  sports?: string[];
  start_date?: string;
  end_date?: string;
  format?: TableFormat;
}

export interface GetActivityNumbersRequest {
  user_id: string;
  activity_id: string;
  zone_system?: string;
}

export interface LoadThreshold {
  marker: string;
  quantity: string;
  value: number;
  provenance: string;
}

export interface ZoneTime extends ZoneBand {
  duration_s: number;
}

export interface QuantityZones {
  quantity: string;
  zone_system: string;
  zones: ZoneTime[];
  problem: ZonesProblem | null;
}

export type LoadProblemCode = 'no_intensity' | 'no_threshold' | 'no_heart_rate_max' | 'no_resting_hr';

export interface GetActivityNumbersResponse {
  activity_id: string;
  sport: string;
  local_date: string;
  recorded_time_s: number;
  moving_time_s: number;
  work_kj?: number;
  intensity_quantity: '' | 'power' | 'speed' | 'heart_rate';
  weighted_intensity?: number;
  intensity_factor?: number;
  load?: number;
  trimp?: number;
  threshold: LoadThreshold | null;
  resting_hr?: number;
  heart_rate_max?: number;
  load_problem: '' | LoadProblemCode;
  load_problem_detail: string;
  zones: QuantityZones[];
  algorithm: string;
}

/** Days one training-load answer may span (a hundred years, as the longitudinal endpoints' window_days). */
export const MAX_LOAD_DAYS = 36_600;

/**
 * The training-load numbers' algorithm version (ANALYTICS.md §10), the `Threshold-Algorithm` header of the ext
 * endpoints. 2: heart-rate loads and zones from each second's exact mean heart rate (1: floored to whole bpm).
 */
export const TRAINING_LOAD_ALGORITHM = 'training-load/2';

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
  /** The first sample, and the end of the last one's 1 s hold (as the activity's end), UTC epoch milliseconds. */
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

/** How a lactate test's intensity is measured: power (W) or speed (m/s). */
export type LactateSportKind = 'power' | 'speed';

/** One lactate sample of a test; intensity null or 0 = the resting point. */
export interface LactatePoint {
  intensity: number | null;
  /** mmol/L, > 0. */
  lactate: number;
  /** bpm. */
  heart_rate: number | null;
  /** mL/min. */
  vo2: number | null;
}

export interface LactateThresholdsRequest {
  sport_kind: LactateSportKind;
  points: readonly LactatePoint[];
}

/** A derived threshold, unrounded: intensity W or m/s, lactate mmol/L, heart_rate bpm, vo2 mL/min. */
export interface LactateThreshold {
  intensity: number;
  lactate: number;
  heart_rate: number | null;
  vo2: number | null;
}

export interface LactateThresholdsResponse {
  lt1: LactateThreshold | null;
  lt2: LactateThreshold | null;
}

export interface GetTemplateWeekRequest {
  user_id: string;
  /** The profile as of this local date, YYYY-MM-DD. */
  date: string;
}

/** One weekday of the template week: sports by frequency, durations ISO 8601. */
export interface TemplateDay {
  sports: string[];
  avg_training_duration: string;
  typical_training_duration: string;
}

export const TEMPLATE_WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;

/** Keys monday … sunday (interface §2 "Template week") plus the algorithm version. */
export type GetTemplateWeekResponse = Record<(typeof TEMPLATE_WEEKDAYS)[number], TemplateDay> & { algorithm: string };

export const ZONE_SYSTEM_NAMES = ['three_zone', 'five_zone', 'seven_zone', 'olt_i_scale'] as const;
export const ZONE_QUANTITY_NAMES = ['power', 'speed', 'heart_rate'] as const;

export interface GetZonesRequest {
  user_id: string;
  /** A root sport. */
  sport: string;
  quantity: (typeof ZONE_QUANTITY_NAMES)[number];
  zone_system: (typeof ZONE_SYSTEM_NAMES)[number];
  /** The markers valid on this local date, YYYY-MM-DD. */
  date: string;
}

/** `lower` inclusive, `upper` exclusive (null: open top zone); W, m/s or bpm as published. */
export interface ZoneBand {
  name: string;
  label: string;
  lower: number;
  upper: number | null;
}

export type ZonesProblemCode = 'unsupported_quantity' | 'missing_marker' | 'inconsistent_markers';

export interface ZonesProblem {
  code: ZonesProblemCode;
  detail: string;
  /** missing_marker: the markers without a value; otherwise empty. */
  markers: string[];
}

export interface GetZonesResponse {
  /** Empty when `problem` is set. */
  zones: ZoneBand[];
  problem: ZonesProblem | null;
  algorithm: string;
}

/**
 * The physiological models' algorithm version: the `Threshold-Algorithm` header, part of every result cache key.
 * 2: the fit of maximal efforts with a prior for the decline beyond 30 min (kernels/ompd.ts); modeled markers in
 * physiological order; the 15-minute rule counts recorded time; body mass as dailies give it.
 */
export const MODEL_ALGORITHM = 'ompd/2';

/**
 * Segmented rows' algorithm version, the `Threshold-Algorithm` header of /data and /longitudinal-data with
 * `segmentation_on` (ANALYTICS.md §4). 1: a fixed error bound of 200 J or 2 m; 2: the bound per activity;
 * 3: on an activity split into sections, the bound from its longest section (segments/2 could miss 2 % beyond
 * 10 min there; unchanged on one-section activities).
 */
export const SEGMENTATION_ALGORITHM = 'segments/3';

/**
 * The activity analyses' algorithm version (canonical 1 s series, mean-max, AWD): the `Threshold-Algorithm`
 * header of the mean-max and AWD endpoints. Always `analysis/<ANALYSIS_VERSION>` (engine/analysis/
 * activity-analysis.ts, the version that keys the analysis caches; test/gateway/speed-spikes.test.ts checks).
 */
export const ANALYSIS_ALGORITHM = 'analysis/5';

/** The quantities of the intensity-duration curve and of the metabolic maps (gaps.md "Extra maps"). */
export const CURVE_QUANTITIES = ['power', 'speed'] as const;
export const MAP_QUANTITIES = ['power', 'speed', 'heart_rate', 'vo2'] as const;
export type MapQuantityName = (typeof MAP_QUANTITIES)[number];

/** The problems a metabolic map may answer instead of a map. */
export type MapProblem = 'missing_body_mass' | 'insufficient_data';

export interface GetIntensityDurationModelRequest {
  user_id: string;
  quantity: string;
  sport: string;
  date: string;
  durations?: number[];
  all_durations?: boolean;
}

export interface IntensityPoint {
  duration: number;
  intensity: number;
}

export interface GetIntensityDurationModelResponse {
  curve: IntensityPoint[];
  algorithm: string;
  from_cache: boolean;
}

export interface GetMetabolicMapRequest {
  user_id: string;
  quantity: string;
  sport: string;
  date: string;
}

export interface MetabolicMarker {
  name: string;
  /** Absent (proto3 optional) = null. */
  value?: number | null;
  provenance: string;
}

export interface GetMetabolicMapResponse {
  body_mass: number;
  markers: MetabolicMarker[];
  problem: '' | MapProblem;
  problem_detail: string;
  algorithm: string;
  from_cache: boolean;
  /** The heart-rate map only: the resting_hr daily it used, whole bpm; absent (proto3 optional) = none, or another map. */
  resting_hr?: number | null;
}

export type GetMetricsRequest = Record<string, never>;

export interface GetMetricsResponse {
  /** Prometheus text exposition format 0.0.4. */
  text: string;
}

// ---------------------------------------------------------------------------------------------------
// Provider integrations

export interface BeginProviderConnectionRequest {
  user_id: string;
  provider: string;
  redirect_uri: string;
  binding: string;
  return_to: string;
  /** A sign-in through the provider: `user_id` is empty. */
  sign_in: boolean;
}

export interface CompleteProviderConnectionRequest {
  provider: string;
  state: string;
  binding: string;
  code: string;
  error: string;
  redirect_uri: string;
}

export interface CompleteProviderConnectionResponse {
  user_id: string;
  return_to: string;
  connected: boolean;
  /** '' for a connection; signed_in | created | email_taken | ambiguous | refused for a sign-in (engine.proto). */
  sign_in: string;
}

export interface ReceiveProviderPushRequest {
  provider: string;
  headers: Record<string, string>;
  body: Uint8Array;
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

// ---------------------------------------------------------------------------------------------------
// Loading the definition

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
