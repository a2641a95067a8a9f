/**
 * Request and response schemas of scheduled workouts (gaps.md "Shapes → Scheduled workouts"): body
 * `{swf, start, parameters?}`; response `{id, sport, start, start_local, swf, parameters, application_id,
 * application_name, deliveries[{integration, status, reason?, detail?, updated_at?}], warnings[]}`.
 * `start_local` is ours, beside `start` as for every instant (gaps.md "Wire conventions").
 *
 * Our choices beyond gaps.md: `start` is an instant with an offset (the offset picks the calendar day
 * sent to providers), at most 1 day in the past and 2 years ahead; `parameters` is an object of named
 * numbers (`{"threshold_speed": 4.2}`: at most MAX_PARAMETERS names of 1–MAX_PARAMETER_NAME characters,
 * each a finite number; anything else is a 422 at the offending name), at most 4 KiB of JSON, stored and
 * returned as sent. The SWF rules are domain/workouts/swf.ts.
 * Kept honest by test/gateway/workouts.test.ts.
 */
import { z } from 'zod';
import { named } from './components.js';
import { dateSchema, instantSchema } from '../../domain/time.js';
import { swfSchema, INTENSITY_QUANTITIES, VOLUME_QUANTITIES } from '../../domain/workouts/swf.js';
import { pageParameters, queryString } from './query.js';

export const MAX_PARAMETERS_BYTES = 4096;
export const MAX_PARAMETERS = 50;
export const MAX_PARAMETER_NAME = 64;
const DAY_MS = 86_400_000;
export const START_WINDOW = { pastMs: DAY_MS, futureMs: 731 * DAY_MS } as const;

export const WorkoutPage = { default: 50, max: 100 } as const;

// ---------------------------------------------------------------------------------------------------------
// The SWF as documented (requests) and as stored (responses)

const quantityNames = (quantities: object) => z.enum(Object.keys(quantities) as [string, ...string[]]);
const value = (quantities: object) => z.union([
  z.object({ type: z.literal('constant'), quantity: quantityNames(quantities), value: z.number() }),
  z.object({ type: z.literal('range'), quantity: quantityNames(quantities), min: z.number().nullable(), max: z.number().nullable() }),
  z.object({ type: z.literal('ramp'), quantity: quantityNames(quantities), start: z.number(), end: z.number() }),
]);
const Step = named('SwfStep', z.object({
  type: z.literal('step'), effort: z.enum(['work', 'rest']),
  volume: z.object({ type: z.literal('constant'), quantity: quantityNames(VOLUME_QUANTITIES), value: z.number() }).nullable().describe('duration (s) or distance (m), a constant'),
  intensity: value(INTENSITY_QUANTITIES).nullable().describe('speed (m/s), power (W), heart_rate (bpm), cadence, rpe (0–10); only speed is deliverable today'),
  note: z.string().nullable(),
}));
const Note = named('SwfNote', z.object({ type: z.literal('note'), text: z.string() }));
const Repeat = named('SwfRepeat', z.object({ type: z.literal('repeat'), count: z.number().int(), content: z.array(z.union([Step, Note])) }));
const Section = named('SwfSection', z.object({ type: z.literal('section'), phase: z.enum(['warmup', 'main', 'cooldown']), content: z.array(z.union([Step, Repeat, Note])) }));
export const SwfDocument = named('SwfWorkout', z.object({
  title: z.string().nullable(), description: z.string().nullable(), sport: z.string(),
  content: z.array(z.union([Step, Repeat, Section, Note])),
}).meta({ description: 'SWF v0.4.0 as stored: every optional key present (null), every node and value with its type' }));

export const ScheduleWrite = z.object({
  swf: swfSchema.meta(documentedSwf()),
  start: instantSchema.refine((instant) => instant.ms >= Date.now() - START_WINDOW.pastMs, 'start must not be more than 1 day in the past')
    .refine((instant) => instant.ms <= Date.now() + START_WINDOW.futureMs, 'start must be at most 2 years ahead')
    .describe('When the workout is planned: an instant with its UTC offset (the offset picks the calendar day on devices)'),
  parameters: z.record(
    z.string().min(1).max(MAX_PARAMETER_NAME),
    z.number().refine(Number.isFinite, 'Input should be a finite number'),
  ).nullish()
    .refine((value) => value == null || Object.keys(value).length <= MAX_PARAMETERS, `parameters must have at most ${MAX_PARAMETERS} names`)
    .refine((value) => value == null || JSON.stringify(value).length <= MAX_PARAMETERS_BYTES, `parameters must be at most ${MAX_PARAMETERS_BYTES} bytes of JSON`)
    .transform((value) => value ?? null)
    .meta({ maxProperties: MAX_PARAMETERS })
    .describe('Named numbers (e.g. threshold_speed in m/s) stored with the workout and returned as sent'),
});
export type ScheduleInput = z.output<typeof ScheduleWrite>;

export const ScheduleListQuery = z.object({
  application_id: queryString(z.string().min(1).max(64)).optional().describe('Only workouts scheduled by this application'),
  start: queryString(dateSchema).optional().describe("Earliest local date of the workout's start (inclusive)"),
  end: queryString(dateSchema).optional().describe("Latest local date of the workout's start (inclusive)"),
  ...pageParameters(WorkoutPage),
});

export const WorkoutParams = z.object({ workout_id: z.string().min(1).max(64).describe("The scheduled workout's id") });

/**
 * The SWF's JSON Schema for the OpenAPI document's request body (the request field itself is validated
 * by domain/workouts/swf.ts, which also accepts the untyped nodes and values gaps.md shows).
 */
function documentedSwf(): Record<string, unknown> {
  const { $schema: _schema, ...schema } = z.toJSONSchema(SwfDocument, { io: 'input', reused: 'inline' }) as Record<string, unknown>;
  return { ...schema, description: 'SWF v0.4.0 workout: {title?, description?, sport, content: [step|repeat|section|note]}; `type` may be omitted on repeat, section, note and values; only running with speed intensity is deliverable today' };
}

export const Delivery = named('WorkoutDelivery', z.object({
  integration: z.enum(['garmin_connect', 'intervals_icu', 'wahoo']),
  status: z.enum(['pending', 'delivered', 'failed']),
  reason: z.string().optional().describe(
    'Why it failed: not_connected, permission_missing (Garmin 412), authorization_refused (401), forbidden (403), rejected (400/422), '
    + 'not_found, conflict, bad_response, too_many_steps (Garmin > 100), untranslatable, provider_unavailable (gave up after retries on 5xx or a 429 naming no time, or asked to wait beyond an hour after the delivery was queued), not_configured',
  ),
  detail: z.string().optional().describe("The provider's answer, or the last transient error while still pending"),
  updated_at: z.string().meta({ format: 'date-time' }).optional(),
}));

export const ScheduledWorkout = named('ScheduledWorkout', z.object({
  id: z.string(),
  sport: z.string(),
  start: z.string().meta({ format: 'date-time', description: 'UTC instant, ISO 8601 with Z' }),
  start_local: z.string().meta({ description: 'Naive local wall-clock time of the start, no offset' }),
  swf: SwfDocument,
  parameters: z.record(z.string(), z.unknown()).nullable().describe('Named numbers, as sent (written exactly as stored)'),
  application_id: z.string().nullable(),
  application_name: z.string().nullable(),
  deliveries: z.array(Delivery),
  warnings: z.array(z.string()),
}));
export type ScheduledWorkout = z.output<typeof ScheduledWorkout>;
