/**
 * What every decoder (CSV, FIT) yields for a file: one entry per activity in it, each with its
 * recorded series in canonical columns (series.ts), the lap boundaries the file recorded and the
 * devices it names. Summaries and lap statistics are computed from these columns afterwards
 * (kernels/summary.ts), never taken from the file's own summary messages.
 */
import type { RecordedSeries } from './series.js';

export interface DecodedActivity {
  /** Canonical Open Sport Taxonomy string. */
  sport: string;
  /** First and last kept sample, UTC epoch milliseconds. */
  start: number;
  end: number;
  /** UTC offset of the activity's start, minutes east of UTC (0 when the file carries none). */
  offset: number;
  series: RecordedSeries;
  /** Lap boundaries as recorded, UTC epoch milliseconds, in order; empty when the file has none. */
  laps: { start: number; end: number }[];
  /** Devices that recorded it, e.g. "Garmin fenix 5"; empty when unknown. */
  devices: string[];
}

export interface DecodedFile {
  activities: DecodedActivity[];
  /** Problems that did not fail the file (salvaged data, dropped rows, unknown columns). */
  warnings: string[];
}
