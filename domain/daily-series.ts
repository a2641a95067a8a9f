/**
 * One entry per date of an inclusive range from a measure's stored values (gaps.md "Daily"):
 * a stored date is `stored`; any other date is `missing` (value and source null) unless estimates are
 * asked for, when it is `estimated`: linear between the nearest stored value before and after it, held
 * beyond the first and the last. The stored values may reach outside the range, and must, to estimate a
 * gap at either end: the caller passes the nearest stored value before `start` and after `end`.
 *
 * Source of an estimate: the nearer of the two records in days; a tie goes to the earlier one (it was
 * known first). Values are not rounded. Deliberately no knowledge of which measures are estimated, nor
 * of storage. Kept honest by test/domain/daily-series.test.ts and test/gateway/dailies.test.ts.
 */
import { dateToEpochDay, epochDayToDate } from './time.js';

export interface StoredDaily<S extends string> {
  date: string;
  value: number;
  source: S;
}

export type DailyStatus = 'stored' | 'estimated' | 'missing';

export interface DailyEntry<S extends string> {
  date: string;
  value: number | null;
  status: DailyStatus;
  source: S | null;
}

/**
 * `stored`: ascending by date, one per date, anywhere in time. `start` ≤ `end`, both valid dates.
 * Runs in O(days + stored values).
 */
export function dailySeries<S extends string>(stored: readonly StoredDaily<S>[], start: string, end: string, estimate: boolean): DailyEntry<S>[] {
  const first = dateToEpochDay(start);
  const last = dateToEpochDay(end);
  const days = stored.map((record) => dateToEpochDay(record.date));
  const entries: DailyEntry<S>[] = [];
  // `next`: index of the first stored value on or after `day`; stored[next - 1] is the last before it.
  let next = 0;
  for (let day = first; day <= last; day++) {
    while (next < days.length && days[next]! < day) next++;
    const date = epochDayToDate(day);
    if (next < days.length && days[next] === day) {
      const record = stored[next]!;
      entries.push({ date, value: record.value, status: 'stored', source: record.source });
    } else if (estimate && days.length > 0) {
      entries.push({ date, ...estimated(stored, days, next, day), status: 'estimated' });
    } else {
      entries.push({ date, value: null, status: 'missing', source: null });
    }
  }
  return entries;
}

/** The estimate for `day`, which has no stored value; `next` as in dailySeries, at least one stored value. */
function estimated<S extends string>(stored: readonly StoredDaily<S>[], days: readonly number[], next: number, day: number): { value: number; source: S } {
  const before = next > 0 ? stored[next - 1]! : null;
  const after = next < stored.length ? stored[next]! : null;
  // "held beyond them"
  if (!after) return { value: before!.value, source: before!.source };
  if (!before) return { value: after.value, source: after.source };
  const from = days[next - 1]!;
  const to = days[next]!;
  // "interpolated linearly between the nearest stored values"
  const value = before.value + ((after.value - before.value) * (day - from)) / (to - from);
  return { value, source: day - from <= to - day ? before.source : after.source };
}
