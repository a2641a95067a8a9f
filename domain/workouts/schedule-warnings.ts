/**
 * The warnings a scheduled workout carries from the moment it is written (gaps.md response `warnings[]`):
 * no connected integration accepts workouts (stored, sent nowhere), and Wahoo's device window
 * (providers.md: "Shown on ELEMNT/RIVAL only when scheduled today to +6 days"). Warnings about how a
 * provider approximated the workout are added by the delivery (engine/workouts/). Pure; kept honest by
 * test/gateway/workouts.test.ts and test/engine/workout-translators.test.ts.
 */
import { daysBetween, localDate, todayLocal } from '../time.js';
import type { Provider } from '../providers.js';

/**
 * Integrations whose deletion of a delivered workout we call (engine/workouts/senders.ts `remove`; a test
 * keeps the two equal): Garmin documents it [GAR-trn]; intervals.icu's event deletion is [unverified];
 * providers.md documents none for Wahoo.
 */
export const REMOVABLE_WORKOUT_PROVIDERS: ReadonlySet<Provider> = new Set(['garmin_connect', 'intervals_icu']);

/** Days ahead (inclusive) that Wahoo devices show a planned workout. */
export const WAHOO_DEVICE_WINDOW_DAYS = 6;

export const NO_PROVIDER_WARNING =
  'no connected integration accepts workouts: the workout is stored but sent nowhere (connect Garmin Connect, intervals.icu or Wahoo, then schedule it again)';

export function scheduleWarnings(providers: readonly Provider[], start: number, offset: number, now: number): string[] {
  const warnings: string[] = [];
  if (providers.length === 0) warnings.push(NO_PROVIDER_WARNING);
  if (providers.includes('wahoo')) {
    const warning = wahooWindowWarning(start, offset, now);
    if (warning) warnings.push(warning);
  }
  return warnings;
}

/** The Wahoo warning when `start` (its local date at the client's offset) is outside today … today + 6 at `now`; null inside. */
export function wahooWindowWarning(start: number, offset: number, now: number): string | null {
  const date = localDate(start, offset);
  const days = daysBetween(todayLocal(now, offset), date);
  if (days >= 0 && days <= WAHOO_DEVICE_WINDOW_DAYS) return null;
  return `wahoo: Wahoo shows a planned workout on ELEMNT and RIVAL devices only from today to ${WAHOO_DEVICE_WINDOW_DAYS} days ahead; this one is on ${date}`;
}
