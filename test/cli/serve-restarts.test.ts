/**
 * Issue 26, "A service that fails loudly": `threshold serve` with its port taken backs off, gives up after
 * a few failed starts with one line naming the port and what to do, exits 1, and leaves no process behind;
 * a gateway process that crashes after serving is still replaced.
 */
import net from 'node:net';
import fs from 'node:fs';
import { once } from 'node:events';
import * as assert from 'uvu/assert';
import { test } from '../support/uvu.js';
import { startProcess, startServeProcesses } from '../support/processes.js';
import { groupMembers } from '../support/children.js';
import { jsonLines, repeatedKeys } from '../support/log-lines.js';
import { tempDir } from '../support/stack.js';

/** A server holding a port on 127.0.0.1, as another program would. */
async function occupyPort(): Promise<{ port: number; close(): void }> {
  const server = net.createServer((socket) => socket.destroy());
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { port: (server.address() as net.AddressInfo).port, close: () => server.close() };
}

async function serveOnTakenPort(gatewayProcesses: number): Promise<{ code: number | null; output: string; leftRunning: number[]; port: number }> {
  const taken = await occupyPort();
  const dataDir = tempDir();
  const service = startProcess('dist/cli/threshold.js', {
    DATA_DIR: dataDir, PORT: String(taken.port), PAGES_PORT: '0', HOST: '127.0.0.1', ENGINE_ADDRESS: '127.0.0.1:0', ENGINE_THREADS: '1',
    BASE_URL: 'http://localhost:8080', LOG_LEVEL: 'info', GATEWAY_PROCESSES: String(gatewayProcesses),
  }, ['serve']);
  try {
    const exited = once(service.child, 'exit') as Promise<[number | null]>;
    const limit = new Promise<'limit'>((resolve) => setTimeout(resolve, 90_000, 'limit').unref());
    const outcome = await Promise.race([exited, limit]);
    if (outcome === 'limit') throw new Error(`threshold serve still running 90 s after start with its port taken:\n${service.output()}`);
    // The gateway processes end with the primary: poll their group empty, with a deadline.
    const pgid = service.child.pid!;
    const deadline = Date.now() + 10_000;
    while (groupMembers(pgid).length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    return { code: outcome[0], output: service.output(), leftRunning: groupMembers(pgid), port: taken.port };
  } finally {
    await service.kill();
    taken.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

test('with its port taken, threshold serve on two HTTP processes gives up with one line naming the port, exits 1 and leaves nothing running', async () => {
  const { code, output, leftRunning, port } = await serveOnTakenPort(2);
  assert.is(code, 1);
  const stopped = output.split('\n').filter((line) => line.startsWith('threshold serve stopped'));
  assert.equal(stopped, [`threshold serve stopped after 5 failed starts of its HTTP processes in a row: port ${port} on 127.0.0.1 is already in use (another program, or threshold already running): stop it or set PORT (and PAGES_PORT) to free ports`]);
  assert.equal(leftRunning, [], 'no gateway process left behind');
  const exits = jsonLines(output).map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.msg === 'gateway process exited before it listened');
  assert.ok(exits.length >= 5, output);
  assert.ok(exits.every((line) => line.code === 1), 'each exit line keeps the exit code');
  // Backed off: each restart waits longer than the one before.
  const waits = exits.map((line) => line.restart_in_ms).filter((wait): wait is number => typeof wait === 'number');
  assert.equal(waits.slice(0, 4), [250, 500, 1000, 2000]);
  for (const line of jsonLines(output)) assert.equal(repeatedKeys(line), [], line);
});

test('with its port taken, threshold serve on one process says which port in one line and exits 1', async () => {
  const { code, output, leftRunning, port } = await serveOnTakenPort(1);
  assert.is(code, 1);
  assert.match(output, `start-up failed: port ${port} on 127.0.0.1 is already in use`);
  assert.not.match(output, '    at ', 'no stack trace for a port in use');
  assert.equal(leftRunning, []);
});

test('a gateway process that crashes after serving is restarted at once, and the service keeps answering', async () => {
  const service = await startServeProcesses(2);
  try {
    const [serve] = service.processes;
    const listening = (line: Record<string, unknown>) => line.msg === 'gateway listening';
    const first = await serve!.waitForLog(listening);
    process.kill(Number(first.pid), 'SIGKILL');
    const exit = await serve!.waitForLog((line) => line.msg === 'gateway process exited' && line.worker_pid === first.pid);
    assert.is(exit.signal, 'SIGKILL');
    assert.is(exit.restart_in_ms, 0);
    assert.ok(typeof exit.served_ms === 'number');
    const replacement = await serve!.waitForLog((line) => listening(line) && Number(line.time) > Number(exit.time));
    assert.is.not(replacement.pid, first.pid);
    assert.is((await service.get('/healthz')).status, 200);
    assert.is(serve!.child.exitCode, null, 'the service still runs');
  } finally {
    await service.stop();
  }
});

test.run();
