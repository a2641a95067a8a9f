/**
 * The engine's Prometheus metrics, in a registry of its own (prom-client): RPC latency by method and
 * status, the worker pool's threads, queue and utilisation, the job backlog by kind and state, failed
 * job attempts, and the webhook backlog. Gauges that describe the store (backlogs) are read when
 * scraped, so every engine sharing a store reports the same backlog. The text reaches Prometheus
 * through the gateway's `/metrics`, which asks for it over gRPC (GetMetrics), each engine on its own and
 * labelled `engine="host:port"` when ENGINE_ADDRESS names several (gateway/engine-metrics.ts).
 *
 * Under `threshold serve` with several gateway processes, the engine runs in the primary process and
 * adds the gateways' metrics, aggregated across processes (prom-client's AggregatorRegistry over the
 * cluster's IPC channel), so one scrape sees every process.
 *
 * When no gateway runs in the engine's process (`start:engine`, compose's engine service, the primary
 * of `threshold serve` on several cores), the engine also reports that process's own metrics — prom-client's
 * default `process_*` and `nodejs_*` — with the label `process="engine"`. A label rather than a
 * `threshold_engine_` prefix: they are the same quantities as the gateway's, so one query, one dashboard
 * panel and one alert cover both (`sum by (process) (process_resident_memory_bytes)`), and standard
 * Node.js dashboards keep working. The scrape target is the gateway, so its own process metrics stay
 * unlabelled, as for any target; the engine's, reached through it, are the labelled ones. The two texts
 * are joined family by family (domain/prometheus-text.ts), so each family is declared once. In one
 * process (`npm start`) the gateway's collectors already describe the whole process and the engine adds
 * none, so nothing is counted twice.
 *
 * Job failures start at 0 for every kind, so the series exist before the first failure and `increase()`
 * sees it. test/gateway/metrics.test.ts (one process) and test/gateway/metrics-processes.test.ts
 * (separate processes, `threshold serve` on several cores, an engine that is down) keep it honest.
 */
import cluster from 'node:cluster';
import { AggregatorRegistry, Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { mergeExpositions } from '../domain/prometheus-text.js';
import type { Store } from '../storage/store.js';
import type { EnginePool } from './pool/pool.js';

/** Seconds: engine calls range from a cached lookup (~1 ms) to a year of series (tens of seconds). */
const RPC_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const JOB_STATES = ['queued', 'running', 'failed'] as const;

export interface EngineMetrics {
  readonly registry: Registry;
  observeRpc(method: string, code: string, seconds: number): void;
  jobFailed(kind: string, giveUp: boolean): void;
  /** The exposition text: this engine's metrics, plus every gateway process's under `threshold serve`. */
  text(): Promise<string>;
}

export interface EngineMetricsOptions {
  store: Store;
  pool: EnginePool;
  jobKinds: readonly string[];
  /** True when no gateway runs in this process: report its CPU, memory and event loop, labelled process="engine". */
  processMetrics: boolean;
}

export function createEngineMetrics(options: EngineMetricsOptions): EngineMetrics {
  const { store, pool, jobKinds } = options;
  const registry = new Registry();
  if (options.processMetrics) collectDefaultMetrics({ register: registry, labels: { process: 'engine' } });
  const rpc = new Histogram({
    name: 'threshold_engine_rpc_duration_seconds', help: 'Engine RPC latency, by method and gRPC status.',
    labelNames: ['method', 'code'], buckets: RPC_BUCKETS, registers: [registry],
  });
  const failures = new Counter({
    name: 'threshold_job_failures_total', help: 'Failed job attempts, by kind; final = no retry follows.',
    labelNames: ['kind', 'final'], registers: [registry],
  });
  for (const kind of jobKinds) for (const final of ['false', 'true']) failures.inc({ kind, final }, 0);
  new Gauge({
    name: 'threshold_engine_pool_threads', help: 'Worker threads in the compute pool.', registers: [registry],
    collect() { this.set(pool.stats().threads); },
  });
  new Gauge({
    name: 'threshold_engine_pool_queue', help: 'Tasks waiting for a worker thread.', registers: [registry],
    collect() { this.set(pool.stats().queued); },
  });
  new Gauge({
    name: 'threshold_engine_pool_admitted', help: 'Tasks admitted to the pool and not finished (running and waiting).', registers: [registry],
    collect() { this.set(pool.stats().admitted); },
  });
  new Gauge({
    name: 'threshold_engine_pool_utilization', help: 'Share of worker thread time spent running tasks since the pool started (0-1).', registers: [registry],
    collect() { this.set(pool.stats().utilization); },
  });
  new Counter({
    name: 'threshold_engine_pool_tasks_completed_total', help: 'Tasks the pool has finished.', registers: [registry],
    collect() { this.reset(); this.inc(pool.stats().completed); },
  });
  new Gauge({
    name: 'threshold_jobs', help: 'Jobs in the shared queue, by kind and state (the backlog is queued + running).',
    labelNames: ['kind', 'state'], registers: [registry],
    async collect() {
      const counts = await Promise.all(jobKinds.flatMap((kind) => JOB_STATES.map(async (state) => [kind, state, await store.jobs.count({ kind, status: state })] as const)));
      for (const [kind, state, count] of counts) this.set({ kind, state }, count);
    },
  });
  new Gauge({
    name: 'threshold_webhook_backlog', help: 'Webhook deliveries (event x endpoint) not yet delivered or expired, and events not yet published to them.',
    labelNames: ['stage'], registers: [registry],
    async collect() {
      const [deliveries, events] = await Promise.all([store.event_deliveries.count({ status: 'pending' }), store.events.count({ status: 'pending' })]);
      this.set({ stage: 'delivery' }, deliveries);
      this.set({ stage: 'publication' }, events);
    },
  });
  const aggregator = cluster.isPrimary ? new AggregatorRegistry() : null;

  return {
    registry,
    observeRpc: (method, code, seconds) => rpc.observe({ method, code }, seconds),
    jobFailed: (kind, giveUp) => failures.inc({ kind, final: String(giveUp) }),
    async text() {
      const own = await registry.metrics();
      const workers = Object.keys(cluster.workers ?? {}).length;
      if (aggregator === null || workers === 0) return own;
      return mergeExpositions([own, await aggregator.clusterMetrics()]);
    },
  };
}
