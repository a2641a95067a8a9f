/**
 * Dailies (interface §4 "Dailies", gaps.md "Daily"): one number per measure per date. Writes through the
 * API are `manual` and a later provider import never replaces them (storage/dailies.ts). Scopes
 * (interface §5): `wellness:*` for every measure except `menstrual_cycle_day`, which needs
 * `reproductive_health:*` — "standalone, neither needs nor implies wellness". An unknown measure falls
 * under wellness (it is not the cycle day), so a token with wellness gets its 422.
 * Kept honest by test/gateway/dailies.test.ts.
 */
import { z } from 'zod';
import { DAILY_MEASURES, DAILY_MEASURE_NAMES, type DailyMeasure } from '../../domain/daily-measures.js';
import { dateSchema } from '../../domain/time.js';
import { readDailyRange, upsertDaily } from '../../storage/dailies.js';
import { checkDailyRange, checkDailyValue, MAX_RANGE_DAYS } from '../services/dailies.js';
import { presentDaily } from '../presenters/daily.js';
import { Daily } from '../schemas/daily.js';
import { queryBool, queryString } from '../schemas/query.js';
import { NotFoundError } from '../errors.js';
import type { RouteTable, ScopeByParam } from '../route-table.js';
import type { GatewayDeps } from '../deps.js';

const READ: ScopeByParam = { param: 'measure', cases: { menstrual_cycle_day: 'reproductive_health:read' }, otherwise: 'wellness:read' };
const WRITE: ScopeByParam = { param: 'measure', cases: { menstrual_cycle_day: 'reproductive_health:write' }, otherwise: 'wellness:write' };

/** The measures with their units: `body_mass (kg), …`. */
const DAILY_MEASURE_DESCRIPTION = `The daily measure: ${Object.entries(DAILY_MEASURES).map(([name, spec]) => `${name} (${spec.unit})`).join(', ')}`;
const MeasureParams = z.object({ measure: z.enum(DAILY_MEASURE_NAMES).describe(DAILY_MEASURE_DESCRIPTION) });
const PATH = '/api/v1/dailies/{measure}';

const WriteBody = z.object({
  date: dateSchema.describe('Local calendar date'),
  value: z.number().describe('Within the measure\'s range: body_mass kg 0–500, body_fat_pct % 0–100, resting_hr bpm 0–250, hrv ms 0–500, sleep_duration s 0–86400, sleep_altitude m 0–10000, menstrual_cycle_day 0–100'),
});

const RangeQuery = z.object({
  start: queryString(dateSchema).describe('First local date (inclusive)'),
  end: queryString(dateSchema).describe(`Last local date (inclusive); at most ${MAX_RANGE_DAYS} days from start to end, both counted`),
  interpolate: queryBool().default(true).describe('Estimate missing days of body_mass, body_fat_pct and resting_hr; other measures are never estimated'),
});

const DeleteQuery = z.object({ date: queryString(dateSchema).describe('Local date whose value is deleted') });

interface Input { measure: DailyMeasure }

export function dailyRoutes(table: RouteTable, deps: GatewayDeps): void {
  table.add(
    {
      method: 'post', path: PATH, operationId: 'putDaily', tag: 'dailies',
      summary: 'Create or replace the value of a measure on a date (source manual)',
      auth: 'bearer', scope: WRITE, params: MeasureParams, body: WriteBody,
      responses: { 200: { description: 'The value as stored', schema: Daily } },
    },
    async function putDaily(ctx) {
      const { measure } = ctx.state.input as Input;
      const { date, value } = ctx.state.body as z.output<typeof WriteBody>;
      checkDailyValue(measure, value);
      const { record } = await upsertDaily(deps.store, { userId: ctx.state.auth.userId, measure, date, value, source: 'manual' });
      ctx.body = presentDaily({ date: record.date, value: record.value, status: 'stored', source: record.source });
    },
  );

  table.add(
    {
      method: 'get', path: PATH, operationId: 'listDailies', tag: 'dailies',
      summary: 'One entry per date of the range: stored, estimated or missing',
      auth: 'bearer', scope: READ, params: MeasureParams, query: RangeQuery,
      responses: { 200: { description: 'Entries in date order, one per date from start to end', schema: z.array(Daily) } },
    },
    async function listDailies(ctx) {
      const { measure, start, end, interpolate } = ctx.state.input as Input & z.output<typeof RangeQuery>;
      checkDailyRange(start, end);
      const entries = await readDailyRange(deps.store, ctx.state.auth.userId, measure, start, end, interpolate);
      ctx.body = entries.map(presentDaily);
    },
  );

  table.add(
    {
      method: 'delete', path: PATH, operationId: 'deleteDaily', tag: 'dailies',
      summary: 'Delete the value of a measure on a date',
      auth: 'bearer', scope: WRITE, params: MeasureParams, query: DeleteQuery,
      responses: { 204: { description: 'Deleted' }, 404: { description: 'No value on that date' } },
    },
    async function deleteDaily(ctx) {
      const { measure, date } = ctx.state.input as Input & z.output<typeof DeleteQuery>;
      const deleted = await deps.store.dailies.deleteMany({ user_id: ctx.state.auth.userId, measure, date });
      // "Deleting a date with no value gives not found."
      if (deleted === 0) throw new NotFoundError(`No ${measure} value on ${date}`);
      ctx.status = 204;
    },
  );
}
