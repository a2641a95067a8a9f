/**
 * The engine's gRPC server: the Engine service (proto/threshold/engine/v1/engine.proto) over a worker
 * pool, plus gRPC health checking and server reflection so `grpcurl` works against it: reflection lists
 * and describes both the Engine service and grpc.health.v1.Health (`grpcurl … list`, and a health check by
 * symbol, `grpcurl … grpc.health.v1.Health/Check`).
 *
 * Every RPC handler goes through `wrapUnary` or `wrapServerStream` (errors.ts): one settlement per
 * call, a deadline on every call (the caller's, or DEFAULT_DEADLINE_MS), the pool task aborted when it
 * passes or the caller cancels. With ENGINE_TOKEN set, calls must carry `authorization: Bearer <token>` (authenticate.ts).
 * test/engine/server.test.ts starts it on port 0 and talks gRPC to it.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { Server, ServerCredentials, type ServerInterceptor, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { ReflectionService } from '@grpc/reflection';
import { HealthImplementation } from 'grpc-health-check';
import { loadSync, type PackageDefinition } from '@grpc/proto-loader';
import type { Logger } from '../domain/logger.js';
import type { Store } from '../storage/store.js';
import { BACKGROUND_GROUP_COMMIT } from '../storage/sqlite/write-groups.js';
import { authenticate } from './authenticate.js';
import type { EngineConfig } from './config.js';
import { wrapServerStream, wrapUnary } from './errors.js';
import { createPool } from './pool/pool.js';
import { ENGINE_SERVICE_NAME, LOADER_OPTIONS, loadEngineContract } from './contract.js';
import { decodeSource } from './service/decode-source.js';
import { getActivitySeries } from './service/activity-series.js';
import { getLongitudinalSeries } from './service/longitudinal-series.js';
import { ingestSource } from './service/ingest-source.js';
import { startJobRunner } from './jobs/runner.js';
import { deleteUserJobHandler } from './jobs/delete-user-job.js';
import { DELETE_USER_JOB } from '../storage/user-deletion.js';
import { ingestJobHandler } from './jobs/ingest-job.js';
import { INGEST_JOB } from '../storage/jobs.js';
import { WORKOUT_DELIVERY_JOB, WORKOUT_REMOVAL_JOB } from '../storage/workout-jobs.js';
import { workoutDeliveryJobHandler, workoutRemovalJobHandler } from './jobs/workout-jobs.js';
import { PROVIDER_API_BASE_URLS, workoutDeliveryOptions, type WorkoutDeliveryOptions } from './workouts/delivery-options.js';
import { startDispatcher, type Dispatcher } from './events/dispatcher.js';
import {
  getAccumulatedWorkDuration, getLongitudinalAccumulatedWorkDuration, getLongitudinalMeanMax, getMeanMax,
} from './service/analyses.js';
import { ANALYSIS_MEMO_BYTES, AnalysisMemo, answerMemo } from './service/analysis-cache.js';
import { ANALYSIS_BATCH_JOB, ANALYSIS_PLAN_JOB, analysisBatchHandler, analysisPlanHandler, enqueueAnalysisPlan } from './jobs/analysis-backfill.js';
import { storeBudget, type BudgetWindow } from './integrations/provider-budget.js';
import type { Provider } from '../domain/providers.js';
import { lactateThresholds } from './service/lactate-thresholds.js';
import { getTemplateWeek } from './service/template-week.js';
import { getZones } from './service/zones.js';
import { getActivityNumbers, getTrainingLoad } from './service/training-load.js';
import { getIntensityDurationModel, getMetabolicMap, modeledMarkersFrom, modeledSeasonFrom, type ModelState } from './service/physiological-models.js';
import { ModelCache } from './service/model-cache.js';
import { createEngineMetrics } from './metrics.js';
import { providerConnectionHandlers } from './service/provider-connections.js';
import { createAdapters } from './integrations/adapters.js';
import { resolveIntegrationKey } from './integrations/integration-key.js';
import { BACKFILL_JOB, tokensFor, type ConnectionDeps } from './integrations/connections.js';
import { backfillJobHandler } from './integrations/backfill-job.js';
import { PUSH_JOB, pushJobHandler } from './integrations/push-job.js';
import { POLL_JOB, pollJobHandler, schedulePolls } from './integrations/poll.js';

/** Deadline applied to calls that carry none, milliseconds. */
export const DEFAULT_DEADLINE_MS = 30_000;
/** How long close() lets calls in flight finish before cutting them off, milliseconds. */
const SHUTDOWN_GRACE_MS = 5_000;

