/**
 * Operational endpoints: liveness (`/healthz`: the process answers), readiness (`/readyz`: the store
 * and the engine answer within a second), metrics (`/metrics`: Prometheus text, the gateway's and the
 * engine's; behind METRICS_TOKEN when set) and the OpenAPI document.
 *
 * `/metrics` joins the texts family by family (domain/prometheus-text.ts: the engine's own process
 * metrics share names with the gateway's, told apart by `process="engine"`); with several engines, each
 * is asked on its own and its samples carry `engine="host:port"` (engine-metrics.ts). An engine that does
 * not answer within METRICS_DEADLINE_MS (refused at once when its process is gone; the deadline when it
 * hangs) costs only its part: the answer is still 200 with the gateway's metrics, the other engines' and
 * `threshold_engine_up 0` for it. test/gateway/metrics-processes.test.ts and engines-balanced.test.ts keep that honest.
 */
import { timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { mergeExpositions } from '../../domain/prometheus-text.js';
import { buildOpenApi } from '../openapi.js';
import { engineUpExposition } from '../engine-metrics.js';
import type { RouteTable } from '../route-table.js';
import type { GatewayDeps } from '../deps.js';

const READINESS_DEADLINE_MS = 1000;
/** Half Prometheus's default scrape_timeout (10 s), so a hung engine still leaves a scrape that succeeds. */
const METRICS_DEADLINE_MS = 5000;

const Health = z.object({ status: z.literal('ok') });
const Readiness = z.object({
  status: z.enum(['ready', 'unavailable']),
  checks: z.object({ store: z.string(), engine: z.string() }),
});

export function systemRoutes(table: RouteTable, deps: GatewayDeps): void {
  table.add(
    {
      method: 'get', path: '/healthz', operationId: 'healthz', summary: 'Liveness: the gateway process answers', tag: 'system', auth: 'none',
      responses: { 200: { description: 'Alive', schema: Health } },
    },
    async function healthz(ctx) {
      ctx.body = { status: 'ok' };
    },
  );

  table.add(
    {
      method: 'get', path: '/readyz', operationId: 'readyz', summary: 'Readiness: the store and the engine answer', tag: 'system', auth: 'none',
      responses: { 200: { description: 'Ready', schema: Readiness }, 503: { description: 'A dependency does not answer', schema: Readiness } },
    },
    async function readyz(ctx) {
      const [store, engine] = await Promise.all([
        withTimeout(deps.store.ping(), READINESS_DEADLINE_MS).then(() => 'ok', (error: Error) => `unavailable: ${error.message}`),
        deps.engine.healthStatus({ deadlineMs: READINESS_DEADLINE_MS }).then(
          (status) => (status === 'SERVING' ? 'ok' : `unavailable: ${status}`),
          () => 'unavailable: no answer',
        ),
      ]);
      const ready = store === 'ok' && engine === 'ok';
      ctx.status = ready ? 200 : 503;
      ctx.body = { status: ready ? 'ready' : 'unavailable', checks: { store, engine } };
    },
  );

  table.add(
    {
      method: 'get', path: '/metrics', operationId: 'metrics', summary: 'Prometheus metrics of the gateway and the engine', tag: 'system', auth: 'none',
      responses: {
        200: { description: 'Prometheus text exposition format 0.0.4', mediaType: 'text/plain; version=0.0.4' },
        401: { description: 'METRICS_TOKEN is set and the request does not carry it' },
      },
    },
    async function metrics(ctx) {
      const expected = deps.config.metricsToken;
      if (expected !== null && !sameSecret(ctx.get('authorization'), `Bearer ${expected}`)) {
        ctx.status = 401;
        ctx.set('WWW-Authenticate', 'Bearer realm="metrics"');
        ctx.body = { detail: 'metrics need the METRICS_TOKEN bearer token' };
        return;
      }
      const engines = await deps.engine.metricsOfEach({ deadlineMs: METRICS_DEADLINE_MS });
      // Read after the engine calls, so this scrape counts them: why an engine is down (DEADLINE_EXCEEDED, UNAVAILABLE) shows at once.
      const own = deps.metrics.aggregatedElsewhere ? '' : await deps.metrics.registry.metrics();
      ctx.type = 'text/plain; version=0.0.4; charset=utf-8';
      ctx.set('Cache-Control', 'no-store');
      ctx.body = mergeExpositions([own, ...engines.map((engine) => engine.text), engineUpExposition(engines)]);
    },
  );

  let document: unknown;
  table.add(
    {
      method: 'get', path: '/openapi.json', operationId: 'openapi', summary: 'This OpenAPI 3.1 document', tag: 'system', auth: 'none',
      responses: { 200: { description: 'OpenAPI 3.1 document', schema: z.object({ openapi: z.string() }).passthrough() } },
    },
    async function openapi(ctx) {
      document ??= buildOpenApi(table.routes, { baseUrl: deps.config.baseUrl });
      ctx.body = document;
    },
  );
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
