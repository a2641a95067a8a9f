/**
 * `GET /api/v1/profile/zones?sport&quantity&zone_system&date` (gaps.md "Zones"; ANALYTICS.md §8): the
 * engine's GetZones for a root sport, a quantity and a zone system on `date` (default today, UTC). 200:
 * `{sport, quantity, zone_system, date, zones: [{name, label, lower, upper}]}`, zones low → high, `lower`
 * inclusive, `upper` exclusive (null only for the open top zone of seven_zone). Each parameter is checked
 * here (a 422 in the interface's shape); what the markers cannot answer is a 422
 * `application/problem+json` `{type, title, status, detail, code}` (gaps.md "problem errors"):
 * `unsupported_quantity`, `missing_marker` (the detail names every missing marker) or
 * `inconsistent_markers`. The algorithm version goes out in the `Threshold-Algorithm` header, on problems
 * too. Kept honest by test/gateway/zones.test.ts on the real stack.
 */
import { z } from 'zod';
import { named } from '../schemas/components.js';
import { ZONE_QUANTITY_NAMES, ZONE_SYSTEM_NAMES, type ZonesProblemCode } from '../../engine/contract.js';
import { dateSchema, todayLocal } from '../../domain/time.js';
import { queryString } from '../schemas/query.js';
import { rootSportSchema } from '../schemas/root-sport.js';
import { ProblemError } from '../errors.js';
import { engineCallOptions } from '../client-gone.js';
import type { RouteTable } from '../route-table.js';
import type { GatewayDeps } from '../deps.js';

const ZonesQuery = z.object({
  sport: queryString(rootSportSchema).describe('A root sport (cycling, running, …); its markers are used'),
  quantity: queryString(z.enum(ZONE_QUANTITY_NAMES)).describe('power (W), speed (m/s) or heart_rate (bpm)'),
  zone_system: queryString(z.enum(ZONE_SYSTEM_NAMES))
    .describe('three_zone (Seiler; power, speed, heart_rate), five_zone (±2 % around each threshold; power, speed, heart_rate), seven_zone (Coggan levels of second_threshold; power, speed), olt_i_scale (Olympiatoppen I-1 … I-5 of heart_rate_max; heart_rate)'),
  date: queryString(dateSchema).optional().describe('Use the markers valid on this date (inclusive), YYYY-MM-DD; default today (UTC)'),
});

const Zone = z.object({
  name: z.string(),
  label: z.string(),
  lower: z.number().describe('Inclusive, in the quantity’s unit: whole W or bpm, m/s to 2 decimals'),
  upper: z.number().nullable().describe('Exclusive; null only for the open top zone of seven_zone'),
});

const Zones = named('Zones', z.object({
  sport: z.string(),
  quantity: z.enum(ZONE_QUANTITY_NAMES),
  zone_system: z.enum(ZONE_SYSTEM_NAMES),
  date: z.string(),
  zones: z.array(Zone).describe('Low → high; each zone’s upper is the next one’s lower'),
}));

const Problem = named('ZonesProblem', z.object({ type: z.string(), title: z.string(), status: z.number().int(), detail: z.string(), code: z.string() }));

const TITLES: Record<ZonesProblemCode, string> = {
  unsupported_quantity: 'The zone system is not defined for this quantity',
  missing_marker: 'A marker the zones need has no value on this date',
  inconsistent_markers: 'The markers give zone bounds that do not increase',
};

export function zoneRoutes(table: RouteTable, deps: GatewayDeps): void {
  table.add(
    {
      method: 'get', path: '/api/v1/profile/zones', operationId: 'getZones', tag: 'profile',
      summary: 'Training zones from the markers valid on date (written, measured by tests, modeled; the winner of each); header Threshold-Algorithm: zones/2',
      auth: 'bearer', scope: 'activities:read', query: ZonesQuery,
      responses: {
        200: { description: 'The zones. The Threshold-Algorithm header names the algorithm version.', schema: Zones },
        422: {
          description: 'A parameter fails validation ({detail: [{loc, msg, type}]}, application/json), or, as application/problem+json with a code: unsupported_quantity, missing_marker (the detail names the markers) or inconsistent_markers',
          mediaType: 'application/problem+json', schema: Problem,
        },
      },
    },
    async function getZones(ctx) {
      const input = ctx.state.input as z.output<typeof ZonesQuery>;
      const date = input.date ?? todayLocal();
      const result = await deps.engine.zones(
        { user_id: ctx.state.auth.userId, sport: input.sport, quantity: input.quantity, zone_system: input.zone_system, date },
        engineCallOptions(ctx),
      );
      ctx.set('Threshold-Algorithm', result.algorithm);
      if (result.problem !== null) throw new ProblemError(422, result.problem.code, TITLES[result.problem.code], result.problem.detail);
      ctx.body = { sport: input.sport, quantity: input.quantity, zone_system: input.zone_system, date, zones: result.zones };
    },
  );
}
