/**
 * Activities (interface §4 "Activities"). This file grows with the activity issue; for now: the list.
 */
import { z } from 'zod';
import type { ActivityRecord, Filter } from '../../storage/store.js';
import { canonicalSport, sportMatches, sportStorePrefix } from '../../domain/sport.js';
import { dateSchema } from '../../domain/time.js';
import { presentActivitySummary } from '../presenters/activity.js';
import { queryArray, queryInt, queryString } from '../schemas/query.js';
import { ValidationError } from '../errors.js';
import type { RouteTable } from './route-table.js';
import type { GatewayDeps } from '../app.js';

const sportFilter = z.string().min(1).max(200);

const ListQuery = z.object({
  start: queryString(dateSchema).optional().describe("Earliest local date of the activity's start (inclusive)"),
  end: queryString(dateSchema).optional().describe("Latest local date of the activity's start (inclusive)"),
  limit: queryInt({ min: 1, max: 1000 }).default(50),
  offset: queryInt({ min: 0 }).default(0),
  sport: queryArray(sportFilter).optional().describe('Match any; a parent sport also matches its sub-sports'),
  sports: queryString(z.string().max(2000)).optional().meta({ deprecated: true, description: 'Deprecated: comma-separated sports; use repeated sport' }),
  tags: queryArray(z.string().max(200)).optional().describe('The activity must carry all of them'),
});

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
      responses: { 200: { description: 'Activity summaries', schema: z.array(z.object({}).passthrough()) } },
    },
    async function listActivities(ctx) {
      const input = ctx.state.input as z.output<typeof ListQuery>;
      const sports = sportFilters(input.sport ?? [], input.sports);
      const filter: Filter<ActivityRecord> = { user_id: ctx.state.auth.userId };
      if (input.start || input.end) filter.local_date = { ...(input.start && { $gte: input.start }), ...(input.end && { $lte: input.end }) };
      if (input.tags?.length) filter.tags = { $all: input.tags };
      if (sports.length) filter.$or = sports.map((sport) => ({ sport: { $prefix: sportStorePrefix(sport) ?? sport } }));
      // Modifier containment is checked here, so page only after it when sports are filtered.
      const paging = sports.length ? {} : { limit: input.limit, offset: input.offset };
      let records = await deps.store.activities.find(filter, { sort: { start: -1 }, ...paging });
      if (sports.length) {
        records = records.filter((record) => sports.some((sport) => sportMatches(record.sport, sport)));
        records = records.slice(input.offset, input.offset + input.limit);
      }
      ctx.body = records.map((record) => presentActivitySummary(record, ctx.state.auth));
    },
  );
}

/** Repeated `sport` plus the deprecated comma-separated `sports`, canonicalised (legacy names mapped). */
function sportFilters(sport: string[], sports: string | undefined): string[] {
  const raw = [...sport, ...(sports ? sports.split(',').map((part) => part.trim()).filter(Boolean) : [])];
  return raw.map((value, index) => {
    const canonical = canonicalSport(value);
    if (canonical === null) {
      throw ValidationError.single(['query', index < sport.length ? 'sport' : 'sports'], `'${value}' is not a valid Open Sport Taxonomy sport`);
    }
    return canonical;
  });
}
