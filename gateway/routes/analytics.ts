/**
 * The analysis endpoints (interface §4 "Activities", "Duration grids"): one activity's mean-max curve and
 * accumulated work duration, and the longitudinal mean-max (with fatigue states) and AWD. Each route
 * validates (every problem a 422 in the interface's shape), checks ownership where an activity is named,
 * and relays one engine call; the engine computes and writes the Parquet in its worker pool.
 *
 * Every answer names the algorithm version of the numbers (`Threshold-Algorithm: analysis/<n>`, the
 * version of the canonical series and kernels that key the engine's analysis caches).
 *
 * The fixed `/activities/longitudinal-…` paths are registered before `activityByIdRoutes`
 * (routes/index.ts). test/gateway/analytics.test.ts runs them on the real stack.
 */
import { tableFromIPC } from 'apache-arrow';
import { z } from 'zod';
import { ANALYSIS_ALGORITHM, MAX_AFTER_STATES } from '../../engine/contract.js';
import { durationsParameter, requestedDurations } from '../schemas/durations.js';
import type { GatewayDeps } from '../deps.js';
import { queryArray, queryString } from '../schemas/query.js';
import { PARQUET_MEDIA_TYPE, PARQUET_RESPONSE, sendParquet } from '../presenters/parquet.js';
import { engineCallOptions } from '../client-gone.js';
import { ownActivityId } from '../services/activities.js';
import { activityMeanMax, longitudinalMeanMax } from '../services/analyses.js';
import { deprecatedWindowParameters, rangeParameters, requestedRange, requestedSports, sportParameters } from '../schemas/activity-filters.js';
import type { RouteTable } from '../route-table.js';

const metricParameter = queryString(z.enum(['power', 'speed']));

const ActivityParams = z.object({ activity_id: z.string().min(1).max(64).describe("The activity's id") });

const MeanMaxQuery = z.object({
  metric: metricParameter.default('power').describe('power (W) or speed (m/s)'),
  durations: durationsParameter,
});

const AwdQuery = z.object({
  metric: metricParameter.optional().describe('power or speed; default power for cycling, speed otherwise'),
});

const LongitudinalMeanMaxQuery = z.object({
  ...sportParameters,
  metric: metricParameter.default('power').describe('power (W) or speed (m/s)'),
  ...rangeParameters,
  durations: durationsParameter,
  after: queryArray(z.string().max(32).regex(/^\s*\d+(\.\d+)?\s*$/, 'after must be a number ≥ 0').transform(Number), { max: MAX_AFTER_STATES })
    .optional()
    .describe('Repeatable (at most 5): the curve after this much accumulated work (kJ, power) or distance (m, speed). The date range is then capped at one year.'),
  by: queryString(z.enum(['duration'])).optional().describe('duration: the curve indexed by duration (the only orientation, and the default)'),
  ...deprecatedWindowParameters,
});

const LongitudinalAwdQuery = z.object({
  ...sportParameters,
  metric: metricParameter.optional().describe('power or speed; default power when every sport is cycling (or none is given), else speed'),
  ...rangeParameters,
  format: queryString(z.enum(['parquet', 'json'])).default('parquet').describe('parquet (default) or json'),
  ...deprecatedWindowParameters,
});

