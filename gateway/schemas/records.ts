/**
 * Request and response schemas of traces and tests (interface §2 "Trace", gaps.md "Shapes → Trace, Test").
 *
 * Writes: "JSON request bodies from clients carry every key, `null` included. Treat `null` as absent where
 * the field is optional" — every optional field takes null. Ranges beyond the interface's own (`>= 0`,
 * integers) are ours, chosen wide enough for any athlete and narrow enough to catch a unit mistake:
 *
 * | field | range |
 * |---|---|
 * | trace power (W), heart_rate (bpm) | integers, 0–5000 and 0–300 |
 * | trace speed (m/s), vo2 (mL/min absolute), lactate (mmol/L) | 0–50, 0–10 000, 0–40 |
 * | trace rpe | integer 0–20 (CR10 and Borg 6–20 both fit) |
 * | notes, title | at most 2000 and 200 characters |
 * | sport | at most 128 characters (MAX_SPORT_LENGTH, as in CSV uploads) |
 * | test_id | 1–64 characters |
 * | tags | at most 100 (MAX_TAGS), each 1–200 characters (MAX_TAG_LENGTH) |
 * | test results, each marker in them | at most 32 keys (MAX_RESULT_KEYS), known or not; unknown keys are dropped |
 * | test end | after start, at most 7 days after it (default start + 3 h) |
 * | marker power (W), heart_rate (bpm) | integers > 0, ≤ 5000 and ≤ 300 |
 * | marker speed (m/s), lactate (mmol/L), vo2 (mL/min) | > 0, ≤ 50, ≤ 40, ≤ 10 000 |
 * | vo2max, vo2peak (mL/min absolute) | > 0, ≤ 10 000 |
 * | vlamax (mmol/L/s) | > 0, ≤ 5 |
 * | heart_rate_max (bpm), critical_power (W) | integers > 0, ≤ 300 and ≤ 5000 |
 * | critical_speed (m/s), w_prime (kJ), d_prime (m) | > 0, ≤ 50, ≤ 200, ≤ 5000 |
 * | economy, efficiency (%) | > 0, ≤ 10 000 and ≤ 100 |
 *
 * Kept honest by test/gateway/traces.test.ts and test/gateway/tests-records.test.ts.
 */
import { z } from 'zod';
import { named } from './components.js';
import { instantSchema } from '../../domain/time.js';
import { canonicalSport, INVALID_SPORT_MESSAGE, MAX_SPORT_LENGTH } from '../../domain/sport.js';
import { ActivitySummary, Lap } from './resources.js';

/** An optional field: absent or null both mean "no value". */
function optional<T extends z.ZodType>(schema: T) {
  return schema.nullable().optional();
}

const int = (min: number, max: number) => z.number().int().min(min).max(max);
const positiveInt = (max: number) => z.number().int().gt(0).max(max);
const positive = (max: number) => z.number().gt(0).max(max);

export const sportSchema = z.string().max(MAX_SPORT_LENGTH).transform((text, ctx): string => {
  const canonical = canonicalSport(text);
  if (canonical !== null) return canonical;
  ctx.addIssue({ code: 'custom', message: `'${text}' is ${INVALID_SPORT_MESSAGE}`, input: text });
  return z.NEVER;
}).meta({ description: 'Open Sport Taxonomy; legacy names are mapped' });

export const MAX_TAGS = 100;
export const MAX_TAG_LENGTH = 200;
export const MAX_RESULT_KEYS = 32;

const tags = z.array(z.string().min(1).max(MAX_TAG_LENGTH)).max(MAX_TAGS);

/**
 * An object of at most `max` keys, known or not: unknown keys are accepted and dropped downstream (the
 * presenters pick the known ones), but 10 000 of them are a 422, not work for the server.
 */
function atMostKeys<T extends z.ZodObject>(schema: T, max: number) {
  return schema.catchall(z.unknown())
    .refine((value) => Object.keys(value).length <= max, `at most ${max} keys`)
    .meta({ maxProperties: max });
}

export const TraceWrite = z.object({
  timestamp: instantSchema.describe('Offset-aware; the offset is kept so timestamp_local round-trips'),
  test_id: optional(z.string().min(1).max(64)),
  lactate: optional(z.number().min(0).max(40)).describe('mmol/L'),
  rpe: optional(int(0, 20)),
  notes: optional(z.string().max(2000)),
  power: optional(int(0, 5000)).describe('W'),
  speed: optional(z.number().min(0).max(50)).describe('m/s'),
  heart_rate: optional(int(0, 300)).describe('bpm'),
  vo2: optional(z.number().min(0).max(10_000)).describe('mL/min, absolute'),
  tags: optional(tags),
  sport: optional(sportSchema),
});
export type TraceInput = z.output<typeof TraceWrite>;

