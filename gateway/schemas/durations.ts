/**
 * The `durations` query parameter of the mean-max endpoints and the intensity-duration model (interface §4
 * "Duration grids"): omitted → the 19 defaults; `all` → the full grid; otherwise comma-separated seconds.
 * The limits are the engine contract's (MAX_DURATIONS, MAX_DURATION_S).
 */
import { z } from 'zod';
import { MAX_DURATION_S, MAX_DURATIONS } from '../../engine/contract.js';
import { ValidationError } from '../errors.js';
import { queryString } from './query.js';

/** "durations: omitted → 19 defaults; all → the full grid; otherwise a comma-separated list of seconds." */
export const durationsParameter = queryString(z.string().max(20_000).regex(/^\s*(all|\d{1,9}(\s*,\s*\d{1,9})*)\s*$/, 'durations must be "all" or comma-separated whole seconds, e.g. 5,60,300'))
  .optional()
  .meta({
    description: 'Omitted: the 19 default durations. `all`: 1 s steps to 3 min, then 5 s to 10 min, 10 s to 20 min, 30 s to 60 min, 60 s beyond. Otherwise comma-separated seconds.',
    examples: ['5,60,300,1200'],
  });

/** The parameter's value as the engine takes it: [] (defaults), 'all', or the seconds; a 422 beyond the limits. */
export function requestedDurations(text: string | undefined): number[] | 'all' {
  if (text === undefined) return [];
  if (text.trim() === 'all') return 'all';
  const list = text.split(',').map((part) => Number(part.trim()));
  if (list.length > MAX_DURATIONS) throw ValidationError.single(['query', 'durations'], `at most ${MAX_DURATIONS} durations`);
  const bad = list.find((d) => d < 1 || d > MAX_DURATION_S);
  if (bad !== undefined) throw ValidationError.single(['query', 'durations'], `duration ${bad} is outside 1..${MAX_DURATION_S} seconds`);
  return list;
}
