/**
 * GetActivityNumbers → the JSON of `GET /api/v1/ext/activities/{activity_id}/numbers` (ANALYTICS.md §10),
 * every key present, explicit field list. The route (routes/training-load.ts) and the activity page
 * (routes/athlete-pages.ts) both present the engine's answer here, so the page shows exactly what an app
 * fetches. Kept honest by test/gateway/training-load.test.ts and test/gateway/activity-numbers-page.test.ts.
 */
import { z } from 'zod';
import type { ActivityNumbers } from '../engine-client.js';
import { named } from '../schemas/components.js';

const ZoneTime = z.object({
  name: z.string(),
  label: z.string(),
  lower: z.number(),
  upper: z.number().nullable(),
  duration_s: z.number().describe('Recorded seconds (pauses excluded) in [lower, upper)'),
});

export const ActivityNumbersBody = named('ActivityNumbers', z.object({
  activity_id: z.string(),
  sport: z.string(),
  local_date: z.string(),
  recorded_time_s: z.number().describe('Seconds of the canonical 1 s series (pauses up to 60 min included)'),
  moving_time_s: z.number().describe('Recorded time excluding pauses (gaps longer than the 5 s hold cap), s'),
  work_kj: z.number().nullable().describe('kJ; null without power'),
  intensity_quantity: z.enum(['', 'power', 'speed', 'heart_rate']).describe('What the load is computed from; empty when the activity has no signal'),
  weighted_intensity: z.number().nullable().describe('Fourth root of the mean fourth power of the 30 s rolling mean, W or m/s'),
  intensity_factor: z.number().nullable(),
  load: z.number().nullable().describe('100 × recorded hours × intensity_factor² (heart rate: scaled TRIMP); null with load_problem'),
  trimp: z.number().nullable().describe("Banister's TRIMP, heart-rate loads only"),
  threshold: z.object({ marker: z.string(), quantity: z.string(), value: z.number(), provenance: z.string() }).nullable()
    .describe("The metabolic map's second_threshold on the local date and its provenance"),
  resting_hr: z.number().nullable(),
  heart_rate_max: z.number().nullable(),
  load_problem: z.object({ code: z.string(), detail: z.string() }).nullable()
    .describe('Why load is null: no_intensity, no_threshold, no_heart_rate_max or no_resting_hr'),
  zones: z.array(z.object({
    quantity: z.string(),
    zone_system: z.string(),
    zones: z.array(ZoneTime),
    problem: z.object({ code: z.string(), detail: z.string() }).nullable().describe('Why there are no zones (as /profile/zones answers)'),
  })),
}));
export type ActivityNumbersBody = z.output<typeof ActivityNumbersBody>;

export function presentActivityNumbers(numbers: ActivityNumbers): ActivityNumbersBody {
  return {
    activity_id: numbers.activity_id,
    sport: numbers.sport,
    local_date: numbers.local_date,
    recorded_time_s: numbers.recorded_time_s,
    moving_time_s: numbers.moving_time_s,
    work_kj: numbers.work_kj,
    intensity_quantity: numbers.intensity_quantity,
    weighted_intensity: numbers.weighted_intensity,
    intensity_factor: numbers.intensity_factor,
    load: numbers.load,
    trimp: numbers.trimp,
    threshold: numbers.threshold === null ? null : {
      marker: numbers.threshold.marker, quantity: numbers.threshold.quantity, value: numbers.threshold.value, provenance: numbers.threshold.provenance,
    },
    resting_hr: numbers.resting_hr,
    heart_rate_max: numbers.heart_rate_max,
    load_problem: numbers.load_problem === '' ? null : { code: numbers.load_problem, detail: numbers.load_problem_detail },
    zones: numbers.zones.map((entry) => ({
      quantity: entry.quantity,
      zone_system: entry.zone_system,
      zones: entry.zones.map((zone) => ({ name: zone.name, label: zone.label, lower: zone.lower, upper: zone.upper, duration_s: zone.duration_s })),
      problem: entry.problem === null ? null : { code: entry.problem.code, detail: entry.problem.detail },
    })),
  };
}
