/**
 * Provider request budgets in the store, shared by every engine: each provider app (our client id there)
 * may make `limit` calls per window, and every provider call spends one call from each of its provider's
 * windows before it is made (provider-http.ts `send`). A call that finds a window spent is not made: it
 * fails as `rate_limited` until the window resets (BudgetSpent), which the jobs turn into a wait in the
 * queue (the backfill's Throttle and the poll schedule re-queue themselves for then), never a failure.
 *
 * Windows are fixed and aligned to multiples of their length since the Unix epoch (a day window resets at
 * 00:00 UTC). One window's count is one `provider_budgets` record; a call spends from all its provider's
 * windows in one atomic batch whose updates must each match a record with room left, so concurrent engines
 * never spend more than `limit` between them. Records of past windows are removed as new ones are made.
 *
 * Deliberately not here: reading a provider's own rate headers (Wahoo's gauge, wahoo/rate-gauge.ts, still
 * stops before a 429 the provider foresees) and waiting. Kept honest by test/engine/integrations/
 * provider-budget.test.ts and test/gateway/cluster-jobs.test.ts (two engines, one budget).
 */
import type { Provider } from '../../domain/providers.js';
import { BatchConditionError, DuplicateKeyError, type ProviderBudgetRecord, type Store } from '../../storage/store.js';
import { ProviderCallError } from './provider-call-error.js';

export interface BudgetWindow {
  /** Window length, milliseconds. */
  windowMs: number;
  /** Calls the app may make in one window, all engines together. */
  limit: number;
}

const MINUTE = 60_000;
const DAY = 86_400_000;

/**
 * Each provider's per-app budget as shared/spec/providers.md states it; an operator whose app has another
 * tier sets its own (`<PREFIX>_REQUEST_BUDGET`, engine/config.ts).
 */
export const PROVIDER_BUDGETS: Record<Provider, BudgetWindow[]> = {
  // [GAR-trn] The Training API allows 3,000 calls/partner/min in production (100 at evaluation: an evaluation
  // app sets GARMIN_REQUEST_BUDGET=100/1m). [unverified] The pull endpoints have no public numbers (one
  // integrator budgets 100/min [OW]); they spend from the same budget. The per-user daily limits (1,000 in
  // production) are per user, not per app, and are left to Garmin's 429 (provider-http.ts waits ≥ 60 s).
  garmin_connect: [{ windowMs: MINUTE, limit: 3_000 }],
  // [unverified] App budgets from the app settings: 100 requests/user/day, at least 8,000 a day, the
  // 15-minute window 1/8 of that, reset 00:00 UTC. The same notes say the 15-minute window is at least 2,500,
  // which 1/8 of 8,000 is not: assume the lower, 1,000 (an app with more sets INTERVALS_ICU_REQUEST_BUDGET). The documented 10 requests/s is
  // per IP (each engine host has its own), so it is not a shared budget; a 429 for it is backed off.
  intervals_icu: [{ windowMs: 15 * MINUTE, limit: 1_000 }, { windowMs: DAY, limit: 8_000 }],
  // [WAH-doc] Production: 200 per 5 min, 1,000 per hour, 5,000 per day (a sandbox app sets
  // WAHOO_REQUEST_BUDGET=25/5m,100/1h,250/1d). assume: Wahoo's windows are aligned as ours; its rate headers still stop us early if not.
  wahoo: [{ windowMs: 5 * MINUTE, limit: 200 }, { windowMs: 60 * MINUTE, limit: 1_000 }, { windowMs: DAY, limit: 5_000 }],
};

/** A call not made because the app's budget for this window is spent: `retryAt` is the window's reset. */
export class BudgetSpent extends ProviderCallError {
  constructor(provider: Provider, retryAt: number) {
    super(provider, 'rate_limited', `${provider}: request budget spent until ${new Date(retryAt).toISOString()}`, null, retryAt);
    this.name = 'BudgetSpent';
  }
}

/** Spends one call of `provider`'s budget for `app`; throws BudgetSpent when a window has none left. */
export type SpendBudget = (provider: Provider) => Promise<void>;

/** The spender every provider context of an engine calls before a request. */
export function storeBudget(store: Store, apps: Partial<Record<Provider, string>>, budgets: Partial<Record<Provider, BudgetWindow[]>> = {}, now: () => number = Date.now): SpendBudget {
  return async (provider) => {
    const windows = budgets[provider] ?? PROVIDER_BUDGETS[provider];
    const app = apps[provider];
    if (app === undefined || windows.length === 0) return;
    await spend(store, provider, app, windows, now);
  };
}

async function spend(store: Store, provider: Provider, app: string, windows: BudgetWindow[], now: () => number): Promise<void> {
  for (;;) {
    const at = now();
    const records = windows.map((window) => windowRecord(provider, app, window, at));
    try {
      await store.batch(records.map((record) => ({
        collection: 'provider_budgets' as const, update: { id: record.id, used: { $lt: record.limit } }, change: { inc: { used: 1 } }, expect: 1,
      })));
      return;
    } catch (error) {
      if (!(error instanceof BatchConditionError)) throw error;
    }
    // A window without its record yet (the first call in it), or one spent: tell them apart.
    const stored = await Promise.all(records.map((record) => store.provider_budgets.get(record.id)));
    const spent = records.filter((record, index) => stored[index] !== null && stored[index]!.used >= record.limit);
    if (spent.length > 0) throw new BudgetSpent(provider, Math.max(...spent.map((record) => record.expires_at)));
    for (const [index, record] of records.entries()) if (stored[index] === null) await create(store, record, at);
  }
}

function windowRecord(provider: Provider, app: string, window: BudgetWindow, at: number): ProviderBudgetRecord {
  const start = Math.floor(at / window.windowMs) * window.windowMs;
  return {
    id: `${provider}:${app}:${window.windowMs}:${start}`, provider, app, window_ms: window.windowMs, window_start: start,
    used: 0, limit: window.limit, expires_at: start + window.windowMs,
  };
}

/** Makes a window's record (another engine may make it at the same time) and drops the app's past windows. */
async function create(store: Store, record: ProviderBudgetRecord, at: number): Promise<void> {
  try {
    await store.provider_budgets.insert(record);
  } catch (error) {
    if (!(error instanceof DuplicateKeyError)) throw error;
    return;
  }
  await store.provider_budgets.deleteMany({ provider: record.provider, app: record.app, expires_at: { $lte: at } });
}
