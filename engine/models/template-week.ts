/**
 * The template week (ANALYTICS.md §9; interface §2 "Template week": keys monday … sunday, each
 * `{sports, avg_training_duration, typical_training_duration}`, durations ISO 8601 per gaps).
 *
 * Window: the 12 complete local ISO weeks before the week containing `date` — Monday 84 days before that
 * week's Monday through the Sunday just before it. Activities outside it are ignored, so a caller may pass
 * more. An activity belongs to the weekday of its own `local_date` (storage ActivityRecord.local_date, the
 * local calendar date of its start).
 * - `avg_training_duration`: the mean over the 12 weeks of that weekday's summed `duration_s`, zero days
 *   included.
 * - `typical_training_duration`: the median of the same 12 values; with an even count the median is the
 *   mean of the two middle values (the 6th and 7th smallest). So a weekday trained in fewer than half the
 *   weeks (≥ 7 zero days) has a typical duration of zero; trained in exactly half, it is half the shortest
 *   trained day.
 * - `sports`: the sports (as recorded, subsport and modifiers included) done on that weekday in at least a
 *   third of the weeks (≥ 4 of 12; a week counts once however many activities it had), most weeks first;
 *   ties: more total time on that weekday first, then code-unit order of the name.
 * Durations are rounded to whole seconds before formatting (`PT1H30M`, `PT0S`). No history → every day
 * `[]` and `PT0S`.
 *
 * Pure. Not here: reading activities. Kept honest by test/engine/models/template-week.test.ts.
 */
import { addDays, daysBetween, dateToEpochDay, formatDuration } from '../../domain/time.js';

/** The weeks the template is built from. */
export const TEMPLATE_WEEKS = 12;

export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** What the template needs of an activity (fields of storage's ActivityRecord). */
export interface TemplateActivity {
  /** Local calendar date of the start, `YYYY-MM-DD`. */
  local_date: string;
  /** Recorded time, s. */
  duration_s: number;
  /** Canonical sport string. */
  sport: string;
}

export interface TemplateDay {
  sports: string[];
  /** ISO 8601 duration. */
  avg_training_duration: string;
  /** ISO 8601 duration. */
  typical_training_duration: string;
}

export type TemplateWeek = Record<Weekday, TemplateDay>;

/** The first and last local dates (inclusive) of the 12 complete ISO weeks before the week of `date`. */
export function templateWindow(date: string): { start: string; end: string } {
  const monday = addDays(date, -isoWeekdayIndex(date));
  return { start: addDays(monday, -7 * TEMPLATE_WEEKS), end: addDays(monday, -1) };
}

/** The template week of `activities` as of `date` (`YYYY-MM-DD`). */
export function templateWeek(activities: readonly TemplateActivity[], date: string): TemplateWeek {
  const { start, end } = templateWindow(date);
  // seconds[weekday][week] and, per weekday, sport → the set of weeks it was done in and its total time.
  const seconds = WEEKDAYS.map(() => new Float64Array(TEMPLATE_WEEKS));
  const sports = WEEKDAYS.map(() => new Map<string, { weeks: Set<number>; seconds: number }>());
  for (const activity of activities) {
    if (activity.local_date < start || activity.local_date > end) continue;
    const offset = daysBetween(start, activity.local_date);
    const week = Math.floor(offset / 7);
    const weekday = offset % 7;
    seconds[weekday]![week]! += activity.duration_s;
    const tally = sports[weekday]!.get(activity.sport) ?? { weeks: new Set<number>(), seconds: 0 };
    tally.weeks.add(week);
    tally.seconds += activity.duration_s;
    sports[weekday]!.set(activity.sport, tally);
  }
  const template = {} as TemplateWeek;
  WEEKDAYS.forEach((name, weekday) => {
    const days = seconds[weekday]!;
    template[name] = {
      sports: [...sports[weekday]!]
        .filter(([, tally]) => tally.weeks.size * 3 >= TEMPLATE_WEEKS) // "in at least a third of the weeks"
        .sort(([nameA, a], [nameB, b]) => b.weeks.size - a.weeks.size || b.seconds - a.seconds || (nameA < nameB ? -1 : 1))
        .map(([sport]) => sport),
      avg_training_duration: formatDuration(Math.round(mean(days))),
      typical_training_duration: formatDuration(Math.round(median(days))),
    };
  });
  return template;
}

/** 0 for Monday … 6 for Sunday (1970-01-01, epoch day 0, was a Thursday). */
function isoWeekdayIndex(date: string): number {
  return (((dateToEpochDay(date) + 3) % 7) + 7) % 7;
}

function mean(values: Float64Array): number {
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i]!;
  return sum / values.length;
}

/** The middle value; with an even count, the mean of the two middle values. */
export function median(values: Float64Array): number {
  const sorted = Float64Array.from(values).sort();
  const half = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[half]! : (sorted[half - 1]! + sorted[half]!) / 2;
}
