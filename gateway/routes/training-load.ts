/**
 * Training load beyond the interface (ANALYTICS.md §10; extension paths, marked `x-threshold-extension` in
 * `/openapi.json`):
 *
 * - `GET /api/v1/ext/training-load?start&end[&sport…][&format]`: one row per local day, `date`, `load`,
 *   `fitness`, `fatigue`, `form`, `activities`, `activities_without_load`, `activity_ids` (comma-separated).
 *   The conventions of `/activities/longitudinal-accumulated-work-duration`: Parquet by default, the same
 *   rows as JSON with `format=json`; repeated `sport` (a parent matches its sub-sports); `start`/`end` local
 *   dates, `end` defaulting to today (UTC), no `start` = from the first activity; a start after the end,
 *   an unknown sport or a malformed date is a 422 in the interface's shape.
 * - `GET /api/v1/ext/activities/{activity_id}/numbers[?zone_system]`: the activity's moving time, work,
 *   weighted intensity, intensity factor and load with the threshold they came from (or why there is no
 *   load), and time in each zone of the athlete's zones on its local date.
 *
 * Scope `activities:read`, as the activity data. Numbers name their algorithm in `Threshold-Algorithm`.
 * test/gateway/training-load.test.ts runs both on the real stack against a reference from the raw samples.
 */
import { z } from 'zod';
import { daysBetween } from '../../domain/time.js';
import { MAX_LOAD_DAYS, TRAINING_LOAD_ALGORITHM, ZONE_SYSTEM_NAMES } from '../../engine/contract.js';
import { ValidationError } from '../errors.js';
import { engineCallOptions } from '../client-gone.js';
import type { GatewayDeps } from '../deps.js';
import { PARQUET_MEDIA_TYPE, sendParquet } from '../presenters/parquet.js';
import type { RouteTable } from '../route-table.js';
import { ActivityNumbersBody } from '../presenters/activity-numbers.js';
import { activityNumbers } from '../services/activity-numbers.js';
import { rangeParameters, requestedRange, requestedSports, sportParameters } from '../schemas/activity-filters.js';
import { queryString } from '../schemas/query.js';
import { loadRowsOf, trainingLoadTable } from '../services/training-load.js';

const TrainingLoadQuery = z.object({
  ...sportParameters,
  ...rangeParameters,
  format: queryString(z.enum(['parquet', 'json'])).default('parquet').describe('parquet (default) or json'),
});

const ActivityParams = z.object({ activity_id: z.string().min(1).max(64).describe("The activity's id") });

const NumbersQuery = z.object({
  zone_system: queryString(z.enum(ZONE_SYSTEM_NAMES)).optional()
    .describe('The zone system of every quantity; default seven_zone for power and speed, olt_i_scale for heart rate'),
});

export function trainingLoadRoutes(table: RouteTable, deps: GatewayDeps): void {
  table.add(
    {
      method: 'get', path: '/api/v1/ext/training-load', operationId: 'getTrainingLoad', tag: 'activities', extension: true,
      summary: 'Daily training load, fitness (42 d), fatigue (7 d) and form (ANALYTICS.md §10), Parquet or JSON rows',
      auth: 'bearer', scope: 'activities:read', query: TrainingLoadQuery,
      responses: { 200: { description: `Parquet file, or JSON rows with format=json; header Threshold-Algorithm: ${TRAINING_LOAD_ALGORITHM}`, mediaType: PARQUET_MEDIA_TYPE } },
    },
    async function getTrainingLoad(ctx) {
      const input = ctx.state.input as z.output<typeof TrainingLoadQuery>;
      const sports = requestedSports(input, false);
      const { start, end } = requestedRange(input);
      if (start !== null && daysBetween(start, end) + 1 > MAX_LOAD_DAYS) {
        throw ValidationError.single(['query', 'start'], `at most ${MAX_LOAD_DAYS} days from start to end, not ${daysBetween(start, end) + 1}`);
      }
      const data = await trainingLoadTable(deps, ctx.state.auth.userId, { sports, start, end }, input.format === 'json' ? 'ARROW_IPC' : 'PARQUET', engineCallOptions(ctx));
      ctx.set('Threshold-Algorithm', TRAINING_LOAD_ALGORITHM);
      // The Parquet file's rows; its int64 counts as JSON numbers.
      if (input.format === 'json') ctx.body = loadRowsOf(data);
      else sendParquet(ctx, data);
    },
  );

  table.add(
    {
      method: 'get', path: '/api/v1/ext/activities/{activity_id}/numbers', operationId: 'getActivityNumbers', tag: 'activities', extension: true,
      summary: 'Moving time, work, weighted intensity, intensity factor, load (with its threshold) and time in zones of one activity (ANALYTICS.md §10)',
      auth: 'bearer', scope: 'activities:read', params: ActivityParams, query: NumbersQuery,
      responses: {
        200: { description: `The numbers; header Threshold-Algorithm: ${TRAINING_LOAD_ALGORITHM}`, schema: ActivityNumbersBody },
        404: { description: 'Unknown activity' },
      },
    },
    async function getActivityNumbers(ctx) {
      const input = ctx.state.input as z.output<typeof NumbersQuery> & z.output<typeof ActivityParams>;
      const numbers = await activityNumbers(deps, ctx.state.auth.userId, input.activity_id, input.zone_system ?? null, engineCallOptions(ctx));
      ctx.set('Threshold-Algorithm', numbers.algorithm);
      ctx.body = numbers.body;
    },
  );
}
