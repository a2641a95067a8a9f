/** Profile listings derived from the user's data: tags and sports (interface §4 "Profile"). */
import { z } from 'zod';
import { userSports, userTags } from '../services/profile-listings.js';
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
      ctx.body = await userTags(deps.store, ctx.state.auth.userId);
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
      ctx.body = await userSports(deps.store, ctx.state.auth.userId, onlyRoot);
    },
  );
}