export interface StartEngineOptions {
  config: EngineConfig;
  store: Store;
  logger: Logger;
  /** Overrides config.engineAddress, e.g. '127.0.0.1:0' in tests. */
  address?: string;
  /** Scheduled-workout delivery: provider API base URLs and the access-token port (delivery-options.ts). */
  workouts?: Partial<WorkoutDeliveryOptions>;
  /**
   * True when no gateway runs in this process (`start:engine`, the primary of `threshold serve` on several
   * cores): the engine's metrics then include the process's own, labelled process="engine" (metrics.ts).
   * Default false: beside a gateway, the gateway's collectors already cover the process.
   */
  processMetrics?: boolean;
  /**
   * The analysis version this engine brings caches to (default ANALYSIS_VERSION): a test plays a version
   * bump with it. Activities it ingests still carry ANALYSIS_VERSION (and are brought to this one).
   */
  analysisVersion?: number;
  /** Per provider, the app's request budget windows shared through the store, over config.providerBudgets (*_REQUEST_BUDGET). */
  providerBudgets?: Partial<Record<Provider, BudgetWindow[]>>;
}

export interface RunningEngine {
  /** The bound host:port (the real port when asked for port 0). */
  address: string;
  /** Wakes idle job runners (after an enqueue in the same process). */
  wakeJobs(): void;
  /** Wakes the webhook dispatcher (after an event was written in the same process). */
  wakeEvents(): void;
  /** Reports NOT_SERVING, drains calls (then cuts them off), stops the pool. Idempotent. */
  close(): Promise<void>;
}

