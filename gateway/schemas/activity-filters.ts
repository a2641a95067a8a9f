/**
 * Activity filters shared by the list and longitudinal endpoints (interface §4): the sport filters
 * (repeated `sport`, the deprecated comma-joined `sports`), the local-date range (`start`, `end`
 * defaulting to today) and the deprecated `date` + `window_days` that mean the window of that many days
 * ending on `date`.
 */
import { z } from 'zod';
import { addDays, dateSchema } from '../../domain/time.js';
import { canonicalSport } from '../../domain/sport.js';
import { ValidationError } from '../errors.js';
import { queryArray, queryInt, queryString } from './query.js';

export const sportParameters = {
  sport: queryArray(z.string().min(1).max(200)).optional()
    .meta({ description: 'Repeated; match any. A parent sport also matches its sub-sports', examples: [['cycling']] }),
  sports: queryString(z.string().max(2000)).optional().meta({ deprecated: true, description: 'Deprecated: comma-separated sports; use repeated sport' }),
};

export const rangeParameters = {
  start: queryString(dateSchema).optional().meta({ description: "Earliest local date of an activity's start (inclusive)", examples: ['2026-01-01'] }),
  end: queryString(dateSchema).optional().meta({ description: "Latest local date of an activity's start (inclusive); default today (UTC)", examples: ['2026-03-31'] }),
};

export const deprecatedWindowParameters = {
  date: queryString(dateSchema).optional().meta({ deprecated: true, description: 'Deprecated: the last day of the window (use end)' }),
  window_days: queryInt({ min: 1, max: 36_600 }).optional().meta({ deprecated: true, description: 'Deprecated: days in the window ending on date (use start)' }),
};

/** Repeated `sport` plus the deprecated comma-separated `sports`, canonicalised (legacy names mapped). */
export function sportFilters(sport: string[], sports: string | undefined): string[] {
  const raw = [...sport, ...(sports ? sports.split(',').map((part) => part.trim()).filter(Boolean) : [])];
  return raw.map((value, index) => {
    const canonical = canonicalSport(value);
    if (canonical === null) {
      throw ValidationError.single(['query', index < sport.length ? 'sport' : 'sports'], `'${value}' is not a valid Open Sport Taxonomy sport`);
    }
    return canonical;
  });
}

/** The canonical sport filters; `required` makes none a 422 `Field required` on `sport`. */
export function requestedSports(input: { sport?: string[] | undefined; sports?: string | undefined }, required: boolean): string[] {
  const sports = sportFilters(input.sport ?? [], input.sports);
  if (required && sports.length === 0) throw ValidationError.single(['query', 'sport'], 'Field required', 'missing');
  return sports;
}

export interface DateRange {
  /** Inclusive; null = unbounded. */
  start: string | null;
  end: string;
}

/**
 * `start`/`end` win over the deprecated pair; `end` defaults to `date`, then today (UTC); without `start`,
 * `window_days` counts back from `end`. A start after the end is a 422.
 */
export function requestedRange(input: { start?: string | undefined; end?: string | undefined; date?: string | undefined; window_days?: number | undefined }): DateRange {
  const end = input.end ?? input.date ?? new Date().toISOString().slice(0, 10);
  const start = input.start ?? (input.window_days !== undefined ? addDays(end, -(input.window_days - 1)) : null);
  if (start !== null && start > end) throw ValidationError.single(['query', 'start'], `start ${start} is after end ${end}`);
  return { start, end };
}
