/**
 * Marker records → the marker row of gaps.md "Markers": `{id, sport, marker, metric, value, date,
 * provenance, pinned, source, application_id, activity_id, created_at}`, every key present. Explicit
 * field list: `user_id` and `test_id` stay inside. Rows measured by a test come through here too
 * (services/measured-markers.ts builds them as records).
 */
import { z } from 'zod';
import { named } from '../schemas/components.js';
import type { MarkerRecord } from '../../storage/store.js';
import { formatUtc } from '../../domain/time.js';
import { MARKER_METRICS, MARKER_NAMES } from '../../domain/markers.js';

export const MarkerRow = named('Marker', z.object({
  id: z.string(),
  sport: z.string().meta({ description: 'A root sport, Open Sport Taxonomy' }),
  marker: z.enum(MARKER_NAMES),
  metric: z.enum(MARKER_METRICS),
  value: z.number().describe("In the metric's unit (W, m/s, bpm, mL/min); w_prime in kJ, d_prime in m"),
  date: z.string().meta({ format: 'date', description: 'When the value was determined; a test\'s local start date for measured rows' }),
  provenance: z.enum(['measured', 'declared', 'external']),
  pinned: z.boolean().describe('A pinned declared value never goes stale'),
  source: z.enum(['manual', 'garmin_connect', 'intervals_icu', 'wahoo']).nullable().describe('The integration the value came from; null for API writes and test results'),
  application_id: z.string().nullable().describe('The app that wrote it; null for a personal token'),
  activity_id: z.string().nullable().describe('The activity an external value was read from'),
  created_at: z.string().meta({ format: 'date-time' }),
}));
export type MarkerRow = z.output<typeof MarkerRow>;

export function presentMarker(record: MarkerRecord): MarkerRow {
  return {
    id: record.id,
    sport: record.sport,
    marker: record.marker as MarkerRow['marker'],
    metric: record.metric,
    value: record.value,
    date: record.date,
    provenance: record.provenance,
    pinned: record.pinned,
    source: record.source as MarkerRow['source'],
    application_id: record.application_id,
    activity_id: record.activity_id,
    created_at: formatUtc(record.created_at),
  };
}
