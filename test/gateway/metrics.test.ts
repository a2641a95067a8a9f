/**
 * `/metrics` after a burst of requests: Prometheus text showing them by route template (never a raw
 * id), the engine's RPCs, the pool, the job queue and the webhook backlog; closed behind METRICS_TOKEN.
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { csvActivity, settled, upload, type SourceBody } from '../support/uploads.js';

const metrics = suite('metrics endpoint');

/** The value of one sample line, or null when the text has no such sample. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | null {
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

metrics('a scrape after a burst of requests shows them by route, with the engine, pool, jobs and webhook backlog', async () => {
  const stack: TestStack = await startStack();
  try {
    const { token } = await stack.userWithToken(['activities:read', 'activities:write']);
    const response = await upload(stack, token, [{ name: 'ride.csv', bytes: csvActivity({ rows: 600 }) }]);
    const [source] = ((await response.json()) as { sources: SourceBody[] }).sources;
    const [activityId] = (await settled(stack, token, source!.id)).activity_ids;
    for (let i = 0; i < 25; i++) assert.is((await stack.get('/api/v1/activities/', token)).status, 200);
    for (let i = 0; i < 3; i++) assert.is((await stack.get(`/api/v1/activities/${activityId}/mean-max?metric=power`, token)).status, 200);
    assert.is((await stack.get('/api/v1/activities/0000000000000000', token)).status, 404);
    assert.is((await stack.get('/no/such/path')).status, 404);

    const scrape = await stack.get('/metrics');
    assert.is(scrape.status, 200);
    assert.match(scrape.headers.get('content-type')!, 'text/plain; version=0.0.4');
    const text = await scrape.text();
    const count = (route: string, status: string) => sample(text, 'threshold_http_request_duration_seconds_count', { method: 'GET', route, status });
    assert.is(count('/api/v1/activities/', '200'), 25);
    assert.is(count('/api/v1/activities/:activity_id/mean-max', '200'), 3);
    assert.is(count('/api/v1/activities/:activity_id', '404'), 1);
    assert.is(count('unmatched', '404'), 1);
    assert.not.match(text, activityId!, 'no raw id in any label');
    assert.not.match(text, '0000000000000000');

    assert.is(sample(text, 'threshold_engine_rpc_duration_seconds_count', { method: 'GetMeanMax', code: 'OK' }), 3);
    assert.is(sample(text, 'threshold_gateway_engine_call_duration_seconds_count', { method: 'GetMeanMax', code: 'OK' }), 3);
    assert.is(sample(text, 'threshold_engine_pool_threads'), 2);
    assert.ok(sample(text, 'threshold_engine_pool_tasks_completed_total')! >= 1);
    assert.is(sample(text, 'threshold_jobs', { kind: 'ingest', state: 'queued' }), 0);
    assert.is(sample(text, 'threshold_jobs', { kind: 'ingest', state: 'failed' }), 0);
    assert.is(sample(text, 'threshold_webhook_backlog', { stage: 'delivery' }), 0, 'no application has a webhook endpoint');
    assert.is(sample(text, 'threshold_webhook_backlog', { stage: 'publication' }), 0);
    assert.is(sample(text, 'threshold_engine_up'), 1);
    assert.ok(sample(text, 'process_resident_memory_bytes')! > 0);
  } finally {
    await stack.close();
  }
});

metrics('with METRICS_TOKEN set, a scrape without the token or with another is refused', async () => {
  const stack = await startStack({ METRICS_TOKEN: 'scrape-secret-0123456789' });
  try {
    assert.is((await stack.get('/metrics')).status, 401);
    assert.is((await stack.get('/metrics', 'wrong-secret')).status, 401);
    const scrape = await stack.get('/metrics', 'scrape-secret-0123456789');
    assert.is(scrape.status, 200);
    assert.match(await scrape.text(), 'threshold_http_request_duration_seconds_count{method="GET",route="/metrics",status="401"} 2');
  } finally {
    await stack.close();
  }
});

metrics.run();