/** gaps.md: "each a marker `{power (int), speed, heart_rate (int), lactate, vo2}`". */
export const MARKER_FIELDS = ['power', 'speed', 'heart_rate', 'lactate', 'vo2'] as const;
export const MARKER_RESULTS = ['first_threshold', 'second_threshold', 'fatmax', 'lt1', 'lt2', 'vt1', 'vt2', 'mlss'] as const;
export const SCALAR_RESULTS = [
  'vo2max', 'vo2peak', 'vlamax', 'heart_rate_max', 'critical_power', 'critical_speed', 'w_prime', 'd_prime', 'economy', 'efficiency',
] as const;

const MarkerWrite = atMostKeys(z.object({
  power: optional(positiveInt(5000)),
  speed: optional(positive(50)),
  heart_rate: optional(positiveInt(300)),
  lactate: optional(positive(40)),
  vo2: optional(positive(10_000)),
}), MAX_RESULT_KEYS);

export const ResultsWrite = atMostKeys(z.object({
  ...Object.fromEntries(MARKER_RESULTS.map((name) => [name, optional(MarkerWrite)])) as Record<(typeof MARKER_RESULTS)[number], ReturnType<typeof optional<typeof MarkerWrite>>>,
  vo2max: optional(positive(10_000)).describe('mL/min, absolute'),
  vo2peak: optional(positive(10_000)).describe('mL/min, absolute'),
  vlamax: optional(positive(5)).describe('mmol/L/s'),
  heart_rate_max: optional(positiveInt(300)).describe('bpm'),
  critical_power: optional(positiveInt(5000)).describe('W'),
  critical_speed: optional(positive(50)).describe('m/s'),
  w_prime: optional(positive(200)).describe('kJ'),
  d_prime: optional(positive(5000)).describe('m'),
  economy: optional(positive(10_000)),
  efficiency: optional(positive(100)).describe('%'),
}), MAX_RESULT_KEYS);

export const TestWrite = z.object({
  sport: sportSchema,
  start: instantSchema,
  end: optional(instantSchema).describe('Default: start + 3 h; at most 7 days after start'),
  title: optional(z.string().max(200)),
  results: optional(ResultsWrite),
  tags: optional(tags),
});
export type TestInput = z.output<typeof TestWrite>;

// ---------------------------------------------------------------------------------------------------------
// Responses (for the OpenAPI document; the presenters build the values)

const instant = z.string().meta({ format: 'date-time', description: 'UTC instant, ISO 8601 with Z' });
const local = z.string().meta({ description: 'Naive local wall-clock time, no offset' });
const metadata = z.record(z.string(), z.unknown()).nullable();

const Marker = z.object({
  power: z.number().int().nullable(), speed: z.number().nullable(), heart_rate: z.number().int().nullable(),
  lactate: z.number().nullable(), vo2: z.number().nullable(),
});

export const TestResults = z.object({
  ...Object.fromEntries(MARKER_RESULTS.map((name) => [name, Marker.nullable()])) as Record<(typeof MARKER_RESULTS)[number], z.ZodNullable<typeof Marker>>,
  vo2max: z.number().nullable(), vo2peak: z.number().nullable(), vlamax: z.number().nullable(),
  heart_rate_max: z.number().int().nullable(), critical_power: z.number().int().nullable(), critical_speed: z.number().nullable(),
  w_prime: z.number().nullable(), d_prime: z.number().nullable(), economy: z.number().nullable(), efficiency: z.number().nullable(),
});

export const TestSummary = named('TestSummary', z.object({
  id: z.string(), sport: z.string(), start: instant, start_local: local, end: instant, end_local: local,
  title: z.string().nullable(), results: TestResults, tags: z.array(z.string()),
  created_by: z.string().nullable().meta({ description: "The application that wrote it, or 'user' for a personal token" }),
  app_metadata: metadata,
}));

export const Trace = named('Trace', z.object({
  id: z.string(), timestamp: instant, timestamp_local: local, test_id: z.string().nullable(),
  lactate: z.number().nullable(), rpe: z.number().int().nullable(), notes: z.string().nullable(),
  power: z.number().int().nullable(), speed: z.number().nullable(), heart_rate: z.number().int().nullable(), vo2: z.number().nullable(),
  tags: z.array(z.string()), sport: z.string().nullable(),
  lap: Lap.nullable(),
  activity: ActivitySummary.nullable().meta({ description: 'The activity the trace falls in (its own traces null); null inside an activity' }),
  test: TestSummary.nullable(),
  test_match: z.enum(['explicit', 'window']).nullable(),
  app_metadata: metadata,
}));

export const TestDetails = named('TestDetails', TestSummary.extend({ traces: z.array(Trace), activities: z.array(ActivitySummary) }));
