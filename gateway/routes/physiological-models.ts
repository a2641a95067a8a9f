/**
 * The physiological models (interface §4 "Profile"; gaps.md "Extra maps"): the intensity-duration curve
 * (`/profile/intensity-duration-model/power|speed`) and the metabolic maps
 * (`/profile/metabolic-map/power|speed|heart-rate|vo2`). Each route validates (a sub-sport, or a sport the
 * quantity does not offer, is a 422), relays one engine call (GetIntensityDurationModel / GetMetabolicMap,
 * where the fit runs and its result is cached) and shapes the JSON. Every answer, problems included, carries
 * `Threshold-Algorithm` naming the algorithm version the engine used (`ompd/2`).
 *
 * "Without enough data the curve is empty, never an error." A map's problems are
 * `application/problem+json` 422s (gaps.md "Problem errors"): missing_body_mass, insufficient_data.
 * test/gateway/physiological-models.test.ts runs them on the real stack.
 */
import { z } from 'zod';
import { named } from '../schemas/components.js';
import { dateSchema, todayLocal } from '../../domain/time.js';
import { intensityDurationCurve, metabolicMap } from '../services/analyses.js';
import { MODEL_ALGORITHM } from '../../engine/contract.js';
import type { GatewayDeps } from '../deps.js';
import { ValidationError } from '../errors.js';
import { engineCallOptions } from '../client-gone.js';
import { queryString } from '../schemas/query.js';
import { rootSportSchema } from '../schemas/root-sport.js';
import { durationsParameter, requestedDurations } from '../schemas/durations.js';
import type { RouteTable } from '../route-table.js';

/** The response header naming the algorithm version (also in every route's summary and the OpenAPI description). */
export const ALGORITHM_HEADER = 'Threshold-Algorithm';

const ALGORITHM_NOTE = `Responses carry \`${ALGORITHM_HEADER}: ${MODEL_ALGORITHM}\` (the algorithm version; results are cached per version and input).`;

/** Path segment → engine quantity, with the sports each offers (the first is the default). */
const CURVES = { power: { quantity: 'power', sports: ['cycling', 'running'] }, speed: { quantity: 'speed', sports: ['running'] } } as const;
const MAPS = {
  power: { quantity: 'power', sports: ['cycling', 'running'] },
  speed: { quantity: 'speed', sports: ['running'] },
  'heart-rate': { quantity: 'heart_rate', sports: ['cycling', 'running'] },
  vo2: { quantity: 'vo2', sports: ['cycling', 'running'] },
} as const;

const dateParameter = queryString(dateSchema).optional().describe('The profile as of this date (inclusive); default today (UTC)');
const sportParameter = queryString(rootSportSchema).optional().describe('A root sport (power: cycling or running; speed: running); sub-sports are not accepted and every activity of the sport is used; default the first of these');

const CurveQuery = z.object({ date: dateParameter, durations: durationsParameter, sport: sportParameter });
const MapQuery = z.object({ date: dateParameter, sport: sportParameter });

const Curve = named('IntensityDurationCurve', z.object({
  curve: z.array(z.object({ duration: z.number().int().describe('seconds'), intensity: z.number().describe('whole W for power, m/s to 2 decimals for speed') })),
}));

const MarkerValue = z.object({ value: z.number(), provenance: z.enum(['modeled', 'measured', 'declared', 'external']) }).nullable();

/** Map inputs; the heart-rate map's also carry resting_hr (ANALYTICS.md §7). */
const BODY_MASS = z.number().describe('kg, 1 decimal');
const MapInputs = z.object({ body_mass: BODY_MASS });
const HeartRateMapInputs = z.object({ body_mass: BODY_MASS, resting_hr: z.number().int().nullable().describe('bpm, whole: the resting_hr daily the map used (the latest on or before date); null without one') });

const Problem = named('ModelProblem', z.object({ type: z.string(), title: z.string(), status: z.number().int(), detail: z.string(), code: z.enum(['missing_body_mass', 'insufficient_data']) }));

export function physiologicalModelRoutes(table: RouteTable, deps: GatewayDeps): void {
  for (const [segment, { quantity, sports }] of Object.entries(CURVES)) {
    table.add(
      {
        method: 'get', path: `/api/v1/profile/intensity-duration-model/${segment}`, operationId: `getIntensityDurationModel${pascal(segment)}`, tag: 'profile',
        summary: `Beta. The fitted ${quantity} intensity-duration curve (OmPD) over the 90 days ending on date: {curve: [{duration, intensity}]}, empty without enough data. sport: ${sports.join(' or ')} (root only). ${ALGORITHM_NOTE}`,
        auth: 'bearer', scope: 'activities:read', query: CurveQuery,
        responses: { 200: { description: `The curve (empty with too little data); header ${ALGORITHM_HEADER}`, schema: Curve } },
      },
      async function getIntensityDurationModel(ctx) {
        const input = ctx.state.input as z.output<typeof CurveQuery>;
        const sport = offeredSport(input.sport, sports);
        const result = await intensityDurationCurve(
          deps, ctx.state.auth.userId, { quantity, sport, date: input.date ?? todayLocal(), durations: requestedDurations(input.durations) }, engineCallOptions(ctx),
        );
        ctx.set(ALGORITHM_HEADER, result.algorithm);
        ctx.body = { curve: result.curve };
      },
    );
  }

  for (const [segment, { quantity, sports }] of Object.entries(MAPS)) {
    table.add(
      {
        method: 'get', path: `/api/v1/profile/metabolic-map/${segment}`, operationId: `getMetabolicMap${pascal(segment)}`, tag: 'profile',
        summary: `Beta. The ${quantity.replace('_', ' ')} metabolic map on date: {inputs: {body_mass${quantity === 'heart_rate' ? ', resting_hr' : ''}}, markers: {name: null | {value, provenance}}}. sport: ${sports.join(' or ')} (root only). Problems (application/problem+json, 422): missing_body_mass, insufficient_data. ${ALGORITHM_NOTE}`,
        auth: 'bearer', scope: 'activities:read', query: MapQuery,
        responses: {
          200: { description: `The map; header ${ALGORITHM_HEADER}`, schema: z.object({ inputs: quantity === 'heart_rate' ? HeartRateMapInputs : MapInputs, markers: z.record(z.string(), MarkerValue) }) },
          422: { description: 'Validation failure, or application/problem+json with code missing_body_mass or insufficient_data', schema: Problem },
        },
      },
      async function getMetabolicMap(ctx) {
        const input = ctx.state.input as z.output<typeof MapQuery>;
        const sport = offeredSport(input.sport, sports);
        const result = await metabolicMap(deps, ctx.state.auth.userId, { quantity, sport, date: input.date ?? todayLocal() }, engineCallOptions(ctx));
        ctx.set(ALGORITHM_HEADER, result.algorithm);
        if (result.problem) throw result.problem;
        ctx.body = result.map;
      },
    );
  }
}

/** The requested sport, or the quantity's default; a sport the quantity does not offer is a 422. */
function offeredSport(sport: string | undefined, offered: readonly string[]): string {
  if (sport === undefined) return offered[0]!;
  if (!offered.includes(sport)) throw ValidationError.single(['query', 'sport'], `sport must be ${offered.join(' or ')}, not ${sport}`);
  return sport;
}

function pascal(segment: string): string {
  return segment.split('-').map((part) => part[0]!.toUpperCase() + part.slice(1)).join('');
}
