/** Profile listings derived from the user's data: tags and sports (interface §4 "Profile"). */
import { z } from 'zod';
import { rootSport } from '../../domain/sport.js';
import { queryBool } from '../schemas/query.js';
import type { RouteTable } from '../route-table.js';
import type { GatewayDeps } from '../deps.js';

const SportsQuery = z.object({ only_root: queryBool().default(false).describe('Top-level sports only') });

export function profileRoutes(table: RouteTable, deps: GatewayDeps): void {
  table.add(
    {
      method: 'get', path: '/api/v1/profile/tags/', operationId: 'listTags', tag: 'profile',
      summary: 'Tags the user has used on activities, traces and tests', auth: 'bearer', scope: 'activities:read',
      responses: { 200: { description: 'Tags, sorted', schema: z.array(z.string()) } },
    },
    async function listTags(ctx) {
      const userId = ctx.state.auth.userId;
      const withTags = { user_id: userId, tags: { $exists: true } } as const;
      // One query per collection, reading the tags alone.
      const [activities, traces, tests] = await Promise.all([
        deps.store.activities.findFields(withTags, ['tags']),
        deps.store.traces.findFields(withTags, ['tags']),
        deps.store.tests.findFields(withTags, ['tags']),
      ]);
      const tags = new Set<string>();
      for (const record of [...activities, ...traces, ...tests]) for (const tag of record.tags) tags.add(tag);
      ctx.body = [...tags].sort();
    },
  );

  table.add(
    {
      method: 'get', path: '/api/v1/profile/sports/', operationId: 'listSports', tag: 'profile',
      summary: 'Sports the user has activities in', auth: 'bearer', scope: 'activities:read', query: SportsQuery,
      responses: { 200: { description: 'Open Sport Taxonomy strings, sorted', schema: z.array(z.string()) } },
    },
    async function listSports(ctx) {
      const { only_root: onlyRoot } = ctx.state.input as z.output<typeof SportsQuery>;
      const activities = await deps.store.activities.find({ user_id: ctx.state.auth.userId });
      const sports = new Set(activities.map((activity) => (onlyRoot ? (rootSport(activity.sport) ?? activity.sport) : activity.sport)));
      ctx.body = [...sports].sort();
    },
  );
}
