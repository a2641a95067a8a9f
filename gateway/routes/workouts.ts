/**
 * Scheduled workouts (interface §4 "Scheduled workouts", beta; gaps.md "Shapes → Scheduled workouts"):
 * `POST /api/v1/workouts/schedule` stores an SWF v0.4.0 workout and answers it with one `pending`
 * delivery per connected integration that takes workouts (none: `deliveries: []` and a warning); the
 * engine then sends it and each delivery becomes `delivered` or `failed` with a `reason`.
 * `GET /api/v1/workouts/schedule` lists them soonest first (`application_id`, `start`/`end` local dates,
 * `limit` ≤ 100, `offset`); `GET /api/v1/workouts/schedule/{workout_id}` reads one (polling `deliveries`);
 * `DELETE /api/v1/workouts/schedule/{workout_id}` removes it here and, where the provider documents how,
 * there (the answer's `warnings` name the providers where it stays); an app token deletes only what its
 * application scheduled (services/workouts.ts `deletableWorkout`). Scopes: workouts:read, workouts:write
 * (interface §5). Kept honest by test/gateway/workouts.test.ts.
 */
import { z } from 'zod';
import { ScheduledWorkout, ScheduleListQuery, ScheduleWrite, WorkoutParams, type ScheduleInput } from '../schemas/workouts.js';
import { presentWorkout } from '../presenters/workout.js';
import { applicationNames, deletableWorkout, deleteWorkout, findWorkouts, ownWorkout, scheduleWorkout } from '../services/workouts.js';
import { checkDateRange } from '../schemas/date-range.js';
import type { RouteTable } from '../route-table.js';
import type { GatewayDeps } from '../deps.js';

const PATH = '/api/v1/workouts/schedule';

const Deleted = z.object({
  id: z.string(),
  deleted: z.literal(true),
  warnings: z.array(z.string()).describe('Providers where the delivered workout stays (no documented deletion)'),
});

export function workoutRoutes(table: RouteTable, deps: GatewayDeps): void {
  const { store } = deps;

  table.add(
    {
      method: 'post', path: PATH, operationId: 'scheduleWorkout', tag: 'workouts',
      summary: 'Schedule an SWF v0.4.0 workout (beta); sent asynchronously to the connected integrations',
      auth: 'bearer', scope: 'workouts:write', body: ScheduleWrite,
      responses: { 200: { description: 'The workout as stored, deliveries pending', schema: ScheduledWorkout } },
    },
    async function createScheduledWorkout(ctx) {
      const record = await scheduleWorkout(store, ctx.state.auth, ctx.state.body as ScheduleInput);
      if (record.deliveries.length > 0) deps.wakeJobs?.();
      const names = await applicationNames(store, [record]);
      ctx.body = presentWorkout(record, record.application_id ? names.get(record.application_id) ?? null : null);
    },
  );

  table.add(
    {
      method: 'get', path: PATH, operationId: 'listScheduledWorkouts', tag: 'workouts',
      summary: 'Scheduled workouts, soonest first (beta)', auth: 'bearer', scope: 'workouts:read', query: ScheduleListQuery,
      responses: { 200: { description: 'Scheduled workouts', schema: z.array(ScheduledWorkout) } },
    },
    async function listScheduledWorkouts(ctx) {
      const input = ctx.state.input as z.output<typeof ScheduleListQuery>;
      checkDateRange(input);
      const records = await findWorkouts(store, ctx.state.auth.userId, {
        ...(input.application_id && { applicationId: input.application_id }),
        ...(input.start && { start: input.start }), ...(input.end && { end: input.end }),
        limit: input.limit, offset: input.offset,
      });
      const names = await applicationNames(store, records);
      ctx.body = records.map((record) => presentWorkout(record, record.application_id ? names.get(record.application_id) ?? null : null));
    },
  );

  table.add(
    {
      method: 'get', path: `${PATH}/{workout_id}`, operationId: 'getScheduledWorkout', tag: 'workouts',
      summary: 'One scheduled workout with its delivery states (beta)', auth: 'bearer', scope: 'workouts:read', params: WorkoutParams,
      responses: { 200: { description: 'The workout', schema: ScheduledWorkout }, 404: { description: 'Unknown workout' } },
    },
    async function getScheduledWorkout(ctx) {
      const record = await ownWorkout(store, ctx.state.input.workout_id, ctx.state.auth.userId);
      const names = await applicationNames(store, [record]);
      ctx.body = presentWorkout(record, record.application_id ? names.get(record.application_id) ?? null : null);
    },
  );

  table.add(
    {
      method: 'delete', path: `${PATH}/{workout_id}`, operationId: 'deleteScheduledWorkout', tag: 'workouts',
      summary: 'Delete a scheduled workout here and, where the provider documents how, there (beta); an app token only its own application\'s',
      auth: 'bearer', scope: 'workouts:write', params: WorkoutParams,
      responses: { 200: { description: 'Deleted', schema: Deleted }, 404: { description: "Unknown workout, or one another application scheduled (an app token deletes only its own application's workouts)" } },
    },
    async function deleteScheduledWorkout(ctx) {
      const record = await deletableWorkout(store, ctx.state.input.workout_id, ctx.state.auth);
      const warnings = await deleteWorkout(store, record);
      deps.wakeJobs?.();
      ctx.body = { id: record.id, deleted: true, warnings };
    },
  );
}
