/**
 * Question: what does authentication (RS256 verification + the liveness checks in the store) add to a
 * request? Compares an authenticated list of activities with the unauthenticated /healthz, both served
 * by the real stack on loopback, under the same concurrent load (a bounded loop of fetches).
 */
import { startStack } from '../test/support/stack.js';
import { share, type BenchResult } from './results.js';

export const question = 'Authenticated request vs /healthz on the real stack (32 concurrent clients, loopback)';

const REQUESTS = 4000;
const CONCURRENCY = 32;

async function load(url: string, headers: Record<string, string>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < REQUESTS) {
        const response = await fetch(url, { headers });
        await response.arrayBuffer();
        if (!response.ok) throw new Error(`bench: ${url} answered ${response.status}`);
      }
    }),
  );
  return REQUESTS / ((performance.now() - started) / 1000);
}

export async function run(): Promise<BenchResult> {
  const stack = await startStack();
  try {
    const { token } = await stack.userWithToken(['activities:read']);
    await load(`${stack.baseUrl}/healthz`, {}); // warm-up
    const health = await load(`${stack.baseUrl}/healthz`, {});
    const authed = await load(`${stack.baseUrl}/api/v1/activities/`, { authorization: `Bearer ${token}` });
    return {
      text: `healthz ${health.toFixed(0)} req/s, authenticated list ${authed.toFixed(0)} req/s, ratio ${(authed / health).toFixed(2)}`,
      rows: [{
        question: `authenticated list (empty), ${CONCURRENCY} clients`, dataset: 'synthetic', figure: authed, unit: 'req/s',
        anchor: health, anchorLabel: '/healthz', ratio: share(authed, health, 'higher'),
      }],
    };
  } finally {
    await stack.close();
  }
}
