/**
 * Dailies (interface §4 "Dailies", gaps.md "Daily"): the checks a request's values need beyond their
 * types (a measure's valid range, the length of a range). Writing and reading are storage/dailies.ts's
 * `upsertDaily` and `readDailyRange`, the one way every writer writes and every reader (this API, the
 * metabolic map's body mass) reads.
 * Kept honest by test/gateway/dailies.test.ts.
 */
import { DAILY_MEASURES, type DailyMeasure } from '../../domain/daily-measures.js';
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
