/**
 * Question: what does a mean-max request cost end to end — HTTP, authentication, the gateway's ownership
 * check, the gRPC call, the engine (store read, pool task, Parquet) — under concurrent load? The real stack
 * on loopback with 100 two-hour 1 Hz rides for one user (bench/longitudinal.bench.ts's seeded season), then
 * 16 concurrent fetch clients, a bounded number of requests each round, against
 *
 * - /healthz, the baseline (no authentication, no engine);
 * - /api/v1/activities/{id}/mean-max, a random ride each request (seeded): the exact curve from its raw series;
 * - /api/v1/activities/longitudinal-mean-max over the 100 rides: from the analysis caches (warmed by one
 *   request first).
 *
 * Per endpoint: p50 and p95 latency of single requests and throughput, and both as ratios to /healthz in
 * the same run; then the p50 of one client alone (the service time: at 16 clients on a 2-thread pool most
 * of the loaded latency is queueing). The client runs in the same process as the stack, so it competes
 * for the same cores.
 *
 * Then the same rounds on the corpus (issue 27 item 1): every FIT file of the corpus uploaded to a fresh stack
 * (bench/corpus.ts), `/mean-max` of a random corpus activity with power, `/longitudinal-mean-max` of
 * cycling over the corpus's whole span. Rows: each endpoint's throughput against `/healthz`'s in the same
 * stack and round.
 */
import { addDays } from '../domain/time.js';
import { insertActivity } from '../test/support/activities.js';
import { startStack } from '../test/support/stack.js';
import { seasonRide } from './longitudinal.bench.js';
import { random } from '../test/support/kernels.js';
import { importCorpus } from './corpus.js';
import { share, type BenchResult, type BenchRow, type Dataset } from './results.js';
import type { TestStack } from '../test/support/stack.js';

export const question = 'End-to-end HTTP latency of /mean-max and /longitudinal-mean-max under concurrent load (loopback)';

const RIDES = 100;
const RIDE_S = 2 * 3600;
const LAST_DAY = '2025-06-30';
const CONCURRENCY = 16;
const PARQUET = 'application/vnd.apache.parquet';

interface Load {
  /** Latencies (ms) of every request, ascending. */
  latencies: number[];
  perSecond: number;
}

/**
 * `requests` fetches by `clients` concurrent clients; `url(k)` gives the k-th request's URL. Every answer must be
 * 200 (and Parquet when `parquet`), read to its end.
 */
async function load(requests: number, url: (k: number) => string, headers: Record<string, string>, parquet: boolean, clients = CONCURRENCY): Promise<Load> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < requests) {
        const target = url(next++);
        const sent = performance.now();
        const response = await fetch(target, { headers });
        await response.arrayBuffer();
        latencies.push(performance.now() - sent);
        if (!response.ok) throw new Error(`bench: ${target} answered ${response.status}`);
        if (parquet && response.headers.get('content-type') !== PARQUET) throw new Error(`bench: ${target} answered ${response.headers.get('content-type')}`);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { latencies: latencies.sort((a, b) => a - b), perSecond: requests / seconds };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * (sorted.length - 1)))]!;
}

function describe(label: string, result: Load, alone: Load, baseline: Load | null): string {
  const p50 = percentile(result.latencies, 0.5);
  const p95 = percentile(result.latencies, 0.95);
  const ratios = baseline === null ? '' : `, ÷ healthz: p50 ×${(p50 / percentile(baseline.latencies, 0.5)).toFixed(1)}, ` +
    `p95 ×${(p95 / percentile(baseline.latencies, 0.95)).toFixed(1)}, throughput ×${(result.perSecond / baseline.perSecond).toFixed(3)}`;
  return `${label}: p50 ${p50.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, ${result.perSecond.toFixed(0)} req/s${ratios}; one client alone p50 ${percentile(alone.latencies, 0.5).toFixed(1)} ms`;
}

