/**
 * The gateway's Prometheus metrics, in a registry of its own (prom-client): HTTP latency by method,
 * route template and status class, engine calls by method and gRPC status as the gateway sees them, and
 * the process's own (CPU, memory, event-loop lag, with prom-client's default collectors; unlabelled, as
 * the scrape target's own: an engine running apart reports its process's with `process="engine"`).
 *
 * Route labels are the router's path templates (`/api/v1/activities/{activity_id}` style, as matched),
 * never raw paths: ids and query strings would make the label set unbounded and could leak data.
 * Under `threshold serve` with several gateway processes, each process's registry is handed to the
 * primary on request (AggregatorRegistry over the cluster's IPC channel) and the engine there adds
 * them up (engine/metrics.ts). test/gateway/metrics.test.ts keeps it honest.
 */
import cluster from 'node:cluster';
import type { Context, Next } from 'koa';
import { AggregatorRegistry, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Seconds: from a cached JSON answer (~1 ms) to a streamed year of series. */
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export interface GatewayMetrics {
  readonly registry: Registry;
  /** Koa middleware observing every request's latency. */
  observeRequests(): (ctx: Context, next: Next) => Promise<void>;
  /** For the engine client: how each engine call ended. */
  observeEngineCall(method: string, code: string, seconds: number): void;
  /** True when this process's metrics reach Prometheus through the primary's aggregation instead. */
  readonly aggregatedElsewhere: boolean;
}

export function createGatewayMetrics(): GatewayMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const http = new Histogram({
    name: 'threshold_http_request_duration_seconds', help: 'HTTP request latency, by method, route template and status.',
    labelNames: ['method', 'route', 'status'], buckets: HTTP_BUCKETS, registers: [registry],
  });
  const engine = new Histogram({
    name: 'threshold_gateway_engine_call_duration_seconds', help: 'Engine calls made by the gateway, by method and gRPC status, including the network.',
    labelNames: ['method', 'code'], buckets: HTTP_BUCKETS, registers: [registry],
  });
  if (cluster.isWorker) {
    // Answer the primary's requests for this process's metrics (the listener is installed by the constructor).
    new AggregatorRegistry();
    AggregatorRegistry.setRegistries([registry]);
  }
  return {
    registry,
    aggregatedElsewhere: cluster.isWorker,
    observeRequests() {
      return async function observeRequestsMiddleware(ctx: Context, next: Next): Promise<void> {
        const started = process.hrtime.bigint();
        try {
          await next();
        } finally {
          const route = (ctx as Context & { _matchedRoute?: string | RegExp })._matchedRoute;
          http.observe(
            { method: ctx.method, route: typeof route === 'string' ? route : 'unmatched', status: String(ctx.status) },
            Number(process.hrtime.bigint() - started) / 1e9,
          );
        }
      };
    },
    observeEngineCall: (method, code, seconds) => engine.observe({ method, code }, seconds),
  };
}
