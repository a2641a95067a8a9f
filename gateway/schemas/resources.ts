/**
 * Response shapes of the interface's resources, for the OpenAPI document (the presenters build the
 * values; these describe them). Field lists follow interface §2 and gaps.md "Shapes".
 */
import { z } from 'zod';
import { named, namedSchema } from './components.js';

const instant = z.string().meta({ format: 'date-time', description: 'UTC instant, ISO 8601 with Z' });
const local = z.string().meta({ description: 'Naive local wall-clock time, no offset' });
const duration = z.string().meta({ description: 'ISO 8601 duration, e.g. PT1H2M3S' });

const statistic = z.number().nullable();
const MetricSummary = z.object({
  mean: statistic.optional(), min: statistic.optional(), max: statistic.optional(), sum: statistic.optional(),
  start: statistic.optional(), end: statistic.optional(), gain: statistic.optional(), loss: statistic.optional(),
});
const SummaryBlocks = z.record(z.string(), MetricSummary).meta({ description: 'Blocks per metric: power{mean,max}, speed{mean,max}, distance{sum}, altitude{mean,gain,loss,min,max}, heart_rate{mean,min,max,start,end}, …' });

export const Lap = named('Lap', z.object({ start: instant, end: instant, start_local: local, end_local: local, duration }).catchall(MetricSummary));

/**
 * An activity's traces: each a Trace (schemas/records.ts, which imports this file; read through a getter), its
 * activity null. One per shape that holds it, so the JSON Schema cycle Activity → Trace → Activity runs
 * through named schemas only.
 */
const activityTraces = () => z.array(namedSchema('Trace')).nullable();

export const ActivitySummary = named('ActivitySummary', z.object({
  id: z.string(),
  sport: z.string().meta({ description: 'Open Sport Taxonomy' }),
  start: instant,
  end: instant,
  start_local: local,
  end_local: local,
  duration,
  metrics: z.array(z.string()),
  source_id: z.string(),
  tags: z.array(z.string()),
  summary: SummaryBlocks.nullable(),
  laps: z.array(Lap).nullable(),
  get traces() {
    return activityTraces();
  },
  app_metadata: z.record(z.string(), z.unknown()).nullable(),
}));

export const ActivityDetails = named('ActivityDetails', ActivitySummary.extend({
  get traces() {
    return activityTraces();
  },
  distance: z.number().nullable(),
  devices: z.array(z.string()),
}));

export const Source = named('Source', z.object({
  id: z.string(),
  type: z.enum(['fit', 'csv']).nullable(),
  origin: z.enum(['manual_upload', 'garmin_connect', 'intervals_icu', 'wahoo']),
  filename: z.string().nullable(),
  status: z.enum(['processing', 'processed', 'failed']),
  activity_ids: z.array(z.string()),
  created_at: instant,
  error: z.object({ code: z.string(), message: z.string().nullable() }).nullable(),
  warnings: z.array(z.string()),
}));
