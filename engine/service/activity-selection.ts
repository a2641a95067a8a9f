/**
 * Which of a user's activities a longitudinal call covers (interface §4): sport containment ("a parent
 * sport matches sub-sports") and the activity's own local date in [start, end]. Shared by the
 * longitudinal series, mean-max and AWD handlers.
 */
import { status } from '@grpc/grpc-js';
import { canonicalSport, sportMatchesAny, sportStorePrefix } from '../../domain/sport.js';
import { parseDate } from '../../domain/time.js';
import type { ActivityRecord, Filter, Store } from '../../storage/store.js';
import { EngineError } from '../errors.js';

export interface Selection {
  /** Canonical filters; empty = every sport. */
  sports: string[];
  /** Inclusive local dates; null = unbounded on that side. */
  startDate: string | null;
  endDate: string | null;
}

/** Reads and checks the sports and dates of a request; `requireSport` makes an empty sport list INVALID_ARGUMENT. */
export function selectionOf(
  request: { sports?: string[]; start_date?: string; end_date?: string }, subsystem: string, options: { requireSport: boolean },
): Selection {
  const sports = sportFilters(request.sports ?? [], subsystem);
  if (options.requireSport && sports.length === 0) throw new EngineError(status.INVALID_ARGUMENT, `${subsystem}: at least one sport is required`);
  const startDate = optionalDate(request.start_date, 'start_date', subsystem);
  const endDate = optionalDate(request.end_date, 'end_date', subsystem);
  if (startDate !== null && endDate !== null && startDate > endDate) {
    throw new EngineError(status.INVALID_ARGUMENT, `${subsystem}: start_date ${startDate} is after end_date ${endDate}`);
  }
  return { sports, startDate, endDate };
}

/**
 * The fields of an activity a longitudinal call reads: never the whole record (summaries, laps and listings
 * stay in the store), so a call over 3,000 activities reads a few hundred kilobytes, not ten megabytes.
 */
export const SELECTED_FIELDS = [
  'id', 'user_id', 'sport', 'start', 'offset', 'local_date', 'duration_s', 'series_key', 'analysis_key', 'analysis_version',
] as const satisfies readonly (keyof ActivityRecord)[];

/** An activity as a longitudinal call reads it (SELECTED_FIELDS). */
export type SelectedActivity = Pick<ActivityRecord, (typeof SELECTED_FIELDS)[number]>;

/** The user's activities matching the selection, oldest first, as SELECTED_FIELDS. */
export async function matchingActivities(store: Store, userId: string, selection: Selection): Promise<SelectedActivity[]> {
  const found = await store.activities.findFields(selectionFilter(userId, selection), SELECTED_FIELDS, { sort: { start: 1 } });
  // The prefix pre-selects (`cycling` also admits `cycling_x`); containment decides, once per distinct sport.
  if (selection.sports.length === 0) return found;
  const contained = new Map<string, boolean>();
  return found.filter((record) => {
    let matches = contained.get(record.sport);
    if (matches === undefined) contained.set(record.sport, matches = sportMatchesAny(record.sport, selection.sports));
    return matches;
  });
}

/** The store filter that pre-selects the selection's activities (sport by prefix, the local dates). */
export function selectionFilter(userId: string, selection: Selection): Filter<ActivityRecord> {
  const { sports, startDate, endDate } = selection;
  const filter: Filter<ActivityRecord> = { user_id: userId };
  if (sports.length > 0) {
    const prefixes = [...new Set(sports.map((sport) => sportStorePrefix(sport)!))];
    filter.$or = prefixes.map((prefix) => ({ sport: { $prefix: prefix } }));
  }
  if (startDate !== null || endDate !== null) {
    filter.local_date = { ...(startDate !== null && { $gte: startDate }), ...(endDate !== null && { $lte: endDate }) };
  }
  return filter;
}

function sportFilters(sports: string[], subsystem: string): string[] {
  return sports.map((sport) => {
    const canonical = canonicalSport(sport);
    if (canonical === null) throw new EngineError(status.INVALID_ARGUMENT, `${subsystem}: '${sport}' is not a valid Open Sport Taxonomy sport`);
    return canonical;
  });
}

function optionalDate(value: string | undefined, field: string, subsystem: string): string | null {
  if (value === undefined || value === '') return null;
  if (parseDate(value) === null) throw new EngineError(status.INVALID_ARGUMENT, `${subsystem}: ${field} '${value}' is not a date (YYYY-MM-DD)`);
  return value;
}
