/**
 * Writing a daily value, the one way every writer does it, and reading a range as `GET /dailies` answers it
 * (`readDailyRange`: stored, estimated or missing per date), the one way every reader does it — the API and
 * the metabolic map's body mass (ANALYTICS.md §7 "the one GET /dailies/body_mass gives"). Writing: the
 * API (source `manual`) and, later, provider imports (`garmin_connect`, `intervals_icu`, `wahoo`). Interface §2 "Daily": "A value set
 * through the API is never overwritten by an integration import" — so a provider value never replaces a
 * `manual` one, while a manual value replaces anything and a provider value replaces another provider's.
 * The rule holds under concurrent writers: the replacing write is conditional on the source it read.
 * Deliberately no range checks (the caller validates the value for its measure). Kept honest by
 * test/storage/dailies.test.ts.
 */
import type { DailyRecord, Store } from './store.js';
import { newId } from './ids.js';
import { DAILY_MEASURES, type DailyMeasure } from '../domain/daily-measures.js';
import { dailySeries, type DailyEntry } from '../domain/daily-series.js';

export type DailySource = DailyRecord['source'];

export const DAILY_SOURCES = ['manual', 'garmin_connect', 'intervals_icu', 'wahoo'] as const satisfies readonly DailySource[];

export interface DailyWrite {
  userId: string;
  measure: string;
  /** Local calendar date `YYYY-MM-DD`. */
  date: string;
  value: number;
  source: DailySource;
}

/** `written` false: a provider value met a manual one, which stays (`record` is what is stored). */
export type DailyWriteOutcome = { written: boolean; record: DailyRecord };

/** Attempts before giving up on a record that keeps changing under us (each loses only to another writer). */
const ATTEMPTS = 20;

/** Creates or replaces the value of one measure on one date, unless a provider value would replace a manual one. */
export async function upsertDaily(store: Store, write: DailyWrite, now = Date.now()): Promise<DailyWriteOutcome> {
  const key = { user_id: write.userId, measure: write.measure, date: write.date };
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const fresh: DailyRecord = { id: newId(), ...key, value: write.value, source: write.source, created_at: now, updated_at: now };
    const outcome = await store.dailies.insertIfAbsent(fresh, ['user_id', 'measure', 'date']);
    if (outcome.inserted) return { written: true, record: outcome.doc };
    const existing = outcome.existing;
    if (existing.source === 'manual' && write.source !== 'manual') return { written: false, record: existing };
    // Conditional on the source read: a manual write landing in between makes a provider write try again.
    const replaced = await store.dailies.updateOne(
      { id: existing.id, user_id: existing.user_id, source: existing.source },
      { set: { value: write.value, source: write.source, updated_at: Math.max(now, existing.updated_at + 1) } },
    );
    if (replaced) return { written: true, record: replaced };
  }
  throw new Error(`dailies: ${write.measure} on ${write.date} kept changing during ${ATTEMPTS} attempts to write it`);
}

const FIELDS = ['date', 'value', 'source'] as const;

/**
 * One entry per date from `start` to `end`. With `interpolate` on an interpolated measure, the nearest
 * stored value before `start` and after `end` are read too, so gaps at either end are estimated.
 */
export async function readDailyRange(store: Store, userId: string, measure: DailyMeasure, start: string, end: string, interpolate: boolean): Promise<DailyEntry<DailySource>[]> {
  const estimate = interpolate && DAILY_MEASURES[measure].interpolated;
  const owner = { user_id: userId, measure };
  const within = store.dailies.findFields({ ...owner, date: { $gte: start, $lte: end } }, FIELDS, { sort: { date: 1 } });
  if (!estimate) return dailySeries(await within, start, end, false);
  const [before, inside, after] = await Promise.all([
    store.dailies.findFields({ ...owner, date: { $lt: start } }, FIELDS, { sort: { date: -1 }, limit: 1 }),
    within,
    store.dailies.findFields({ ...owner, date: { $gt: end } }, FIELDS, { sort: { date: 1 }, limit: 1 }),
  ]);
  return dailySeries([...before, ...inside, ...after], start, end, true);
}
