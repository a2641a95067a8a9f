/**
 * Daily values a provider import writes: `{measure, date, value}` after a provider's mapping (garmin/
 * dailies.ts, wahoo/dailies.ts), written one by one through storage/dailies.ts `upsertDaily` — the one
 * write every daily writer uses, which never lets an import overwrite a `manual` value. A value outside
 * the measure's valid range (gaps.md "Daily") is dropped, as the API would refuse it with a 422.
 * Kept honest by test/engine/integrations/garmin-dailies.test.ts.
 */
import { DAILY_MEASURES, type DailyMeasure } from '../../domain/daily-measures.js';
import type { Provider } from '../../domain/providers.js';
import { upsertDaily } from '../../storage/dailies.js';
import type { Store } from '../../storage/store.js';

export interface ImportedDaily {
  measure: DailyMeasure;
  /** Local calendar date `YYYY-MM-DD`. */
  date: string;
  /** In the measure's unit (domain/daily-measures.ts): kg, %, bpm, ms, s. */
  value: number;
}

export interface DailyImportOutcome {
  written: number;
  /** Dates whose manual value stayed. */
  keptManual: number;
  /** Values outside the measure's range. */
  dropped: number;
}

export function inRange(daily: ImportedDaily): boolean {
  const spec = DAILY_MEASURES[daily.measure];
  return Number.isFinite(daily.value) && daily.value >= spec.min && daily.value <= spec.max && /^\d{4}-\d{2}-\d{2}$/.test(daily.date);
}

export async function writeImportedDailies(store: Store, userId: string, source: Provider, dailies: readonly ImportedDaily[], now = Date.now()): Promise<DailyImportOutcome> {
  const outcome: DailyImportOutcome = { written: 0, keptManual: 0, dropped: 0 };
  for (const daily of dailies) {
    if (!inRange(daily)) {
      outcome.dropped += 1;
      continue;
    }
    const { written } = await upsertDaily(store, { userId, measure: daily.measure, date: daily.date, value: daily.value, source }, now);
    if (written) outcome.written += 1;
    else outcome.keptManual += 1;
  }
  return outcome;
}
