/** A daily entry → the interface's Daily `{date, value, status, source}` (gaps.md "Daily"), every key present. */
import type { DailyEntry } from '../../domain/daily-series.js';
import type { DailySource } from '../../storage/dailies.js';

export function presentDaily(entry: DailyEntry<DailySource>) {
  return { date: entry.date, value: entry.value, status: entry.status, source: entry.source };
}
