/**
 * The provider request budget in the store (engine/integrations/provider-budget.ts): two store handles on
 * one SQLite file (as two engines hold them) spending at once never pass the limit between them, a spent
 * window names its reset, a new window starts afresh, and every window of the provider must have room.
 * A provider call that finds the budget spent is not made (provider-http.ts `send`).
 */
import { test } from '../../support/uvu.js';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { BudgetSpent, storeBudget } from '../../../engine/integrations/provider-budget.js';
import { send } from '../../../engine/integrations/provider-http.js';
import { frameworkErrorOf } from '../../../engine/integrations/provider-call-error.js';
import { RateLimited } from '../../../engine/integrations/provider.js';
import { openStore } from '../../../storage/open-store.js';
import type { Store } from '../../../storage/store.js';
import { tempDir } from '../../support/stack.js';

const MINUTE = 60_000;
let dataDir: string;
let stores: Store[];

test.before.each(async () => {
  dataDir = tempDir();
  const file = path.join(dataDir, 'threshold.sqlite');
  stores = [await openStore({ mongodbUri: null, sqliteFile: file }), await openStore({ mongodbUri: null, sqliteFile: file })];
});

test.after.each(async () => {
  for (const store of stores) await store.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** Spends once; 'ok', or the reset a BudgetSpent names. */
async function attempt(spend: ReturnType<typeof storeBudget>): Promise<'ok' | number> {
  try {
    await spend('wahoo');
    return 'ok';
  } catch (error) {
    if (!(error instanceof BudgetSpent)) throw error;
    return error.retryAt!;
  }
}

test('two store handles spending at once allow exactly the limit between them; the rest learn when the window resets', async () => {
  const now = 10 * MINUTE + 1234;
  const spenders = stores.map((store) => storeBudget(store, { wahoo: 'app-1' }, { wahoo: [{ windowMs: MINUTE, limit: 7 }] }, () => now));
  const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => attempt(spenders[i % 2]!)));
  assert.is(outcomes.filter((outcome) => outcome === 'ok').length, 7);
  assert.ok(outcomes.filter((outcome) => outcome !== 'ok').every((outcome) => outcome === 11 * MINUTE), 'spent until the minute ends');
  assert.is((await stores[0]!.provider_budgets.findOne({ app: 'app-1' }))!.used, 7);
});

test('a new window starts afresh and the past one is dropped; another app has its own budget', async () => {
  let now = 5 * MINUTE;
  const clock = () => now;
  const budgets = { wahoo: [{ windowMs: MINUTE, limit: 1 }] };
  const first = storeBudget(stores[0]!, { wahoo: 'app-1' }, budgets, clock);
  assert.is(await attempt(first), 'ok');
  assert.is(await attempt(first), 6 * MINUTE);
  assert.is(await attempt(storeBudget(stores[1]!, { wahoo: 'app-2' }, budgets, clock)), 'ok', 'budgets are per app');
  now = 6 * MINUTE;
  assert.is(await attempt(storeBudget(stores[1]!, { wahoo: 'app-1' }, budgets, clock)), 'ok');
  assert.equal((await stores[0]!.provider_budgets.find({ app: 'app-1' })).map((record) => record.window_start), [6 * MINUTE]);
});

test('every window must have room: a spent day stops calls although the minute has some', async () => {
  let now = 0;
  const spend = storeBudget(stores[0]!, { wahoo: 'app-1' }, { wahoo: [{ windowMs: MINUTE, limit: 2 }, { windowMs: 1440 * MINUTE, limit: 3 }] }, () => now);
  assert.is(await attempt(spend), 'ok');
  assert.is(await attempt(spend), 'ok');
  assert.is(await attempt(spend), MINUTE);
  now = MINUTE;
  assert.is(await attempt(spend), 'ok');
  assert.is(await attempt(spend), 1440 * MINUTE, 'the day is spent');
  const minute = await stores[0]!.provider_budgets.findOne({ window_ms: MINUTE });
  assert.is(minute!.used, 1, 'a refused call spends nothing of the windows that had room');
});

test('a provider call that finds the budget spent is not made, and the framework sees a wait to queue, not a failure', async () => {
  let calls = 0;
  const spend = storeBudget(stores[0]!, { wahoo: 'app-1' }, { wahoo: [{ windowMs: MINUTE, limit: 1 }] });
  const context = { provider: 'wahoo' as const, fetch: (async () => { calls++; return new Response('{}'); }) as typeof fetch, now: Date.now, timeoutMs: 1000, rateLimitFloorMs: null, spend };
  assert.is((await send(context, 'http://127.0.0.1:9/v1/user')).status, 200);
  const error = await send(context, 'http://127.0.0.1:9/v1/user').then(() => null, (thrown: unknown) => thrown);
  assert.instance(error, BudgetSpent);
  assert.is(calls, 1);
  const framework = frameworkErrorOf(error);
  assert.instance(framework, RateLimited);
  assert.is((framework as RateLimited).daily, true, 'queued until the reset, as a spent daily quota is');
});

test.run();
