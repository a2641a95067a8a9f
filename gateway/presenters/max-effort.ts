/**
 * Max-effort records → the row of gaps.md "Max efforts": the write's fields plus `id, source,
 * application_id, activity_id, created_at`, every key present. `duration` is whole seconds (as written),
 * `value` always the intensity held (derived from distance ÷ duration for a race). Explicit field list.
 */
import { z } from 'zod';
import { named } from '../schemas/components.js';
import type { MaxEffortRecord } from '../../storage/store.js';
import { formatUtc } from '../../domain/time.js';

export const MaxEffortRow = named('MaxEffort', z.object({
  id: z.string(),
  sport: z.enum(['cycling', 'running']),
  metric: z.enum(['power', 'speed']),
  duration: z.number().int().describe('Seconds the effort was held'),
  distance: z.number().nullable().describe('Metres, for a race'),
  value: z.number().describe('W or m/s; for a race, distance ÷ duration'),
  date: z.string().meta({ format: 'date' }),
  provenance: z.enum(['measured', 'declared']),
  title: z.string().nullable(),
  source: z.enum(['manual', 'garmin_connect', 'intervals_icu', 'wahoo']).nullable().describe('The integration it came from; null for API writes'),
  application_id: z.string().nullable().describe('The app that wrote it; null for a personal token'),
  activity_id: z.string().nullable(),
  created_at: z.string().meta({ format: 'date-time' }),
}));
export type MaxEffortRow = z.output<typeof MaxEffortRow>;

export function presentMaxEffort(record: MaxEffortRecord): MaxEffortRow {
  return {
    id: record.id,
    sport: record.sport as MaxEffortRow['sport'],
    metric: record.metric,
    duration: record.duration_s,
    distance: record.distance,
    value: record.value,
    date: record.date,
    provenance: record.provenance,
    title: record.title,
    source: record.source as MaxEffortRow['source'],
    application_id: record.application_id,
    activity_id: record.activity_id,
    created_at: formatUtc(record.created_at),
  };
}
