/**
 * `GET /api/v1/profile/template-week` (interface §4 "Profile", §2 "Template week"; ANALYTICS.md §9): the
 * engine's GetTemplateWeek as of `date` (default today, UTC), answered as the interface's object — keys
 * monday … sunday, each `{sports, avg_training_duration, typical_training_duration}`, durations ISO 8601 —
 * with the algorithm version in the `Threshold-Algorithm` header. Kept honest by
 * test/gateway/template-week.test.ts on the real stack.
 */
import { z } from 'zod';
import { named } from '../schemas/components.js';
import { TEMPLATE_WEEKDAYS } from '../../engine/contract.js';
import { dateSchema, todayLocal } from '../../domain/time.js';
import { queryString } from '../schemas/query.js';
import { engineCallOptions } from '../client-gone.js';
import type { RouteTable } from '../route-table.js';
import type { GatewayDeps } from '../deps.js';

const TemplateWeekQuery = z.object({
  date: queryString(dateSchema).optional().describe('The profile as of this date (inclusive), YYYY-MM-DD; default today (UTC). The template is built from the 12 complete ISO weeks before the week of this date.'),
});

const TemplateDay = z.object({
  sports: z.array(z.string()).describe('Sports done on this weekday in at least a third of the weeks, most weeks first'),
  avg_training_duration: z.string().describe('Mean daily training time over the 12 weeks, zero days included (ISO 8601 duration)'),
  typical_training_duration: z.string().describe('Median daily training time over the 12 weeks (ISO 8601 duration)'),
});

const TemplateWeek = named('TemplateWeek', z.object(Object.fromEntries(TEMPLATE_WEEKDAYS.map((day) => [day, TemplateDay])) as Record<(typeof TEMPLATE_WEEKDAYS)[number], typeof TemplateDay>));

export function templateWeekRoutes(table: RouteTable, deps: GatewayDeps): void {
  table.add(
    {
      method: 'get', path: '/api/v1/profile/template-week', operationId: 'getTemplateWeek', tag: 'profile',
      summary: 'The template week built from the last 12 complete ISO weeks of training; header Threshold-Algorithm: template-week/1',
      auth: 'bearer', scope: 'activities:read', query: TemplateWeekQuery,
      responses: { 200: { description: 'Keys monday … sunday; no history gives every day [] and PT0S. The Threshold-Algorithm header names the algorithm version.', schema: TemplateWeek } },
    },
    async function getTemplateWeek(ctx) {
      const input = ctx.state.input as z.output<typeof TemplateWeekQuery>;
      const week = await deps.engine.templateWeek({ user_id: ctx.state.auth.userId, date: input.date ?? todayLocal() }, engineCallOptions(ctx));
      ctx.set('Threshold-Algorithm', week.algorithm);
      ctx.body = Object.fromEntries(TEMPLATE_WEEKDAYS.map((day) => [day, week[day]]));
    },
  );
}
