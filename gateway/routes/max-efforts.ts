/**
 * Max efforts (gaps.md "Paths the interface leaves out" and "Shapes"): best efforts a person declares or
 * timed, which the intensity-duration model adds to the curve (ANALYTICS.md §6). `GET` lists them newest
 * first (by date, then creation, then id; not paged: the interface gives them no limit/offset), `POST`
 * writes one, `DELETE /{max_effort_id}` removes one. Rules, each a 422 naming it:
 *
 * - sport `cycling` or `running` (root sports only); metric `power` or `speed`, and speed only for running
 *   (the speed model is running's, interface §4 "intensity-duration-model");
 * - `duration` whole seconds > 0; `provenance` `measured` or `declared`; `title` at most 80 characters;
 * - power: a `value` (W), and no `distance` (a distance derives a speed, not a power);
 * - speed: a `value` (m/s) or a `distance` (m, a race). With a distance the stored value is
 *   distance ÷ duration; a value sent beside it must agree within SPEED_TOLERANCE (half the 0.01 m/s a
 *   client rounds speeds to), else it is a 422 rather than a silent choice.
 *
 * Kept honest by test/gateway/max-efforts.test.ts.
 */
import { z } from 'zod';
import type { Filter, MaxEffortRecord } from '../../storage/store.js';
import { newId } from '../../storage/ids.js';
import { dateSchema } from '../../domain/time.js';
import { queryArray } from '../schemas/query.js';
import { dateCondition, dateRangeParameters } from '../schemas/date-range.js';
import { MaxEffortRow, presentMaxEffort } from '../presenters/max-effort.js';
import { NotFoundError } from '../errors.js';
import type { RouteTable } from '../route-table.js';
import type { GatewayDeps } from '../deps.js';

/** m/s: how far a sent speed may sit from distance ÷ duration. */
export const SPEED_TOLERANCE = 0.005;
const TITLE_MAX = 80;

const Sport = z.enum(['cycling', 'running'], { error: 'max efforts take the root sport cycling or running (no sub-sport, no modifier)' });
const Metric = z.enum(['power', 'speed']);

const ListQuery = z.object({
  sport: queryArray(Sport, { max: 2 }).optional().describe('Match any'),
  metric: queryArray(Metric, { max: 2 }).optional().describe('Match any'),
  ...dateRangeParameters,
});

/** Clients send every key; null means absent (gaps.md "Wire conventions"). */
const MaxEffortWrite = z
  .object({
    sport: Sport,
    metric: Metric.describe('power (W) or speed (m/s, running only): the curve the effort joins'),
    date: dateSchema.describe('When the effort happened or was estimated (YYYY-MM-DD)'),
    duration: z.number().int().positive().describe('Seconds the effort was held'),
    distance: z.number().positive().nullish().describe('Metres, for a race (speed only): the speed is derived'),
    value: z.number().positive().nullish().describe("The intensity held, in the metric's unit"),
    provenance: z.enum(['measured', 'declared'], { error: 'max efforts are measured (it happened and was timed) or declared (an estimate)' }),
    title: z.string().max(TITLE_MAX).nullish().describe('For recognition only, e.g. "Oslo 10K"; at most 80 characters'),
  })
  .superRefine((body, ctx) => {
    const issue = (path: 'metric' | 'distance' | 'value', message: string) => ctx.addIssue({ code: 'custom', path: [path], message, input: body[path] });
    if (body.metric === 'power') {
      if (body.distance != null) issue('distance', 'a power effort takes no distance (a distance derives a speed)');
      if (body.value == null) issue('value', 'a power effort needs a value (W)');
      return;
    }
    if (body.sport !== 'running') issue('metric', 'speed efforts are running only; cycling efforts are power');
    if (body.distance == null) {
      if (body.value == null) issue('value', 'a speed effort needs a value (m/s) or a distance (m)');
      return;
    }
    const derived = body.distance / body.duration;
    if (body.value != null && Math.abs(body.value - derived) > SPEED_TOLERANCE) {
      issue('value', `value ${body.value} m/s disagrees with distance ÷ duration = ${derived.toFixed(3)} m/s; send one, or both in agreement`);
    }
  });

const MaxEffortParams = z.object({ max_effort_id: z.string().min(1).max(64).describe("The max effort's id") });

export function maxEffortRoutes(table: RouteTable, deps: GatewayDeps): void {
  table.add(
    {
      method: 'get', path: '/api/v1/profile/max-efforts', operationId: 'listMaxEfforts', tag: 'profile',
      summary: 'Declared and measured max efforts, newest first', auth: 'bearer', scope: 'activities:read', query: ListQuery,
      responses: { 200: { description: 'Max-effort rows by date, then creation, newest first', schema: z.array(MaxEffortRow) } },
    },
    async function listMaxEfforts(ctx) {
      const input = ctx.state.input as z.output<typeof ListQuery>;
      const filter: Filter<MaxEffortRecord> = { user_id: ctx.state.auth.userId };
      const date = dateCondition(input);
      if (date) filter.date = date;
      if (input.sport?.length) filter.sport = { $in: input.sport };
      if (input.metric?.length) filter.metric = { $in: input.metric };
      const records = await deps.store.max_efforts.find(filter, { sort: { date: -1, created_at: -1 } });
      ctx.body = records.map(presentMaxEffort);
    },
  );

  table.add(
    {
      method: 'post', path: '/api/v1/profile/max-efforts', operationId: 'createMaxEffort', tag: 'profile',
      summary: 'Write a declared or measured max effort', auth: 'bearer', scope: 'activities:write', body: MaxEffortWrite,
      responses: { 200: { description: 'The row as stored', schema: MaxEffortRow } },
    },
    async function createMaxEffort(ctx) {
      const body = ctx.state.body as z.output<typeof MaxEffortWrite>;
      const distance = body.distance ?? null;
      const record: MaxEffortRecord = {
        id: newId(), user_id: ctx.state.auth.userId, sport: body.sport, metric: body.metric, date: body.date,
        duration_s: body.duration, distance,
        // "for a race, speed is derived"
        value: distance !== null ? distance / body.duration : body.value!,
        provenance: body.provenance, title: body.title ?? null,
        source: null, application_id: ctx.state.auth.applicationId, activity_id: null, created_at: Date.now(),
      };
      await deps.store.max_efforts.insert(record);
      ctx.body = presentMaxEffort(record);
    },
  );

  table.add(
    {
      method: 'delete', path: '/api/v1/profile/max-efforts/{max_effort_id}', operationId: 'deleteMaxEffort', tag: 'profile',
      summary: 'Delete a max effort', auth: 'bearer', scope: 'activities:write', params: MaxEffortParams,
      responses: { 204: { description: 'Deleted' }, 404: { description: 'Unknown max effort' } },
    },
    async function deleteMaxEffort(ctx) {
      const { max_effort_id: id } = ctx.state.input as z.output<typeof MaxEffortParams>;
      if ((await deps.store.max_efforts.deleteMany({ id, user_id: ctx.state.auth.userId })) === 0) throw new NotFoundError('Max effort not found');
      ctx.status = 204;
    },
  );
}
