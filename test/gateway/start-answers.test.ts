/**
 * No request lost at start (issue 27, item 4): clients that connect while a gateway starts — the whole
 * service, or one gateway process that `threshold serve` starts in place of a killed one — get an answer.
 * Several clients connect in a loop, each request on a connection of its own, from before the process
 * exists until well after it serves; every request that connects must settle within a bound (before the
 * fix, one that arrived between the listen and the handler waited for the 300 s request timeout).
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import http from 'node:http';
import { freePort } from '../support/free-port.js';
import { startProcess } from '../support/processes.js';
import { startStack, tempDir } from '../support/stack.js';
import fs from 'node:fs';
import net from 'node:net';
import { once } from 'node:events';

const starts = suite('start-answers');

/** How long a request that connected may take to settle (answer or error), milliseconds: far above a healthy /healthz. */
const SETTLE_MS = 5000;
/** Clients connecting at once. */
const CLIENTS = 12;

type Outcome = { kind: 'answered'; status: number } | { kind: 'refused' } | { kind: 'error'; code: string } | { kind: 'hung' };

/** GET `path` on a connection of its own; how it ended. `hung`: connected, then nothing within SETTLE_MS. */
function probe(port: number, path: string): Promise<Outcome> {
  return new Promise((resolve) => {
    let connected = false;
    const request = http.get({ host: '127.0.0.1', port, path, agent: false, headers: { connection: 'close' } }, (response) => {
      response.resume();
      response.on('end', () => settle({ kind: 'answered', status: response.statusCode ?? 0 }));
      response.on('error', (error: NodeJS.ErrnoException) => settle({ kind: 'error', code: error.code ?? error.message }));
    });
    const timer = setTimeout(() => {
      settle({ kind: 'hung' });
      request.destroy();
    }, SETTLE_MS);
    let settled = false;
    const settle = (outcome: Outcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    request.on('socket', (socket) => socket.on('connect', () => (connected = true)));
    request.on('error', (error: NodeJS.ErrnoException) => settle(!connected && error.code === 'ECONNREFUSED' ? { kind: 'refused' } : { kind: 'error', code: error.code ?? error.message }));
  });
}

/** CLIENTS loops probing `port` until `stop()`; the outcomes, in order of settling. */
function hammer(port: number, path = '/healthz'): { outcomes: Outcome[]; answered(): number; stop(): Promise<Outcome[]> } {
  const outcomes: Outcome[] = [];
  let running = true;
  const loops = Array.from({ length: CLIENTS }, async () => {
    while (running) {
      const outcome = await probe(port, path);
      outcomes.push(outcome);
      // Refused: nothing listens yet; try again at once (the point is to be there at the first instant).
      if (outcome.kind === 'refused') await new Promise((resolve) => setImmediate(resolve));
    }
  });
  return {
    outcomes,
    answered: () => outcomes.filter((outcome) => outcome.kind === 'answered').length,
    async stop() {
      running = false;
      await Promise.all(loops);
      return outcomes;
    },
  };
}

/** Polls until `count()` reaches `target`, or throws after `timeoutMs`. */
async function until(what: string, check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const tally = (outcomes: Outcome[]) => {
  const counts: Record<string, number> = {};
  for (const outcome of outcomes) {
    const key = outcome.kind === 'answered' ? `answered ${outcome.status}` : outcome.kind === 'error' ? `error ${outcome.code}` : outcome.kind;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
};

function serveEnv(port: number, pagesPort: number, dataDir: string, gatewayProcesses: number): Record<string, string> {
  return {
    DATA_DIR: dataDir, PORT: String(port), PAGES_PORT: String(pagesPort), HOST: '127.0.0.1', BASE_URL: 'http://localhost:8080',
    ENGINE_ADDRESS: '127.0.0.1:0', ENGINE_THREADS: '1', GATEWAY_PROCESSES: String(gatewayProcesses), LOG_LEVEL: 'info',
  };
}

for (const gatewayProcesses of [1, 2]) {
  starts(`answers every request that connects from the first instant of a start, on the API and the pages port [${gatewayProcesses} gateway process(es)]`, async () => {
    const dataDir = tempDir();
    const [port, pagesPort] = [await freePort(), await freePort()];
    // Clients are already connecting in a loop when the process is started.
    const api = hammer(port);
    const pages = hammer(pagesPort, '/');
    const service = startProcess('dist/cli/threshold.js', serveEnv(port, pagesPort, dataDir, gatewayProcesses), ['serve']);
    let outcomes: Outcome[];
    let pageOutcomes: Outcome[];
    try {
      await service.waitForLog((line) => line.msg === 'threshold is running');
      await until('200 answers on each port', () => api.answered() >= 200 && pages.answered() >= 200);
    } finally {
      outcomes = await api.stop();
      pageOutcomes = await pages.stop();
      await service.kill();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
    const unanswered = [...outcomes, ...pageOutcomes].filter((outcome) => outcome.kind === 'hung' || outcome.kind === 'error');
    assert.equal(unanswered, [], `every connected request answered: API ${JSON.stringify(tally(outcomes))}, pages ${JSON.stringify(tally(pageOutcomes))}`);
    assert.ok(outcomes.every((outcome) => outcome.kind !== 'answered' || outcome.status === 200), JSON.stringify(tally(outcomes)));
  });
}

starts('threshold serve replacing a SIGKILLed gateway process: no request hangs, and the new process answers from its first instant', async () => {
  const dataDir = tempDir();
  const [port, pagesPort] = [await freePort(), await freePort()];
  const service = startProcess('dist/cli/threshold.js', serveEnv(port, pagesPort, dataDir, 2), ['serve']);
  const client = hammer(port);
  try {
    const first = await service.waitForLog((line) => line.msg === 'gateway listening');
    const second = await service.waitForLog((line) => line.msg === 'gateway listening' && line.pid !== first.pid);
    await until('both processes answering', () => client.answered() >= 100);
    const killed = Number(first.pid);
    const before = client.outcomes.length;
    process.kill(killed, 'SIGKILL');
    const replacement = await service.waitForLog((line) => line.msg === 'gateway listening' && line.pid !== first.pid && line.pid !== second.pid);
    const answeredAt = client.answered();
    await until('300 answers after the replacement listened', () => client.answered() >= answeredAt + 300);
    const outcomes = await client.stop();
    const during = outcomes.slice(before);
    assert.is(during.filter((outcome) => outcome.kind === 'hung').length, 0, `no request hangs: ${JSON.stringify(tally(during))}`);
    // Only requests on a connection the killed process had taken may fail (it cannot answer them), and
    // then with an error at once, not a hang; nothing is refused while the other process listens.
    const failed = during.filter((outcome) => outcome.kind !== 'answered');
    assert.ok(failed.every((outcome) => outcome.kind === 'error' && ['ECONNRESET', 'socket hang up'].some((code) => outcome.code.includes(code))), JSON.stringify(tally(during)));
    assert.ok(failed.length <= CLIENTS, `at most one failed request per client (those in flight on the killed process): ${JSON.stringify(tally(during))}`);
    const served = new Set(service.output().split('\n').filter((text) => text.includes('"path":"/healthz"')).map((text) => (JSON.parse(text) as { pid: number }).pid));
    assert.ok(served.has(Number(replacement.pid)), 'the replacement answered');
  } finally {
    await client.stop();
    await service.kill();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

starts('a start that fails after the API port is bound (the pages port is taken) leaves nothing listening', async () => {
  const dataDir = tempDir();
  const taken = net.createServer().listen(0, '127.0.0.1');
  await once(taken, 'listening');
  const apiPort = await freePort();
  try {
    const started = startStack({ DATA_DIR: dataDir, PORT: String(apiPort), PAGES_PORT: String((taken.address() as net.AddressInfo).port) });
    await started.then(
      async (stack) => {
        await stack.close();
        assert.unreachable('the start should fail: its pages port is taken');
      },
      (error: NodeJS.ErrnoException) => assert.is(error.code, 'EADDRINUSE'),
    );
    // The API port, bound before the failure, is free again: a new server can listen on it.
    const again = net.createServer().listen(apiPort, '127.0.0.1');
    const [outcome] = await Promise.race([once(again, 'listening').then(() => ['listening']), once(again, 'error').then(([error]) => [(error as NodeJS.ErrnoException).code])]);
    again.close();
    assert.is(outcome, 'listening', 'the API port was released');
  } finally {
    taken.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

starts.run();