export async function startEngine(options: StartEngineOptions): Promise<RunningEngine> {
  const { config, store, logger } = options;
  const contract = loadEngineContract();
  const pool = createPool({ threads: config.engineThreads });
  // Every thread started, its modules loaded and its hot paths compiled before the engine says it runs,
  // so the first call after a restart does not pay for them (pool/warm-up.ts); it overlaps the rest of the start.
  const warming = pool.warmUp().catch((error: unknown) => logger.warn({ err: error }, 'engine: pool warm-up failed'));

  const interceptors: ServerInterceptor[] = config.engineToken === null ? [] : [authenticate(config.engineToken)];
  const server = new Server({ interceptors });

  // Provider integrations: adapters for the configured providers; their jobs wake the runner created below.
  let wakeJobs = (): void => {};
  // Every provider call spends from its app's budget in the store first, shared by all engines.
  const apps = Object.fromEntries(Object.entries(config.integrations.providers).map(([provider, settings]) => [provider, settings!.clientId]));
  const spend = storeBudget(store, apps, { ...config.providerBudgets, ...options.providerBudgets });
  const adapters = createAdapters(config.integrations, { pageSize: config.integrationPageSize, spend });
  const integrations: ConnectionDeps = {
    store, adapters, key: Object.keys(adapters).length > 0 ? resolveIntegrationKey(config) : null, wake: () => wakeJobs(),
  };
  // Background writers (jobs and their handlers) write together: on the embedded store their writes share
  // synced commits (group commit, each acknowledged once committed); calls write directly. Not the webhook
  // dispatcher: each of its rounds is one batch already, and waiting for a group only delays its chains
  // (bench/webhooks: the delay from a change to its first attempt went from 14 ms to 1.3 s at p50).
  const background = store.withGroupCommit?.(BACKGROUND_GROUP_COMMIT) ?? store;
  const backgroundIntegrations = { ...integrations, store: background };
  let events: Dispatcher | null = null;
  const analysisDeps = { store, pool, logger: logger.child({ component: 'analysis-backfill' }), ...(options.analysisVersion !== undefined && { version: options.analysisVersion }) };
  const wakeEvents = () => events?.wake();
  const jobHandlers = {
    [INGEST_JOB]: ingestJobHandler({ store: background, pool, wakeEvents }),
    [BACKFILL_JOB]: backfillJobHandler({ ...backgroundIntegrations, logger: logger.child({ component: 'backfill' }) }),
    [PUSH_JOB]: pushJobHandler(backgroundIntegrations),
    [POLL_JOB]: pollJobHandler({ ...backgroundIntegrations, intervalMs: config.integrationPollMs }),
    [ANALYSIS_PLAN_JOB]: analysisPlanHandler(analysisDeps),
    [ANALYSIS_BATCH_JOB]: analysisBatchHandler(analysisDeps),
    [DELETE_USER_JOB]: deleteUserJobHandler({ store, logger: logger.child({ component: 'user-deletion' }) }),
    ...workoutJobHandlers({ store, logger: logger.child({ component: 'workouts' }), options: workoutDeliveryOptions({ spend, ...integrationWorkoutOptions(config, integrations), ...options.workouts }) }),
  };
  const metrics = createEngineMetrics({ store, pool, jobKinds: Object.keys(jobHandlers), processMetrics: options.processMetrics ?? false });
  const unary = { logger, defaultDeadlineMs: DEFAULT_DEADLINE_MS, observe: metrics.observeRpc };
  const memo = new AnalysisMemo(ANALYSIS_MEMO_BYTES);
  const answers = answerMemo();
  const models = { store, pool, memo, cache: new ModelCache<Promise<ModelState>>() };
  const connections = providerConnectionHandlers(integrations);
  const implementation: UntypedServiceImplementation = {
    DecodeSource: wrapUnary('DecodeSource', decodeSource({ store, pool }), unary),
    IngestSource: wrapUnary('IngestSource', ingestSource({ store, pool, wakeEvents }), unary),
    GetActivitySeries: wrapServerStream('GetActivitySeries', getActivitySeries({ store, pool }), unary),
    GetLongitudinalSeries: wrapServerStream('GetLongitudinalSeries', getLongitudinalSeries({ store, pool, logger }), unary),
    GetMeanMax: wrapUnary('GetMeanMax', getMeanMax({ store, pool, memo, answers }), unary),
    GetAccumulatedWorkDuration: wrapUnary('GetAccumulatedWorkDuration', getAccumulatedWorkDuration({ store, pool, memo, answers }), unary),
    GetLongitudinalMeanMax: wrapUnary('GetLongitudinalMeanMax', getLongitudinalMeanMax({ store, pool, memo }), unary),
    GetLongitudinalAccumulatedWorkDuration: wrapUnary('GetLongitudinalAccumulatedWorkDuration', getLongitudinalAccumulatedWorkDuration({ store, pool, memo }), unary),
    LactateThresholds: wrapUnary('LactateThresholds', lactateThresholds(), unary),
    GetTemplateWeek: wrapUnary('GetTemplateWeek', getTemplateWeek({ store }), unary),
    GetZones: wrapUnary('GetZones', getZones({ store, modeledMarkers: modeledMarkersFrom(models) }), unary),
    GetTrainingLoad: wrapUnary('GetTrainingLoad', getTrainingLoad({ store, pool, memo, modeledMarkers: modeledMarkersFrom(models), modeledSeason: modeledSeasonFrom(models) }), unary),
    GetActivityNumbers: wrapUnary('GetActivityNumbers', getActivityNumbers({ store, pool, memo, modeledMarkers: modeledMarkersFrom(models) }), unary),
    GetIntensityDurationModel: wrapUnary('GetIntensityDurationModel', getIntensityDurationModel(models), unary),
    GetMetabolicMap: wrapUnary('GetMetabolicMap', getMetabolicMap(models), unary),
    GetMetrics: wrapUnary('GetMetrics', async () => ({ text: await metrics.text() }), unary),
    BeginProviderConnection: wrapUnary('BeginProviderConnection', connections.begin, unary),
    CompleteProviderConnection: wrapUnary('CompleteProviderConnection', connections.complete, unary),
    DisconnectProvider: wrapUnary('DisconnectProvider', connections.disconnect, unary),
    ReceiveProviderPush: wrapUnary('ReceiveProviderPush', connections.push, unary),
  };
  server.addService(contract.EngineService, implementation);

  const health = new HealthImplementation({ '': 'SERVING', [ENGINE_SERVICE_NAME]: 'SERVING' });
  health.addToServer(server);
  // Reflection describes the package definitions it is given, so the health service's joins the Engine's.
  // @grpc/reflection bundles its own @grpc/proto-loader typings; the definition is the same object shape.
  const reflected = { ...contract.packageDefinition, ...healthPackageDefinition() };
  new ReflectionService(reflected as ConstructorParameters<typeof ReflectionService>[0]).addToServer(server);

  const requested = options.address ?? config.engineAddress;
  let port: number;
  try {
    port = await bind(server, requested);
  } catch (error) {
    server.forceShutdown();
    await pool.destroy();
    throw error;
  }
  const address = `${requested.slice(0, requested.lastIndexOf(':'))}:${port}`;

  await warming;
  // Background work runs beside the RPCs, sharing the pool: jobs (ingest) from a queue any number of
  // engines share, and one pass bringing analysis caches to the current version.
  const jobs = config.jobs
    ? startJobRunner({
        store: background,
        logger: logger.child({ component: 'jobs' }),
        handlers: jobHandlers,
        concurrency: config.jobConcurrency,
        leaseMs: config.jobLeaseMs,
        pollMs: config.jobPollMs,
        onFailure: metrics.jobFailed,
      })
    : null;
  // Webhook delivery runs where jobs run: every engine works the shared outbox (engine/events/).
  events = config.jobs
    ? startDispatcher({
        store,
        logger: logger.child({ component: 'webhooks' }),
        ...config.webhooks,
        retentionMs: config.webhooks.retentionDays * 24 * 60 * 60 * 1000,
      })
    : null;
  if (jobs) wakeJobs = () => jobs.wake();
  // Work that must happen once per cluster is keyed jobs in the shared queue, never a timer per engine:
  // the analysis backfill after a version change (one plan per version) and one poll schedule per connection.
  const scheduling = config.jobs
    ? Promise.all([
        enqueueAnalysisPlan(store, analysisDeps.version)
          .then((enqueued) => enqueued && jobs?.wake())
          .catch((error: unknown) => logger.error({ err: error }, 'analysis backfill: enqueueing the plan failed')),
        schedulePolls({ ...integrations, logger, intervalMs: config.integrationPollMs })
          .catch((error: unknown) => logger.warn({ err: error }, 'integrations: scheduling polls failed')),
      ])
    : null;

  let closing: Promise<void> | null = null;
  return {
    address,
    wakeJobs: () => jobs?.wake(),
    wakeEvents,
    close() {
      closing ??= (async () => {
        health.setStatus('', 'NOT_SERVING');
        health.setStatus(ENGINE_SERVICE_NAME, 'NOT_SERVING');
        await scheduling;
        await jobs?.close();
        await events?.close();
        await shutdown(server, SHUTDOWN_GRACE_MS);
        await pool.destroy();
        logger.info({ address }, 'engine: stopped');
      })();
      return closing;
    },
  };
}

