/**
 * Scraping `/metrics` in tests: reading one sample out of the Prometheus text, the families declared more
 * than once (an invalid exposition), and the burst of requests whose traces every deployment mode must
 * show — HTTP latency by route, engine RPC latency, the pool, job backlog and failures, webhook backlog
 * (issue 16, Operations). The same burst and checks run against one process (test/gateway/metrics.test.ts)
 * and separate processes (test/gateway/metrics-processes.test.ts), so the modes cannot drift apart.
 */
import * as assert from 'uvu/assert';
import type { TestStack } from './stack.js';
import { csvActivity, settled, upload, type SourceBody } from './uploads.js';

/** The value of the one sample with exactly these labels, or null when the text has none. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | null {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = (match[2] ?? '').split(',').filter(Boolean);
    if (wanted.every((label) => present.includes(label)) && present.length === wanted.length) return Number(match[3]);
  }
  return null;
}

/** Names of the families with more than one `# TYPE` line (the format allows one). */
export function declaredTwice(text: string): string[] {
  const names = text.split('\n').filter((line) => line.startsWith('# TYPE ')).map((line) => line.split(' ')[2]!);
  return [...new Set(names.filter((name, index) => names.indexOf(name) !== index))];
}

/** What a burst needs of a running service: its address and a GET. */
export type Service = Pick<TestStack, 'baseUrl' | 'get'>;

/**
 * An upload processed by the ingest job, then 25 activity lists, 3 mean-max curves, a 404 on a known
 * route and one on no route. Resolves with the uploaded activity's id, which must appear in no label.
 */
export async function requestBurst(service: Service, token: string): Promise<string> {
  const response = await upload(service, token, [{ name: 'ride.csv', bytes: csvActivity({ rows: 600 }) }]);
  assert.is(response.status, 202);
  const [source] = ((await response.json()) as { sources: SourceBody[] }).sources;
  const [activityId] = (await settled(service, token, source!.id)).activity_ids;
  for (let i = 0; i < 25; i++) assert.is((await service.get('/api/v1/activities/', token)).status, 200);
  for (let i = 0; i < 3; i++) assert.is((await service.get(`/api/v1/activities/${activityId}/mean-max?metric=power`, token)).status, 200);
  assert.is((await service.get('/api/v1/activities/0000000000000000', token)).status, 404);
  assert.is((await service.get('/no/such/path')).status, 404);
  return activityId!;
}

/** Scrapes `/metrics` and checks the answer is a valid exposition (200, the media type, each family declared once). */
export async function scrape(service: Service, token?: string): Promise<string> {
  const response = await service.get('/metrics', token);
  assert.is(response.status, 200);
  assert.match(response.headers.get('content-type')!, 'text/plain; version=0.0.4');
  const text = await response.text();
  assert.equal(declaredTwice(text), [], 'each metric family declared once');
  return text;
}

/** Every metric the issue lists, as `requestBurst` left them, with the engine's pool of `poolThreads`. */
export function assertBurstShown(text: string, activityId: string, options: { poolThreads: number }): void {
  const count = (route: string, status: string) => sample(text, 'threshold_http_request_duration_seconds_count', { method: 'GET', route, status });
  assert.is(count('/api/v1/activities/', '200'), 25, 'HTTP latency by route');
  assert.is(count('/api/v1/activities/:activity_id/mean-max', '200'), 3);
  assert.is(count('/api/v1/activities/:activity_id', '404'), 1);
  assert.is(count('unmatched', '404'), 1);
  assert.not.match(text, activityId, 'no raw id in any label');
  assert.not.match(text, '0000000000000000');

  assert.is(sample(text, 'threshold_engine_rpc_duration_seconds_count', { method: 'GetMeanMax', code: 'OK' }), 3, 'engine RPC latency, as the engine sees it');
  assert.is(sample(text, 'threshold_gateway_engine_call_duration_seconds_count', { method: 'GetMeanMax', code: 'OK' }), 3, 'and as the gateway sees it');
  assert.is(sample(text, 'threshold_engine_pool_threads'), options.poolThreads, 'pool');
  assert.is(sample(text, 'threshold_engine_pool_queue'), 0);
  const utilization = sample(text, 'threshold_engine_pool_utilization')!;
  assert.ok(utilization > 0 && utilization <= 1, `pool utilisation ${utilization} in (0, 1]`);
  assert.ok(sample(text, 'threshold_engine_pool_tasks_completed_total')! >= 1);
  assert.is(sample(text, 'threshold_jobs', { kind: 'ingest', state: 'queued' }), 0, 'job backlog');
  assert.is(sample(text, 'threshold_jobs', { kind: 'ingest', state: 'running' }), 0);
  assert.is(sample(text, 'threshold_jobs', { kind: 'ingest', state: 'failed' }), 0);
  assert.is(sample(text, 'threshold_job_failures_total', { kind: 'ingest', final: 'false' }), 0, 'job failures, present before the first');
  assert.is(sample(text, 'threshold_job_failures_total', { kind: 'ingest', final: 'true' }), 0);
  assert.is(sample(text, 'threshold_webhook_backlog', { stage: 'delivery' }), 0, 'webhook backlog: no application has a webhook endpoint');
  assert.is(sample(text, 'threshold_webhook_backlog', { stage: 'publication' }), 0);
  assert.is(sample(text, 'threshold_engine_up'), 1);
  assert.ok(sample(text, 'process_resident_memory_bytes')! > 0, "the scrape target's own process");
}
