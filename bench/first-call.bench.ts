/**
 * Question: how long does the first call after a restart take (issue 27, item 5: "the first call after a
 * restart stays within the warm goals' order of magnitude")? `threshold serve` as a user runs it (a child
 * process, two gateway processes, the engine in the primary with ENGINE_THREADS=2) on a store holding two
 * users:
 * - synthetic: longitudinal.bench.ts's seeded season of 300 two-hour rides (RIDES, RIDE_S);
 * - corpus: every FIT file of the corpus taken in by `threshold import`, as a user would.
 *
 * Questions, on each: the per-activity mean-max (`GET /api/v1/activities/{id}/mean-max`, the 19 defaults,
 * of the longest ride with power) and the longitudinal mean-max (`GET /api/v1/activities/longitudinal-mean-max`,
 * cycling: on the season with five fatigue states, after = 0, 250, 500, 1000, 1500 kJ, over one year from the
 * raw series; on the corpus from the caches over every date, its rides spanning years).
 *
 * One start computes every analysis cache the calls read (a cache is stored once, not per start). Then, per
 * question and round, the service is restarted, /readyz awaited (what an orchestrator waits for), and the
 * first call timed (cold: new processes, the pool's threads and the gateway's engine channel as the start
 * left them), then the same call repeated (warm). Row: the cold first call (median over the rounds)
 * against the warm call's median in the same rounds, goal 0.1 (within the warm call's order of magnitude).
 * The anchor is the warm call, not /healthz: the question is what a restart adds to this call, and the call's
 * own cost beside /healthz is what mean-max and http-analytics measure. The client runs in this process on
 * the same cores as the service.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { addDays, yearBefore } from '../domain/time.js';
import { createUser } from '../gateway/services/accounts.js';
import { openStore } from '../storage/open-store.js';
import { insertActivity } from '../test/support/activities.js';
import { freePort } from '../test/support/free-port.js';
import { random } from '../test/support/kernels.js';
import { runCli, startProcess } from '../test/support/processes.js';
import { tempDir } from '../test/support/stack.js';
import { AFTER_KJ, LAST_DAY, RIDES, RIDE_S, seasonRide } from './longitudinal.bench.js';
import { share, type BenchResult, type BenchRow, type Dataset } from './results.js';
import { corpusFitFiles, quick, REPO_ROOT } from './support.js';

export const question = 'The first call after a restart under threshold serve, cold against warm: per-activity and longitudinal mean-max over HTTP (season with 5 after states; corpus imported)';

const ROUNDS = quick(3, 1);
const WARM_CALLS = quick(5, 2);
const ISSUER = 'http://localhost:8080';
const READY_MS = 60_000;
/** Within the warm call's order of magnitude (issue 27 item 5). */
const GOAL = 0.1;

const middle = (times: number[]) => [...times].sort((a, b) => a - b)[times.length >> 1]!;

/** The season (longitudinal.bench.ts) for a new user of the store in `dataDir`. */
async function seedSeason(dataDir: string): Promise<string> {
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

/** The corpus's FIT files taken in by `threshold import` for a new user; that user and the id of its longest ride with power. */
async function importCorpus(dataDir: string, env: Record<string, string>): Promise<{ userId: string; rideId: string; activities: number }> {
  const folder = tempDir('first-call-corpus-');
  for (const file of corpusFitFiles()) fs.copyFileSync(file, path.join(folder, `${path.basename(path.dirname(file))}-${path.basename(file)}`));
  const setup = await openStore({ mongodbUri: null, sqliteFile: `${dataDir}/threshold.sqlite` });
  const user = await createUser(setup, { email: 'first-call-corpus@example.com' }).finally(() => setup.close());
  await promisify(execFile)(process.execPath, [path.join(REPO_ROOT, 'dist', 'cli', 'threshold.js'), 'import', '--user', user.id, folder], {
    env: { PATH: process.env.PATH ?? '', ...env }, maxBuffer: 64 * 1024 * 1024,
  });
  const store = await openStore({ mongodbUri: null, sqliteFile: `${dataDir}/threshold.sqlite` });
  try {
    const activities = await store.activities.findFields({ user_id: user.id }, ['id', 'start', 'end', 'metrics']);
    const rides = activities.filter((activity) => activity.metrics.includes('power')).sort((a, b) => (b.end - b.start) - (a.end - a.start));
    if (rides.length === 0) throw new Error('first-call bench: the corpus import stored no activity with power');
    return { userId: user.id, rideId: rides[0]!.id, activities: activities.length };
  } finally {
    await store.close();
  }
}

function mint(userId: string, env: Record<string, string>): string {
  const minted = runCli(['token', 'mint', '--user', userId, '--scopes', 'activities:read'], env);
  if (minted.status !== 0) throw new Error(`first-call bench: token mint: ${minted.stderr}`);
  return (minted.json as { access_token: string }).access_token;
}

async function timed(url: string, token: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const body = await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`first-call bench: ${url} answered ${response.status} ${Buffer.from(body).toString()}`);
  return performance.now() - started;
}

