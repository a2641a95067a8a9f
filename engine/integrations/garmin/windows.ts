/**
 * Time windows Garmin accepts, in Unix SECONDS (milliseconds → 400): pulls cover ≤ 24 h by upload time
 * [GAR-act]; backfill requests cover ≤ 30 days for activities and ≤ 90 days for Health API types
 * [GAR-act][GAR-hlth]. Windows are listed newest first, because a backfill loads history newest to oldest
 * (interface §1). Half-open [start, end). Kept honest by test/engine/integrations/garmin-windows.test.ts.
 */
export interface SecondsWindow {
  start: number;
  end: number;
}

export const DAY_SECONDS = 86_400;
export const PULL_WINDOW_SECONDS = DAY_SECONDS;
export const ACTIVITY_BACKFILL_WINDOW_SECONDS = 30 * DAY_SECONDS;
export const HEALTH_BACKFILL_WINDOW_SECONDS = 90 * DAY_SECONDS;

export const toUnixSeconds = (ms: number): number => Math.floor(ms / 1000);

/** [startSec, endSec) cut into windows of at most `width` seconds, newest first. */
export function windowsNewestFirst(startSec: number, endSec: number, width: number): SecondsWindow[] {
  if (!Number.isInteger(startSec) || !Number.isInteger(endSec) || !(width > 0)) throw new RangeError('garmin windows: whole seconds and a positive width');
  const windows: SecondsWindow[] = [];
  for (let end = endSec; end > startSec; end -= width) windows.push({ start: Math.max(startSec, end - width), end });
  return windows;
}
