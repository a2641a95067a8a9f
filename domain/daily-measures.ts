/**
 * The daily measures (gaps.md "Daily"): their names, units, valid ranges (inclusive; outside → 422) and
 * whether a missing day may be estimated from the stored values around it. Data only: who may read a
 * measure (scopes) is the gateway's business (gateway/routes/dailies.ts).
 */

export interface DailyMeasureSpec {
  unit: string;
  /** Smallest valid value, inclusive. */
  min: number;
  /** Largest valid value, inclusive. */
  max: number;
  /** "body_mass, body_fat_pct, resting_hr are interpolated …; the other measures are never interpolated". */
  interpolated: boolean;
}

export const DAILY_MEASURES = {
  body_mass: { unit: 'kg', min: 0, max: 500, interpolated: true },
  body_fat_pct: { unit: '%', min: 0, max: 100, interpolated: true },
  resting_hr: { unit: 'bpm', min: 0, max: 250, interpolated: true },
  hrv: { unit: 'ms', min: 0, max: 500, interpolated: false },
  sleep_duration: { unit: 's', min: 0, max: 86_400, interpolated: false },
  sleep_altitude: { unit: 'm', min: 0, max: 10_000, interpolated: false },
  menstrual_cycle_day: { unit: 'day', min: 0, max: 100, interpolated: false },
} as const satisfies Record<string, DailyMeasureSpec>;

export type DailyMeasure = keyof typeof DAILY_MEASURES;

export const DAILY_MEASURE_NAMES = Object.keys(DAILY_MEASURES) as [DailyMeasure, ...DailyMeasure[]];
