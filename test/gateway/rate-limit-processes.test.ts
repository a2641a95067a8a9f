/**
 * Rate limits across processes, on one shared SQLite file (where two writers prove something; the bundled
 * MongoDB double loses concurrent transactions, issue 24): two `start:gateway` processes allow one budget
 * between them, not one each, and `threshold serve` on two gateway processes gives a client on one
 * keep-alive connection the whole budget (it used to get its process's share) and clients spread over
 * both processes no more than that one budget. TRUST_PROXY lets each client name its address.
 */
import http from 'node:http';
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startProcess, startSeparateProcesses, startServeProcesses, type RunningProcess } from '../support/processes.js';
import { CookieJar } from '../support/browser-session.js';
import { tempDir } from '../support/stack.js';
import { until } from '../support/integrations.js';

const limits = suite('rate limits across processes');

/**
 * Failed passwords per client address, whatever the account, in 15 minutes (gateway/auth/rate-limit.ts).
 * Each attempt names another account, so none is slowed down (the per-account slow-down would wait seconds).
 */
const SIGN_IN_BUDGET = 30;
/** Failed token requests per address per minute. */
const TOKEN_BUDGET = 20;

/** The pid of each of the processes' first `count` request log lines for `path`, once that many are written. */
function servedBy(processes: RunningProcess[], path: string, count: number): Promise<number[]> {
  return until(`${count} request lines for ${path}`, async () => {
    const pids = processes.flatMap((running) => running.output().split('\n'))
      .filter((text) => text.includes(`"path":"${path}"`) && text.includes('"msg":"request"'))
      .map((text) => (JSON.parse(text) as { pid: number }).pid);
    return pids.length >= count ? pids.slice(0, count) : undefined;
  }, 10_000);
}

/** A form post with the jar's cookies through `agent` (one keep-alive socket, say); the status. */
function postForm(url: string, fields: Record<string, string>, jar: CookieJar, headers: Record<string, string>, agent?: http.Agent): Promise<number> {
  const body = new URLSearchParams(fields).toString();
  return new Promise((resolve, reject) => {
    const request = http.request(url, {
      method: 'POST', agent,
      headers: { ...headers, cookie: jar.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) },
    }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode!));
    });
    request.on('error', reject);
    request.end(body);
  });
}

/** `count` wrong passwords, each for another email, from `address`, the i-th to `urls[i % urls.length]`; the statuses. */
async function wrongPasswords(jar: CookieJar, urls: string[], address: string, count: number, agent?: http.Agent): Promise<number[]> {
  const csrf = await jar.csrf();
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) {
    const headers = { 'x-forwarded-for': address, ...(agent === undefined && { connection: 'close' }) };
    statuses.push(await postForm(`${urls[i % urls.length]}/signin/password`, { email: `nobody-${i}@example.com`, password: `guess-${i}`, csrf }, jar, headers, agent));
  }
  return statuses;
}

const refusedAfter = (budget: number, status: number, total: number): number[] => [...Array(budget).fill(status), ...Array(total - budget).fill(429)];

limits('two gateway processes on one store allow one budget of failed sign-ins and token requests, not one each', async () => {
  const dataDir = tempDir();
  const service = await startSeparateProcesses({ DATA_DIR: dataDir, TRUST_PROXY: 'true' });
  try {
    const second = startProcess('dist/gateway/main.js', {
      DATA_DIR: dataDir, LOG_LEVEL: 'info', BASE_URL: 'http://localhost:8080', TRUST_PROXY: 'true',
      PORT: '0', PAGES_PORT: '0', HOST: '127.0.0.1', ENGINE_ADDRESS: service.engineAddress,
    });
    service.processes.push(second);
    const { port } = await second.waitForLog((line) => line.msg === 'gateway listening');
    const urls = [service.baseUrl, `http://127.0.0.1:${port}`];
    const [, gatewayA, gatewayB] = service.processes.map((running) => running.child.pid!);

    // One browser session (stored, so both processes know it), its attempts alternating between them.
    const statuses = await wrongPasswords(new CookieJar(service.baseUrl), urls, '203.0.113.10', SIGN_IN_BUDGET + 4);
    assert.equal(statuses, refusedAfter(SIGN_IN_BUDGET, 401, SIGN_IN_BUDGET + 4), `${SIGN_IN_BUDGET} failures in all, then 429 from both`);
    const served = await servedBy(service.processes, '/signin/password', SIGN_IN_BUDGET + 4);
    assert.equal([gatewayA, gatewayB].map((pid) => served.filter((one) => one === pid).length), Array(2).fill((SIGN_IN_BUDGET + 4) / 2), 'half the attempts went to each process');

    const tokenStatuses: number[] = [];
    for (let i = 0; i < TOKEN_BUDGET + 2; i++) {
      const response = await fetch(`${urls[i % 2]}/oauth/token`, {
        method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '203.0.113.11' },
        body: new URLSearchParams({ grant_type: 'authorization_code', code: `wrong-${i}`, client_id: 'nobody', redirect_uri: 'https://x.example/cb' }),
      });
      if (response.status === 429) assert.match(response.headers.get('retry-after') ?? '', /^\d+$/);
      tokenStatuses.push(response.status === 429 ? 429 : 0);
    }
    assert.equal(tokenStatuses, refusedAfter(TOKEN_BUDGET, 0, TOKEN_BUDGET + 2), `${TOKEN_BUDGET} failed token requests in all`);
  } finally {
    await service.stop();
  }
});

limits('threshold serve on two gateway processes: one keep-alive client gets the whole budget, clients spread over both no more', async () => {
  const service = await startServeProcesses(2, { TRUST_PROXY: 'true' });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const [serve] = service.processes;
    // One socket: every attempt reaches the same process, which used to allow only its share (15).
    const oneConnection = await wrongPasswords(new CookieJar(service.baseUrl), [service.baseUrl], '203.0.113.20', SIGN_IN_BUDGET + 2, agent);
    assert.equal(oneConnection, refusedAfter(SIGN_IN_BUDGET, 401, SIGN_IN_BUDGET + 2));
    assert.is(new Set(await servedBy([serve!], '/signin/password', SIGN_IN_BUDGET + 2)).size, 1, 'one process answered them all');

    // A fresh connection per attempt: node:cluster hands them to both processes in turn.
    const spread = await wrongPasswords(new CookieJar(service.baseUrl), [service.baseUrl], '203.0.113.21', SIGN_IN_BUDGET + 4);
    assert.equal(spread, refusedAfter(SIGN_IN_BUDGET, 401, SIGN_IN_BUDGET + 4));
    const both = await servedBy([serve!], '/signin/password', 2 * SIGN_IN_BUDGET + 6);
    assert.is(new Set(both.slice(SIGN_IN_BUDGET + 2)).size, 2, 'both processes answered attempts');
  } finally {
    agent.destroy();
    await service.stop();
  }
});

limits.run();
