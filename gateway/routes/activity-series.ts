/**
 * Activity series as Parquet (interface §4 "Activities"): `GET /activities/{activity_id}/data` (one
 * activity, one row per sample) and `GET /activities/longitudinal-data` (every matching activity,
 * concatenated). The engine encodes and streams the file (GetActivitySeries, GetLongitudinalSeries);
 * these routes validate, check ownership, and pipe the engine's chunks straight into the response with
 * backpressure: nothing here holds the whole file. A failure before the first chunk is answered as
 * the mapped HTTP error; one after it aborts the response (a Parquet reader rejects the cut file, as it
 * lacks its footer). A client that goes away cancels the engine call.
 *
 * `/longitudinal-data` is a fixed path beside `/{activity_id}`: these routes are registered before
 * `activityByIdRoutes` (routes/index.ts). With `segmentation_on`, the engine writes adaptive segments
 * (engine/analysis/segments.ts) instead of samples.
 * test/gateway/activity-series.test.ts runs them on the real stack.
 */
import { z } from 'zod';
import { DEFAULT_METRICS, METRICS, SEGMENTATION_ALGORITHM } from '../../engine/contract.js';
import { queryArray, queryString } from '../schemas/query.js';
import type { RouteTable } from '../route-table.js';
import { PARQUET_RESPONSE, sendParquet } from '../presenters/parquet.js';
import { engineCallOptions } from '../client-gone.js';
import { activitySeries } from '../services/analyses.js';
import { rangeParameters, requestedRange, requestedSports, sportParameters } from '../schemas/activity-filters.js';
import type { GatewayDeps } from '../deps.js';

/**
 * Deadline of a longitudinal call, milliseconds: it covers the whole transfer (the engine encodes as
 * the client reads), so it is longer than the default engine deadline; it also bounds how long a
 * stalled client can hold an engine worker.
 */
const LONGITUDINAL_DEADLINE_MS = 10 * 60_000;

const metricsParameter = queryArray(z.enum(METRICS))
  .default([...DEFAULT_METRICS])
  .describe('Repeated; columns in this order, one per metric: a metric the activity lacks is a column of nulls.');

const DataParams = z.object({ activity_id: z.string().min(1).max(64).describe("The activity's id") });

/** "segmentation_on (power or speed, optional; downsamples with the adaptive intensity segmentation codec)" */
const segmentationParameter = queryString(z.enum(['power', 'speed'])).optional()
  .describe('Rows become adaptive intensity segments of this metric (error on its cumulative curve per activity, at most 200 J or 2 m: mean-max from the rows is within 2 % of the samples\' beyond 20 s; header Threshold-Algorithm: segments/3); duration is then each segment\'s length in seconds');

const DataQuery = z.object({ metrics: metricsParameter, segmentation_on: segmentationParameter });

const LongitudinalQuery = z.object({
  ...sportParameters,
  metrics: metricsParameter.describe('Repeated; columns in this order after activity_id and sport. duration is always included.'),
  ...rangeParameters,
  segmentation_on: segmentationParameter,
});

export function activitySeriesRoutes(table: RouteTable, deps: GatewayDeps): void {
  table.add(
    {
      method: 'get', path: '/api/v1/activities/longitudinal-data', operationId: 'getLongitudinalData', tag: 'activities',
      summary: 'Series of every matching activity, concatenated, as Parquet: timestamp, timestamp_local, activity_id, sport, then one column per metric',
      auth: 'bearer', scope: 'activities:read', query: LongitudinalQuery,
      responses: { 200: PARQUET_RESPONSE },
    },
    async function getLongitudinalData(ctx) {
      const input = ctx.state.input as z.output<typeof LongitudinalQuery>;
      // "sport (array, required)"; the deprecated `sports` alias counts.
      const sports = requestedSports(input, true);
      const { start, end } = requestedRange(input);
      const body = await deps.engine.longitudinalSeries(
        {
          user_id: ctx.state.auth.userId, sports, start_date: start ?? '', end_date: end, metrics: input.metrics, format: 'PARQUET',
          segmentation_on: input.segmentation_on ?? '',
        },
        { ...engineCallOptions(ctx), deadlineMs: LONGITUDINAL_DEADLINE_MS },
      );
      if (input.segmentation_on) ctx.set('Threshold-Algorithm', SEGMENTATION_ALGORITHM);
      sendParquet(ctx, body);
    },
  );

  table.add(
    {
      method: 'get', path: '/api/v1/activities/{activity_id}/data', operationId: 'getActivityData', tag: 'activities',
      summary: "The activity's series as Parquet, one row per sample: timestamp, timestamp_local, then one column per metric",
      auth: 'bearer', scope: 'activities:read', params: DataParams, query: DataQuery,
      responses: { 200: PARQUET_RESPONSE, 404: { description: 'Unknown activity' } },
    },
    async function getActivityData(ctx) {
      const input = ctx.state.input as z.output<typeof DataQuery> & z.output<typeof DataParams>;
      const body = await activitySeries(
        deps, ctx.state.auth.userId, input.activity_id, { metrics: input.metrics, segmentationOn: input.segmentation_on }, 'PARQUET', engineCallOptions(ctx),
      );
      if (input.segmentation_on) ctx.set('Threshold-Algorithm', SEGMENTATION_ALGORITHM);
      sendParquet(ctx, body);
    },
  );
}