/** The loaded rounds of /healthz, /mean-max of a random ride of `ids` and `longitudinalPath`: text and rows. */
async function measure(stack: TestStack, token: string, ids: string[], longitudinalPath: string, seasonRides: number, dataset: Dataset, label: string): Promise<{ text: string; rows: BenchRow[] }> {
  const auth = { authorization: `Bearer ${token}` };
  const next = random(42); // seeded: every run asks for the same rides in the same order
  const meanMax = () => `${stack.baseUrl}/api/v1/activities/${ids[Math.floor(next() * ids.length)]}/mean-max`;
  const longitudinal = `${stack.baseUrl}${longitudinalPath}`;
  const health = `${stack.baseUrl}/healthz`;

  await load(1, () => longitudinal, auth, true); // computes the caches
  // Warm-up rounds (JIT, connection pool, workers), then the measured ones.
  await load(500, () => health, {}, false);
  await load(200, meanMax, auth, true);
  await load(200, () => longitudinal, auth, true);

  const healthz = await load(4000, () => health, {}, false);
  const curve = await load(1500, meanMax, auth, true);
  const season = await load(1000, () => longitudinal, auth, true);
  // Without load: the service time a request needs, for reading the loaded latencies (mostly queueing).
  const healthzAlone = await load(200, () => health, {}, false, 1);
  const curveAlone = await load(200, meanMax, auth, true, 1);
  const seasonAlone = await load(100, () => longitudinal, auth, true, 1);
  const row = (question: string, result: Load): BenchRow => ({
    question: `${question}, ${CONCURRENCY} clients`, dataset, figure: result.perSecond, unit: 'req/s',
    anchor: healthz.perSecond, anchorLabel: '/healthz', ratio: share(result.perSecond, healthz.perSecond, 'higher'),
  });
  return {
    text: [
      `${label}, ${CONCURRENCY} concurrent clients`,
      describe('/healthz', healthz, healthzAlone, null),
      describe('/mean-max (random ride, 19 defaults)', curve, curveAlone, healthz),
      describe(`/longitudinal-mean-max (${seasonRides} cached rides)`, season, seasonAlone, healthz),
    ].join(' | '),
    rows: [row('GET /mean-max, a random ride', curve), row(`GET /longitudinal-mean-max, ${seasonRides} rides`, season)],
  };
}

/** The corpus imported as a user would, in a stack of its own. */
async function onCorpus(): Promise<{ text: string; rows: BenchRow[] }> {
  const stack = await startStack();
  try {
    const corpus = await importCorpus(stack, ['activities:read']);
    const rides = corpus.activities.filter((activity) => activity.metrics.includes('power'));
    const cycling = corpus.activities.filter((activity) => activity.sport.startsWith('cycling'));
    const day = (at: number) => new Date(at).toISOString().slice(0, 10);
    const span = `start=${day(cycling[0]!.start - 86_400_000)}&end=${day(cycling.at(-1)!.start + 86_400_000)}`;
    const result = await measure(stack, corpus.token, rides.map((ride) => ride.id), `/api/v1/activities/longitudinal-mean-max?sport=cycling&${span}`, cycling.length, 'corpus',
      `corpus: ${corpus.activities.length} activities (${rides.length} with power, ${cycling.length} cycling) from ${corpus.files} files`);
    return result;
  } finally {
    await stack.close();
  }
}

export async function run(): Promise<BenchResult> {
  const synthetic = await onSynthetic();
  const corpus = await onCorpus();
  return { text: `${synthetic.text}\n  ${corpus.text}`, rows: [...synthetic.rows, ...corpus.rows] };
}

async function onSynthetic(): Promise<{ text: string; rows: BenchRow[] }> {
  const stack = await startStack();
  try {
    const { userId, token } = await stack.userWithToken(['activities:read']);
    const ids: string[] = [];
    for (let k = 0; k < RIDES; k++) {
      const day = addDays(LAST_DAY, -k);
      const { power, distance } = seasonRide(RIDE_S, 1000 + k, 190 + (k % 40));
      const record = await insertActivity(stack.store, userId, {
        sport: 'cycling.road',
        start: Date.parse(`${day}T07:00:00Z`),
        series: { rows: RIDE_S, metrics: { power: (i) => power[i]!, distance: (i) => distance[i]! } },
      });
      ids.push(record.id);
    }
    return await measure(stack, token, ids, `/api/v1/activities/longitudinal-mean-max?sport=cycling&start=${addDays(LAST_DAY, -(RIDES - 1))}&end=${LAST_DAY}`, RIDES, 'synthetic',
      `synthetic: ${RIDES} rides × 7,200 s`);
  } finally {
    await stack.close();
  }
}
