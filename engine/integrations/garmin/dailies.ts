/**
 * Garmin Health API records → daily values (providers.md §1 "Dailies and wellness", [GAR-hlth]):
 * `bodyComps.weightInGrams` ÷ 1000 → body_mass (kg), `bodyComps.bodyFatInPercent` → body_fat_pct,
 * `dailies.restingHeartRateInBeatsPerMinute` → resting_hr, `hrv.lastNightAvg` → hrv (RMSSD; ms assumed —
 * Garmin's sample shows no unit), `sleeps.durationInSeconds` → sleep_duration (s). The day is the record's
 * `calendarDate`; bodyComps carry none, so theirs is the local date of `measurementTimeInSeconds` +
 * `measurementTimeOffsetInSeconds`.
 *
 * Garmin re-sends a record as it grows (same start, longer duration): the newer value replaces the stored
 * one (upsertDaily replaces a provider value), never adds to it. Known limit: a re-delivery of an older,
 * shorter copy after the longer one would replace it too — within one body notifications.ts keeps the
 * longer. Kept honest by test/engine/integrations/garmin-dailies.test.ts.
 */
import type { ImportedDaily } from '../daily-import.js';
import type { GarminRecord } from './notifications.js';

export function garminDailiesOf(type: string, record: GarminRecord): ImportedDaily[] {
  switch (type) {
    case 'bodyComps': {
      const date = localDateOf(record.measurementTimeInSeconds, record.measurementTimeOffsetInSeconds) ?? calendarDateOf(record);
      if (date === null) return [];
      const out: ImportedDaily[] = [];
      const grams = numberOf(record.weightInGrams);
      if (grams !== null) out.push({ measure: 'body_mass', date, value: grams / 1000 });
      const fat = numberOf(record.bodyFatInPercent);
      if (fat !== null) out.push({ measure: 'body_fat_pct', date, value: fat });
      return out;
    }
    case 'dailies':
      return one('resting_hr', calendarDateOf(record), numberOf(record.restingHeartRateInBeatsPerMinute));
    case 'hrv':
      return one('hrv', calendarDateOf(record), numberOf(record.lastNightAvg));
    case 'sleeps':
      return one('sleep_duration', calendarDateOf(record), numberOf(record.durationInSeconds));
    default:
      return [];
  }
}

function one(measure: ImportedDaily['measure'], date: string | null, value: number | null): ImportedDaily[] {
  return date === null || value === null ? [] : [{ measure, date, value }];
}

function calendarDateOf(record: GarminRecord): string | null {
  const date = record.calendarDate;
  return typeof date === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(date) ? date : null;
}

/** `YYYY-MM-DD` of a Unix-seconds instant shifted by its UTC offset in seconds. */
function localDateOf(seconds: unknown, offsetSeconds: unknown): string | null {
  const at = numberOf(seconds);
  if (at === null) return null;
  return new Date((at + (numberOf(offsetSeconds) ?? 0)) * 1000).toISOString().slice(0, 10);
}

function numberOf(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}