function bind(server: Server, address: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.bindAsync(address, ServerCredentials.createInsecure(), (error, port) => {
      if (error) reject(new Error(`engine: cannot listen on ${address}: ${error.message}`, { cause: error }));
      else resolve(port);
    });
  });
}

/** tryShutdown, and forceShutdown when calls are still running after `graceMs`. */
function shutdown(server: Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, graceMs);
    server.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * Workout delivery through the configured integrations: each provider's API host as configured, and the
 * connection's access token as the integrations keep it (unsealed, refreshed when due). Without a
 * configured provider the delivery options' defaults apply (deliveries fail with not_configured).
 */
function integrationWorkoutOptions(config: EngineConfig, integrations: ConnectionDeps): Partial<WorkoutDeliveryOptions> {
  if (integrations.key === null) return {};
  const apiBaseUrls = Object.fromEntries(Object.entries(config.integrations.providers).map(([provider, settings]) => [provider, settings!.apiBaseUrl]));
  return {
    apiBaseUrls: { ...PROVIDER_API_BASE_URLS, ...apiBaseUrls },
    accessTokenFor: async (connection) => (await tokensFor(integrations, connection)).access_token,
  };
}

function workoutJobHandlers(deps: Parameters<typeof workoutDeliveryJobHandler>[0]) {
  return { [WORKOUT_DELIVERY_JOB]: workoutDeliveryJobHandler(deps), [WORKOUT_REMOVAL_JOB]: workoutRemovalJobHandler(deps) };
}

/** grpc.health.v1 from the proto file grpc-health-check itself serves, for reflection. */
function healthPackageDefinition(): PackageDefinition {
  const root = path.join(path.dirname(createRequire(import.meta.url).resolve('grpc-health-check/package.json')), 'proto');
  return loadSync('health/v1/health.proto', { ...LOADER_OPTIONS, includeDirs: [root] });
}
