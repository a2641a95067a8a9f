/**
 * Activities (interface §4 "Activities"): the list, the latest, one activity, and the calling app's
 * metadata on it. Routes on `/activities/{activity_id}` are registered last (`activityByIdRoutes`), so
 * fixed paths such as `/activities/latest` and `/activities/longitudinal-data` are never read as ids.
 */
import { z } from 'zod';
import type { ActivityRecord, Filter } from '../../storage/store.js';
import { sportMatches, sportStorePrefix } from '../../domain/sport.js';
import { sportFilters } from '../schemas/activity-filters.js';
import { activityDetails, ownActivity } from '../services/activities.js';
import { dateSchema } from '../../domain/time.js';
import { activityListJson, NEWEST_FIRST } from '../services/activity-listing.js';
import { ActivityDetails, ActivitySummary } from '../schemas/resources.js';
import { recordAppMetadataRoutes } from '../app-metadata-routes.js';
import { pageParameters, queryArray, queryString } from '../schemas/query.js';
import type { RouteTable } from '../route-table.js';
import type { GatewayDeps } from '../deps.js';

const sportFilter = z.string().min(1).max(200);

const ListQuery = z.object({
  start: queryString(dateSchema).optional().describe("Earliest local date of the activity's start (inclusive)"),
  end: queryString(dateSchema).optional().describe("Latest local date of the activity's start (inclusive)"),
  ...pageParameters({ default: 50, max: 1000 }),
  sport: queryArray(sportFilter).optional().describe('Match any; a parent sport also matches its sub-sports'),
  sports: queryString(z.string().max(2000)).optional().meta({ deprecated: true, description: 'Deprecated: comma-separated sports; use repeated sport' }),
  tags: queryArray(z.string().max(200)).optional().describe('The activity must carry all of them'),
});

const LatestQuery = z.object({
  sport: queryString(sportFilter).optional().describe('A parent sport also matches its sub-sports'),
});
const LATEST_PAGE = 50;

const ActivityParams = z.object({ activity_id: z.string().min(1).max(64).describe("The activity's id") });

export function activityRoutes(table: RouteTable, deps: GatewayDeps): void {
  table.add(
    {
      method: 'get',
      path: '/api/v1/activities/',
      operationId: 'listActivities',
      summary: 'List activities, newest first',
      tag: 'activities',
      auth: 'bearer',
      scope: 'activities:read',
      query: ListQuery,
      responses: { 200: { description: 'Activity summaries', schema: z.array(ActivitySummary) } },
    },
    async function listActivities(ctx) {
      const input = ctx.state.input as z.output<typeof ListQuery>;
      const sports = sportFilters(input.sport ?? [], input.sports);
      // Byte for byte the JSON of presentActivitySummary over the page (services/activity-listing.ts).
      ctx.body = await activityListJson(deps, ctx.state.auth, { start: input.start, end: input.end, limit: input.limit, offset: input.offset, sports, tags: input.tags });
      ctx.type = 'application/json';
    },
  );

  table.add(
    {
      method: 'get', path: '/api/v1/activities/latest', operationId: 'latestActivity', tag: 'activities',
      summary: 'The most recent activity (null when there is none)', auth: 'bearer', scope: 'activities:read', query: LatestQuery,
      responses: { 200: { description: 'Activity details, or null', schema: ActivityDetails.nullable() } },
    },
    async function latestActivity(ctx) {
      const input = ctx.state.input as z.output<typeof LatestQuery>;
      const filter: Filter<ActivityRecord> = { user_id: ctx.state.auth.userId };
      const sport = input.sport ? sportFilters([input.sport], undefined)[0]! : null;
      if (sport) filter.sport = { $prefix: sportStorePrefix(sport) ?? sport };
      // Newest first; with a sport, skip look-alikes that only share the code prefix.
      let latest: ActivityRecord | null = null;
      for (let offset = 0; latest === null; offset += LATEST_PAGE) {
        const page = await deps.store.activities.find(filter, { sort: NEWEST_FIRST, limit: LATEST_PAGE, offset });
        latest = page.find((record) => !sport || sportMatches(record.sport, sport)) ?? null;
        if (page.length < LATEST_PAGE) break;
      }
      // "200 with body null" when the user has no (matching) activity.
      ctx.body = latest ? await activityDetails(deps, latest, ctx.state.auth) : 'null';
      ctx.type = 'application/json';
    },
  );
}

/** Routes under `/activities/{activity_id}`; registered after every fixed `/activities/…` path. */
export function activityByIdRoutes(table: RouteTable, deps: GatewayDeps): void {
  table.add(
    {
      method: 'get', path: '/api/v1/activities/{activity_id}', operationId: 'getActivity', tag: 'activities',
      summary: 'One activity with its summary and laps', auth: 'bearer', scope: 'activities:read', params: ActivityParams,
      responses: { 200: { description: 'Activity details', schema: ActivityDetails }, 404: { description: 'Unknown activity' } },
    },
    async function getActivity(ctx) {
      ctx.body = await activityDetails(deps, await ownActivity(deps, ctx.state.input.activity_id, ctx.state.auth.userId), ctx.state.auth);
    },
  );

  recordAppMetadataRoutes(table, {
    path: '/api/v1/activities/{activity_id}', noun: 'Activity', tag: 'activities', params: ActivityParams,
    collection: deps.store.activities, maxBytes: 1024,
    load: (input, userId) => ownActivity(deps, input.activity_id!, userId),
  });
}
