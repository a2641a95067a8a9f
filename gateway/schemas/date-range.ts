/**
 * An optional inclusive date range over a record's own `date` (`YYYY-MM-DD`), as the profile lists take
 * it (markers, max efforts): either bound may be absent; a start after the end is a 422.
 */
import { dateSchema } from '../../domain/time.js';
import { ValidationError } from '../errors.js';
import { queryString } from './query.js';

export const dateRangeParameters = {
  start: queryString(dateSchema).optional().describe('Earliest date (inclusive)'),
  end: queryString(dateSchema).optional().describe('Latest date (inclusive)'),
};

interface DateRange {
  start?: string | undefined;
  end?: string | undefined;
}

/** 422 when the start is after the end. */
export function checkDateRange(range: DateRange): void {
  if (range.start && range.end && range.start > range.end) throw ValidationError.single(['query', 'start'], `start ${range.start} is after end ${range.end}`);
}

/** The store condition on `date` for the range (checked), or undefined when unbounded. */
export function dateCondition(range: DateRange): { $gte?: string; $lte?: string } | undefined {
  checkDateRange(range);
  if (!range.start && !range.end) return undefined;
  return { ...(range.start && { $gte: range.start }), ...(range.end && { $lte: range.end }) };
}
