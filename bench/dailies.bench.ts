/**
 * Question: what does `GET /api/v1/dailies/{measure}` over a 365-day range cost per request, for an
 * estimated measure (body_mass: the range plus its neighbours read, every gap interpolated) and a never
 * estimated one (hrv), next to /healthz (no authentication, no store) in the same run?
 *
 * The real stack (test/support/stack.ts) on loopback over SQLite, one user with 100 values of each measure
 * on dates scattered over the year (a fixed pseudo-random draw) and one before the range. Requests go one
 * at a time, so the figures are latencies: median and p99 over REQUESTS after a warm-up. Absolute times
 * are indicative; the ratio to /healthz is the figure to compare across machines.
 */
import { startStack, type TestStack } from '../test/support/stack.js';
import { upsertDaily } from '../storage/dailies.js';
import { addDays } from '../domain/time.js';
import { share, type BenchResult, type BenchRow } from './results.js';

export const question = 'GET /api/v1/dailies/{measure}, 365 days with 100 stored values: body_mass (interpolated) and hrv vs /healthz (one request at a time, loopback)';

const START = '2024-01-01';
const END = addDays(START, 364);
const STORED = 100;
const REQUESTS = 400;
const WARM_UP = 50;

/** STORED distinct day offsets within the year, the same every run (a linear congruential draw). */
function scatteredDays(): number[] {
  const days = new Set<number>();
  let state = 12345;
  while (days.size < STORED) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    days.add(state % 365);
  }
  return [...days].sort((a, b) => a - b);
}

async function seed(stack: TestStack, userId: string): Promise<void> {
  for (const measure of ['body_mass', 'hrv']) {
    await upsertDaily(stack.store, { userId, measure, date: addDays(START, -30), value: 70, source: 'manual' });
    for (const [index, day] of scatteredDays().entries()) {
      await upsertDaily(stack.store, { userId, measure, date: addDays(START, day), value: 60 + (index % 20), source: index % 2 ? 'manual' : 'garmin_connect' });
    }
  }
}

/** Milliseconds per request, sorted, after a warm-up; checks each answer's status and, when given, its entry count. */
async function latencies(url: string, headers: Record<string, string>, entries?: number): Promise<number[]> {
  const times: number[] = [];
  for (let k = 0; k < WARM_UP + REQUESTS; k++) {
    const started = performance.now();
    const response = await fetch(url, { headers });
    const body = await response.text();
    const elapsed = performance.now() - started;
    if (!response.ok) throw new Error(`bench: ${url} answered ${response.status}`);
    if (entries !== undefined && (JSON.parse(body) as unknown[]).length !== entries) throw new Error(`bench: ${url} answered the wrong number of entries`);
    if (k >= WARM_UP) times.push(elapsed);
  }
  return times.sort((a, b) => a - b);
}

const quantile = (sorted: number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

function figures(label: string, sorted: number[], health: number[]): string {
  const median = quantile(sorted, 0.5);
  return `${label}: median ${median.toFixed(2)} ms, p99 ${quantile(sorted, 0.99).toFixed(2)} ms, ${(median / quantile(health, 0.5)).toFixed(1)}× /healthz`;
}

export async function run(): Promise<BenchResult> {
  const stack = await startStack();
  try {
    const { userId, token } = await stack.userWithToken(['wellness:read']);
    await seed(stack, userId);
    const auth = { authorization: `Bearer ${token}` };
    const url = (measure: string) => `${stack.baseUrl}/api/v1/dailies/${measure}?start=${START}&end=${END}`;
    const health = await latencies(`${stack.baseUrl}/healthz`, {});
    const bodyMass = await latencies(url('body_mass'), auth, 365);
    const hrv = await latencies(url('hrv'), auth, 365);
    const bytes = (await (await fetch(url('body_mass'), { headers: auth })).text()).length;
    const row = (question: string, sorted: number[]): BenchRow => ({
      question, dataset: 'synthetic', figure: quantile(sorted, 0.5), unit: 'ms', anchor: quantile(health, 0.5), anchorLabel: '/healthz median',
      ratio: share(quantile(sorted, 0.5), quantile(health, 0.5), 'lower'),
    });
    const text = [
      `${REQUESTS} requests each; a body_mass answer is ${bytes} bytes`,
      `/healthz: median ${quantile(health, 0.5).toFixed(2)} ms, p99 ${quantile(health, 0.99).toFixed(2)} ms`,
      figures('body_mass (interpolated)', bodyMass, health),
      figures('hrv (stored only)', hrv, health),
    ].join('\n  ');
    return { text, rows: [row('body_mass 365 days (interpolated), median', bodyMass), row('hrv 365 days (stored only), median', hrv)] };
  } finally {
    await stack.close();
  }
}
