/**
 * Two engines behind one gateway (issue 24, "Engines behind a balancer"): three real processes on one
 * SQLite file, the gateway's ENGINE_ADDRESS a list of both (one by IP, one by name, so the list resolver
 * resolves it). Calls reach both engines round-robin, counted from each engine's own metrics in the
 * gateway's scrape (`engine="host:port"`); calls in flight on an engine that dies are retried on the other
 * and none is lost; the scrape then shows the dead engine `threshold_engine_up 0` and the live one's series.
 * Then the in-process stack (`threshold serve`, `npm start`) given a list that names its own engine
 * (ENGINE_LISTEN_ADDRESS) and another, and `dns:` targets: one that resolves, one that does not.
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import { startProcess, runCli, type RunningProcess } from '../support/processes.js';
import { startStack, tempDir, type TestStack } from '../support/stack.js';
import { sample, scrape } from '../support/metrics-scrape.js';
import { freePort } from '../support/free-port.js';

const balanced = suite('engines behind a balancer');

const ISSUER = 'http://localhost:8080';
const WEEK = '/api/v1/profile/template-week';

/** Polls `condition` every 20 ms until it holds; fails after `timeoutMs`. */
async function until(condition: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

balanced('two engines share the calls round-robin; one killed mid-call loses nothing and shows as down', async () => {
  const dataDir = tempDir();
  const common = { DATA_DIR: dataDir, LOG_LEVEL: 'info', ENGINE_THREADS: '1', BASE_URL: ISSUER };
  const processes: RunningProcess[] = [];
  try {
    const engines = [startProcess('dist/engine/main.js', { ...common, ENGINE_ADDRESS: '127.0.0.1:0' }), startProcess('dist/engine/main.js', { ...common, ENGINE_ADDRESS: '127.0.0.1:0' })];
    processes.push(...engines);
    const bound = await Promise.all(engines.map(async (engine) => String((await engine.waitForLog((line) => line.msg === 'engine listening')).address)));
    const a = bound[0]!;
    const b = `localhost:${bound[1]!.split(':')[1]}`;
    const gateway = startProcess('dist/gateway/main.js', { ...common, PORT: '0', PAGES_PORT: '0', HOST: '127.0.0.1', ENGINE_ADDRESS: `${a},${b}` });
    processes.push(gateway);
    const { port } = await gateway.waitForLog((line) => line.msg === 'gateway listening');
    const baseUrl = `http://127.0.0.1:${port}`;
    const service = { baseUrl, get: (urlPath: string) => fetch(`${baseUrl}${urlPath}`) };

    const user = runCli(['user', 'create', '--email', 'balanced@example.com'], common);
    assert.is(user.status, 0, user.stderr);
    const minted = runCli(['token', 'mint', '--user', (user.json as { id: string }).id, '--scopes', 'activities:read'], common);
    assert.is(minted.status, 0, minted.stderr);
    const week = (): Promise<number> => fetch(`${baseUrl}${WEEK}`, { headers: { authorization: `Bearer ${(minted.json as { access_token: string }).access_token}` } }).then(async (response) => {
      await response.arrayBuffer();
      return response.status;
    });
    const served = (text: string, engine: string): number => sample(text, 'threshold_engine_rpc_duration_seconds_count', { engine, method: 'GetTemplateWeek', code: 'OK' }) ?? 0;

    // Both engines serve: 40 calls, each engine's own count of them in the one scrape.
    assert.ok((await fetch(`${baseUrl}/readyz`)).ok);
    for (let i = 0; i < 40; i++) assert.is(await week(), 200);
    const before = await scrape(service);
    const [servedA, servedB] = [served(before, a), served(before, b)];
    assert.is(servedA + servedB, 40, `every call counted by the engine that ran it (${servedA} + ${servedB})`);
    assert.ok(servedA >= 10 && servedB >= 10, `round-robin, not pinned to one engine: ${servedA} / ${servedB}`);
    assert.is(sample(before, 'threshold_engine_up', { engine: a }), 1);
    assert.is(sample(before, 'threshold_engine_up', { engine: b }), 1);
    assert.ok(sample(before, 'threshold_engine_pool_threads', { engine: b })! >= 1, "each engine's own series, labelled");

    // Engine B freezes with calls on it, then dies: those calls are retried on A, none is lost.
    engines[1]!.child.kill('SIGSTOP');
    let answered = 0;
    const statuses = Array.from({ length: 10 }, () => week().finally(() => answered++));
    await until(() => answered >= 4, "A's share of the calls answered");
    const pendingAtDeath = 10 - answered;
    await engines[1]!.stop('SIGKILL');
    assert.equal(await Promise.all(statuses), Array(10).fill(200), 'every call answered, those on the dead engine by the other');
    assert.ok(pendingAtDeath >= 1, 'some calls were on the engine when it died');
    for (let i = 0; i < 20; i++) assert.is(await week(), 200, 'later calls go to the live engine');

    const after = await scrape(service);
    assert.is(sample(after, 'threshold_engine_up', { engine: b }), 0, 'the dead engine shows as down');
    assert.is(sample(after, 'threshold_engine_up', { engine: a }), 1);
    assert.is(served(after, a), servedA + 30, 'the live engine ran every call after the freeze, the retried ones included');
    assert.is(sample(after, 'threshold_gateway_engine_call_duration_seconds_count', { method: 'GetTemplateWeek', code: 'OK' }), 70, 'the gateway saw 70 calls succeed');
    assert.is(sample(after, 'threshold_gateway_engine_call_duration_seconds_count', { method: 'GetTemplateWeek', code: 'UNAVAILABLE' }), null, 'and none fail');
    assert.is(sample(after, 'threshold_gateway_engine_call_duration_seconds_count', { method: 'GetMetrics', code: 'UNAVAILABLE' }), 1, "the dead engine's metrics call, refused");
    assert.ok((await fetch(`${baseUrl}/readyz`)).ok, 'ready while one engine serves');
  } finally {
    for (const running of processes) await running.stop('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

balanced('threshold serve\'s stack balances over the list it is given, its own engine on ENGINE_LISTEN_ADDRESS among them; dns: targets are scraped per address', async () => {
  const dataDir = tempDir();
  const other = startProcess('dist/engine/main.js', { DATA_DIR: dataDir, LOG_LEVEL: 'info', ENGINE_THREADS: '1', ENGINE_ADDRESS: '127.0.0.1:0' });
  const stacks: TestStack[] = [];
  try {
    const otherAddress = String((await other.waitForLog((line) => line.msg === 'engine listening')).address);
    const own = `127.0.0.1:${await freePort()}`;
    const listed = await startStack({ DATA_DIR: dataDir, ENGINE_THREADS: '1', ENGINE_LISTEN_ADDRESS: own, ENGINE_ADDRESS: `${own},${otherAddress}` });
    stacks.push(listed);
    const { token } = await listed.userWithToken(['activities:read']);
    for (let i = 0; i < 20; i++) assert.is((await listed.get(WEEK, token)).status, 200);
    const text = await scrape(listed);
    const served = (engine: string): number => sample(text, 'threshold_engine_rpc_duration_seconds_count', { engine, method: 'GetTemplateWeek', code: 'OK' }) ?? 0;
    assert.ok(served(own) >= 5 && served(otherAddress) >= 5, `both engines served: ${served(own)} / ${served(otherAddress)}`);
    assert.is(served(own) + served(otherAddress), 20);

    const port = otherAddress.split(':')[1];
    const named = await startStack({ DATA_DIR: dataDir, ENGINE_THREADS: '1', ENGINE_LISTEN_ADDRESS: '127.0.0.1:0', ENGINE_ADDRESS: `dns:///localhost:${port}` });
    stacks.push(named);
    assert.is((await named.get(WEEK, (await named.userWithToken(['activities:read'])).token)).status, 200);
    const resolved = await scrape(named);
    assert.is(sample(resolved, 'threshold_engine_up', { engine: `127.0.0.1:${port}` }), 1, 'the name\'s address, scraped on its own');
    assert.ok(sample(resolved, 'threshold_engine_pool_threads', { engine: `127.0.0.1:${port}` })! >= 1);

    const nowhere = await startStack({ DATA_DIR: dataDir, ENGINE_THREADS: '1', ENGINE_LISTEN_ADDRESS: '127.0.0.1:0', ENGINE_ADDRESS: 'dns:///no-such-engine.invalid:50051', ENGINE_TOKEN: 'b1946ac92492d2347c6235b4d2611184' });
    stacks.push(nowhere);
    const refused = await nowhere.get(WEEK, (await nowhere.userWithToken(['activities:read'])).token);
    assert.is(refused.status, 503, 'no engine: unavailable, not a server error');
    assert.is(sample(await scrape(nowhere), 'threshold_engine_up', { engine: 'no-such-engine.invalid:50051' }), 0, 'a name that does not resolve is an engine that is down');
  } finally {
    for (const stack of stacks) await stack.close();
    await other.stop('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

balanced.run();