/** `threshold serve` on a free port until /readyz says 200; `work` gets its base URL; the service is stopped after. */
async function served<T>(env: Record<string, string>, work: (base: string) => Promise<T>): Promise<T> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const service = startProcess('dist/cli/threshold.js', { ...env, PORT: String(port), PAGES_PORT: '0' }, ['serve']);
  try {
    const deadline = Date.now() + READY_MS;
    while ((await fetch(`${base}/readyz`).then((response) => response.status, () => 0)) !== 200) {
      if (Date.now() > deadline) throw new Error(`first-call bench: not ready within ${READY_MS} ms:\n${service.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return await work(base);
  } finally {
    await service.stop('SIGTERM');
    await service.kill();
  }
}

interface Call {
  question: string;
  dataset: Dataset;
  /** The path and query, from /api/v1. */
  path: string;
  token: string;
}

/** ROUNDS restarts for `call`: the first call after each, then WARM_CALLS more; its row and its line. */
async function coldAndWarm(env: Record<string, string>, call: Call): Promise<{ row: BenchRow; line: string }> {
  const cold: number[] = [];
  const warm: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    await served(env, async (base) => {
      cold.push(await timed(`${base}${call.path}`, call.token));
      for (let k = 0; k < WARM_CALLS; k++) warm.push(await timed(`${base}${call.path}`, call.token));
    });
  }
  const [coldMs, warmMs] = [middle(cold), middle(warm)];
  return {
    row: { question: call.question, dataset: call.dataset, figure: coldMs, unit: 'ms', anchor: warmMs, anchorLabel: 'the warm call (same rounds)', ratio: share(coldMs, warmMs, 'lower'), goal: GOAL },
    line: `${call.dataset} ${call.question}: first call after a restart ${coldMs.toFixed(0)} ms (each: ${cold.map((ms) => ms.toFixed(0)).join(', ')}), ` +
      `warm ${warmMs.toFixed(warmMs < 10 ? 1 : 0)} ms (median of ${warm.length}); cold ÷ warm ×${(coldMs / warmMs).toFixed(2)}`,
  };
}

export async function run(): Promise<BenchResult> {
  const dataDir = tempDir();
  try {
    const env = { DATA_DIR: dataDir, BASE_URL: ISSUER, HOST: '127.0.0.1', ENGINE_ADDRESS: '127.0.0.1:0', ENGINE_THREADS: '2', GATEWAY_PROCESSES: '2', LOG_LEVEL: 'warn' };
    const seasonUser = await seedSeason(dataDir);
    const corpus = await importCorpus(dataDir, { ...env, LOG_LEVEL: 'silent' });
    const store = await openStore({ mongodbUri: null, sqliteFile: `${dataDir}/threshold.sqlite` });
    const [seasonRide] = await store.activities.findFields({ user_id: seasonUser }, ['id'], { limit: 1 });
    await store.close();
    const after = AFTER_KJ.map((kj) => `&after=${kj}`).join('');
    const seasonToken = mint(seasonUser, env);
    const corpusToken = mint(corpus.userId, env);
    const calls: Call[] = [
      { question: 'per-activity mean-max, first call after a restart', dataset: 'synthetic', path: `/api/v1/activities/${seasonRide!.id}/mean-max`, token: seasonToken },
      { question: 'longitudinal mean-max with 5 after states, first call after a restart', dataset: 'synthetic', token: seasonToken,
        path: `/api/v1/activities/longitudinal-mean-max?sport=cycling&start=${yearBefore(LAST_DAY)}&end=${LAST_DAY}${after}` },
      { question: 'per-activity mean-max, first call after a restart', dataset: 'corpus', path: `/api/v1/activities/${corpus.rideId}/mean-max`, token: corpusToken },
      { question: 'longitudinal mean-max (caches), first call after a restart', dataset: 'corpus', token: corpusToken,
        path: '/api/v1/activities/longitudinal-mean-max?sport=cycling&start=2000-01-01' },
    ];
    await served(env, async (base) => { // computes and stores the caches every call reads
      for (const call of calls) await timed(`${base}${call.path}`, call.token);
    });
    const measured = [];
    for (const call of calls) measured.push(await coldAndWarm(env, call));
    return {
      text: `season of ${RIDES} rides × ${RIDE_S} s, after ${AFTER_KJ.join(', ')} kJ over one year; corpus: ${corpus.activities} activities imported; ${ROUNDS} restarts per question:\n    ` +
        measured.map((entry) => entry.line).join('\n    '),
      rows: measured.map((entry) => entry.row),
    };
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
