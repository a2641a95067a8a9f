/**
 * Dailies (interface §4 "Dailies", gaps.md "Daily"): the checks a request's values need beyond their
 * types (a measure's valid range, the length of a range) and reading a range with what estimating it
 * needs. Writing is storage/dailies.ts's `upsertDaily`, the one function every writer uses.
 * Kept honest by test/gateway/dailies.test.ts.
 */
import type { Store } from '../../storage/store.js';
import type { DailySource } from '../../storage/dailies.js';
import { DAILY_MEASURES, type DailyMeasure } from '../../domain/daily-measures.js';
import { dailySeries, type DailyEntry } from '../../domain/daily-series.js';
import { daysBetween } from '../../domain/time.js';
import { ValidationError } from '../errors.js';

/** Longest range a GET may ask for, days (both ends included): ten years and then some. */
export const MAX_RANGE_DAYS = 3660;

/** "Measures and valid ranges (inclusive; outside → 422)", in pydantic's words. */
export function checkDailyValue(measure: DailyMeasure, value: number): void {
  const { min, max, unit } = DAILY_MEASURES[measure];
  if (value < min) throw ValidationError.single(['body', 'value'], `Input should be greater than or equal to ${min} (${measure}, ${unit})`, 'greater_than_equal');
  if (value > max) throw ValidationError.single(['body', 'value'], `Input should be less than or equal to ${max} (${measure}, ${unit})`, 'less_than_equal');
}

/** `end` before `start`, or a range longer than MAX_RANGE_DAYS, is a 422. */
export function checkDailyRange(start: string, end: string): void {
  const days = daysBetween(start, end) + 1;
  if (days < 1) throw ValidationError.single(['query', 'end'], `end ${end} is before start ${start}`);
  if (days > MAX_RANGE_DAYS) {
    throw ValidationError.single(['query', 'end'], `the range may span at most ${MAX_RANGE_DAYS} days; ${start} to ${end} spans ${days}`);
  }
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