export function analyticsRoutes(table: RouteTable, deps: GatewayDeps): void {
  table.add(
    {
      method: 'get', path: '/api/v1/activities/longitudinal-mean-max', operationId: 'getLongitudinalMeanMax', tag: 'activities',
      summary: 'The best mean-max curve across matching activities as Parquet: duration, the metric, start, activity_id, sport (and after)',
      auth: 'bearer', scope: 'activities:read', query: LongitudinalMeanMaxQuery, responses: { 200: PARQUET_RESPONSE },
    },
    async function getLongitudinalMeanMax(ctx) {
      const input = ctx.state.input as z.output<typeof LongitudinalMeanMaxQuery>;
      const sports = requestedSports(input, true);
      const range = requestedRange(input);
      const data = await longitudinalMeanMax(
        deps, ctx.state.auth.userId,
        { sports, metric: input.metric, start: range.start, end: range.end, durations: requestedDurations(input.durations), after: input.after ?? [] },
        'PARQUET', engineCallOptions(ctx),
      );
      ctx.set('Threshold-Algorithm', ANALYSIS_ALGORITHM);
      sendParquet(ctx, data);
    },
  );

  table.add(
    {
      method: 'get', path: '/api/v1/activities/longitudinal-accumulated-work-duration', operationId: 'getLongitudinalAccumulatedWorkDuration', tag: 'activities',
      summary: 'In development: accumulated work duration per intensity — max (highest daily AWD), hard, medium, easy (90th, 75th, 50th percentile of daily AWD over training days), seconds',
      auth: 'bearer', scope: 'activities:read', query: LongitudinalAwdQuery,
      responses: { 200: { description: `Parquet file, or JSON rows with format=json; header Threshold-Algorithm: ${ANALYSIS_ALGORITHM}`, mediaType: PARQUET_MEDIA_TYPE } },
    },
    async function getLongitudinalAccumulatedWorkDuration(ctx) {
      const input = ctx.state.input as z.output<typeof LongitudinalAwdQuery>;
      const sports = requestedSports(input, false);
      const { start, end } = requestedRange(input);
      const result = await deps.engine.longitudinalAccumulatedWorkDuration(
        {
          user_id: ctx.state.auth.userId, sports, start_date: start ?? '', end_date: end, metric: input.metric ?? '',
          format: input.format === 'json' ? 'ARROW_IPC' : 'PARQUET',
        },
        engineCallOptions(ctx),
      );
      ctx.set('Threshold-Algorithm', ANALYSIS_ALGORITHM);
      if (input.format === 'json') ctx.body = tableFromIPC(result.data).toArray().map((row) => row.toJSON());
      else sendParquet(ctx, result.data);
    },
  );
}

/** Routes under `/activities/{activity_id}/…`; registered with the other by-id routes. */
export function activityAnalyticsRoutes(table: RouteTable, deps: GatewayDeps): void {
  table.add(
    {
      method: 'get', path: '/api/v1/activities/{activity_id}/mean-max', operationId: 'getActivityMeanMax', tag: 'activities',
      summary: "The activity's mean-max curve as Parquet: duration (s), the metric, start (UTC instant the best effort began); durations it did not last are left out",
      auth: 'bearer', scope: 'activities:read', params: ActivityParams, query: MeanMaxQuery,
      responses: { 200: PARQUET_RESPONSE, 404: { description: 'Unknown activity' } },
    },
    async function getActivityMeanMax(ctx) {
      const input = ctx.state.input as z.output<typeof MeanMaxQuery> & z.output<typeof ActivityParams>;
      const data = await activityMeanMax(
        deps, ctx.state.auth.userId, input.activity_id, { metric: input.metric, durations: requestedDurations(input.durations) }, 'PARQUET', engineCallOptions(ctx),
      );
      ctx.set('Threshold-Algorithm', ANALYSIS_ALGORITHM);
      sendParquet(ctx, data);
    },
  );

  table.add(
    {
      method: 'get', path: '/api/v1/activities/{activity_id}/accumulated-work-duration', operationId: 'getActivityAccumulatedWorkDuration', tag: 'activities',
      summary: 'How long the activity spent at or above each intensity, as Parquet: the metric (highest first) and duration (s)',
      auth: 'bearer', scope: 'activities:read', params: ActivityParams, query: AwdQuery,
      responses: { 200: PARQUET_RESPONSE, 404: { description: 'Unknown activity' } },
    },
    async function getActivityAccumulatedWorkDuration(ctx) {
      const input = ctx.state.input as z.output<typeof AwdQuery> & z.output<typeof ActivityParams>;
      const activityId = await ownActivityId(deps, input.activity_id, ctx.state.auth.userId);
      const result = await deps.engine.accumulatedWorkDuration(
        { user_id: ctx.state.auth.userId, activity_id: activityId, metric: input.metric ?? '', format: 'PARQUET' },
        engineCallOptions(ctx),
      );
      ctx.set('Threshold-Algorithm', ANALYSIS_ALGORITHM);
      sendParquet(ctx, result.data);
    },
  );
}
