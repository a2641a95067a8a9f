/**
 * Question: how long does the first call after a restart take (issue 27, item 5: "the first call after a
 * restart stays within the warm goals' order of magnitude")? `threshold serve` as a user runs it (a child
 * process, two gateway processes, the engine in the primary with ENGINE_THREADS=2) on a store holding
 * longitudinal.bench.ts's seeded season of 300 two-hour rides; the question is
 * GET /api/v1/activities/longitudinal-mean-max with five fatigue states (after = 0, 250, 500, 1000, 1500 kJ)
 * over one year, from the raw series.
 *
 * Each round restarts the service, waits for /readyz to say 200 (what an orchestrator waits for), then times
 * the first call (cold: new processes, the pool's threads and the gateway's engine channel as the start
 * left them) and, after it, the same call repeated (warm). Printed: the cold first call (median over the
 * rounds), the warm median and the ratio cold ÷ warm measured in the same rounds; the anchor is the warm
 * call. The client runs in this process on the same cores as the service.
 */
import fs from 'node:fs';
import { addDays, yearBefore } from '../domain/time.js';
import { createUser } from '../gateway/services/accounts.js';
import { openStore } from '../storage/open-store.js';
import { insertActivity } from '../test/support/activities.js';
import { freePort } from '../test/support/free-port.js';
import { random } from '../test/support/kernels.js';
import { runCli, startProcess } from '../test/support/processes.js';
import { tempDir } from '../test/support/stack.js';
import { AFTER_KJ, LAST_DAY, RIDES, RIDE_S, seasonRide } from './longitudinal.bench.js';

export const question = 'The first call after a restart: longitudinal mean-max with 5 after states over HTTP under threshold serve, cold against warm';

const ROUNDS = 3;
const WARM_CALLS = 5;
const ISSUER = 'http://localhost:8080';

const middle = (times: number[]) => [...times].sort((a, b) => a - b)[times.length >> 1]!;

async function seed(dataDir: string): Promise<string> {
  const store = await openStore({ mongodbUri: null, sqliteFile: `${dataDir}/threshold.sqlite` });
  try {
    const user = await createUser(store, { email: 'first-call@example.com' });
    const levels = random(7);
    for (let k = 0; k < RIDES; k++) {
      const day = addDays(LAST_DAY, -k);
      const { power, distance } = seasonRide(RIDE_S, 1000 + k, 180 + 40 * ((RIDES - k) / RIDES) + 10 * levels());
      await insertActivity(store, user.id, {
        sport: 'cycling.road', start: Date.parse(`${day}T07:00:00Z`),
        series: { rows: RIDE_S, metrics: { power: (i) => power[i]!, distance: (i) => distance[i]! } },
      });
    }
    return user.id;
  } finally {
    await store.close();
  }
}

async function timed(url: string, token: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const body = await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`first-call bench: ${response.status} ${Buffer.from(body).toString()}`);
  return performance.now() - started;
}

export async function run(): Promise<string> {
  const dataDir = tempDir();
  try {
    const userId = await seed(dataDir);
    const env = { DATA_DIR: dataDir, BASE_URL: ISSUER, HOST: '127.0.0.1', ENGINE_ADDRESS: '127.0.0.1:0', ENGINE_THREADS: '2', GATEWAY_PROCESSES: '2', LOG_LEVEL: 'warn' };
    const minted = runCli(['token', 'mint', '--user', userId, '--scopes', 'activities:read'], env);
    if (minted.status !== 0) throw new Error(`first-call bench: token mint: ${minted.stderr}`);
    const token = (minted.json as { access_token: string }).access_token;
    const after = AFTER_KJ.map((kj) => `&after=${kj}`).join('');
    const cold: number[] = [];
    const warm: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      const url = `${base}/api/v1/activities/longitudinal-mean-max?sport=cycling&start=${yearBefore(LAST_DAY)}&end=${LAST_DAY}${after}`;
      const service = startProcess('dist/cli/threshold.js', { ...env, PORT: String(port), PAGES_PORT: '0' }, ['serve']);
      try {
        const deadline = Date.now() + 60_000;
        while ((await fetch(`${base}/readyz`).then((response) => response.status, () => 0)) !== 200) {
          if (Date.now() > deadline) throw new Error(`first-call bench: not ready within 60 s:\n${service.output()}`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        cold.push(await timed(url, token));
        for (let call = 0; call < WARM_CALLS; call++) warm.push(await timed(url, token));
      } finally {
        await service.stop('SIGTERM');
        await service.kill();
      }
    }
    const [coldMs, warmMs] = [middle(cold), middle(warm)];
    return `${RIDES} rides × 7,200 s, after ${AFTER_KJ.join(', ')} kJ over one year, ${ROUNDS} restarts: first call after a restart ${coldMs.toFixed(0)} ms ` +
      `(each: ${cold.map((ms) => ms.toFixed(0)).join(', ')}), warm ${warmMs.toFixed(0)} ms (median of ${warm.length}); cold ÷ warm ×${(coldMs / warmMs).toFixed(2)}`;
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
