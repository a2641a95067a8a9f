/**
 * `/metrics` when the engine runs in a process of its own: `start:engine` + `start:gateway` (compose's
 * layout) and `threshold serve` on two gateway processes (the engine in the primary). After the same burst
 * as the one-process test (test/support/metrics-scrape.ts), each shows every metric issue 16 lists, and
 * both the gateway's and the engine's process metrics, the engine's labelled process="engine". An engine
 * that hangs or is gone leaves a 200 scrape with the gateway's metrics and `threshold_engine_up 0`.
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startSeparateProcesses, startServeProcesses, type ServiceProcesses } from '../support/processes.js';
import { assertBurstShown, declaredTwice, requestBurst, sample, scrape } from '../support/metrics-scrape.js';
import { EngineClient } from '../../gateway/engine-client.js';

const processes = suite('metrics across processes');

/** Both processes' resident memory, told apart by the label. */
function assertBothProcesses(text: string): void {
  const gateway = sample(text, 'process_resident_memory_bytes');
  const engine = sample(text, 'process_resident_memory_bytes', { process: 'engine' });
  assert.ok(gateway !== null && gateway > 0, "the gateway's resident memory, unlabelled");
  assert.ok(engine !== null && engine > 0, "the engine's resident memory, process=\"engine\"");
  assert.ok(sample(text, 'nodejs_heap_size_used_bytes', { process: 'engine' })! > 0, "the engine's heap");
  assert.ok(sample(text, 'process_cpu_seconds_total', { process: 'engine' })! > 0, "the engine's CPU time");
}

/** A burst of requests, then one scrape showing every listed metric and both processes' memory. */
async function burstAndScrape(service: ServiceProcesses): Promise<void> {
  const { token } = service.userWithToken(['activities:read', 'activities:write']);
  const activityId = await requestBurst(service, token);
  const text = await scrape(service);
  assertBurstShown(text, activityId, { poolThreads: 1 });
  assertBothProcesses(text);
}

processes('gateway and engine as separate processes: a scrape after a burst shows every listed metric and each process\'s memory', async () => {
  const service = await startSeparateProcesses();
  try {
    await burstAndScrape(service);
  } finally {
    await service.stop();
  }
});

processes('threshold serve on two gateway processes: a scrape shows both gateways\' requests, every listed metric, and the primary\'s memory as the engine\'s', async () => {
  const service = await startServeProcesses(2);
  try {
    await burstAndScrape(service);
    // The primary's GetMetrics answer, gateways' and engine's joined, is a valid exposition on its own (grpcurl, other callers).
    const engine = new EngineClient(service.engineAddress, { token: null, deadlineMs: 5000 });
    try {
      const answer = await engine.metrics();
      assert.equal(declaredTwice(answer), []);
      assert.ok(sample(answer, 'process_resident_memory_bytes', { process: 'engine' })! > 0);
    } finally {
      engine.close();
    }
  } finally {
    await service.stop();
  }
});

processes('an engine that hangs, then one that is gone: the scrape still answers 200 with the gateway\'s metrics and threshold_engine_up 0', async (): Promise<void> => {
  const service: ServiceProcesses = await startSeparateProcesses();
  const [engine] = service.processes;
  // A guard against a hang, not a timing assertion: the route's own deadline is 5 s.
  const guarded = (): Promise<string> => scrape({ baseUrl: service.baseUrl, get: (urlPath) => fetch(`${service.baseUrl}${urlPath}`, { signal: AbortSignal.timeout(30_000) }) });
  try {
    assert.is(sample(await scrape(service), 'threshold_engine_up'), 1);

    engine!.child.kill('SIGSTOP'); // connected, silent: only the deadline ends the call
    const hung = await guarded();
    assert.is(sample(hung, 'threshold_engine_up'), 0);
    assert.is(sample(hung, 'threshold_gateway_engine_call_duration_seconds_count', { method: 'GetMetrics', code: 'DEADLINE_EXCEEDED' }), 1);
    assert.is(sample(hung, 'threshold_http_request_duration_seconds_count', { method: 'GET', route: '/metrics', status: '200' }), 1, "the gateway's own metrics");
    assert.ok(sample(hung, 'process_resident_memory_bytes')! > 0);
    assert.not.match(hung, 'process="engine"', 'nothing of the engine');
    assert.not.match(hung, 'threshold_engine_pool_threads');

    await engine!.stop('SIGKILL'); // gone: the connection is refused
    const gone = await guarded();
    assert.is(sample(gone, 'threshold_engine_up'), 0);
    assert.is(sample(gone, 'threshold_gateway_engine_call_duration_seconds_count', { method: 'GetMetrics', code: 'UNAVAILABLE' }), 1);
    assert.is(sample(gone, 'threshold_http_request_duration_seconds_count', { method: 'GET', route: '/metrics', status: '200' }), 2);
    assert.ok(sample(gone, 'process_resident_memory_bytes')! > 0);
    assert.not.match(gone, 'process="engine"');
  } finally {
    await service.stop();
  }
});

processes.run();
