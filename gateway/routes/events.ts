/**
 * The event feed (issue 15; gaps.md "Events"): `GET /api/v1/events?after=<cursor>&limit=` lists the
 * subject's events oldest first after the cursor, each exactly the body a webhook carries (same `id`,
 * storage/events.ts `eventBody`), with `next`, the cursor to ask with next time (the same cursor when
 * nothing new was published). A receiver that missed deliveries catches up here and drops the ids it has.
 *
 * Scope: the route needs `activities:read`, and an event is listed only when the token carries the scope
 * that reads its kind (EVENT_SCOPES), as a webhook goes only to an application whose grant carries it.
 * Events appear once published (engine/events/publish.ts: within a second of the change, as webhooks are
 * first attempted), and cursors are publication positions, so events written in the same millisecond are
 * neither skipped nor repeated. Kept honest by test/gateway/events-feed.test.ts.
 */
import { z } from 'zod';
import { named } from '../schemas/components.js';
import { decodeEventCursor, encodeEventCursor, eventBody, eventVisibleTo, type EventBody } from '../../storage/events.js';
import { pageParameters } from '../schemas/query.js';
import type { RouteTable } from '../route-table.js';
import type { GatewayDeps } from '../deps.js';

export const EVENT_PAGE = { default: 100, max: 1000 } as const;

const Cursor = z.string().max(64).refine((value) => decodeEventCursor(value) !== null, 'not a cursor this feed returned');

const FeedQuery = z.object({
  after: z.preprocess((value) => (Array.isArray(value) ? value[value.length - 1] : value), Cursor).optional()
    .describe('The `next` of the previous page; omitted: from the oldest event kept'),
  limit: pageParameters(EVENT_PAGE).limit,
});

const EventItem = named('Event', z.object({
  id: z.string(),
  user_id: z.string(),
  event_type: z.string(),
  resource_id: z.string(),
  timestamp: z.string().describe('UTC instant of the change'),
}));

const FeedPage = named('EventPage', z.object({
  events: z.array(EventItem),
  next: z.string().describe('Opaque cursor: pass it as `after` to read on'),
}));

export function eventRoutes(table: RouteTable, deps: GatewayDeps): void {
  table.add(
    {
      method: 'get', path: '/api/v1/events', operationId: 'listEvents', tag: 'events',
      summary: 'Events after a cursor, oldest first: the same events, ids and bodies webhooks deliver',
      auth: 'bearer', scope: 'activities:read', query: FeedQuery,
      responses: { 200: { description: 'A page of events and the cursor after it', schema: FeedPage } },
    },
    async function listEvents(ctx) {
      const input = ctx.state.input as z.output<typeof FeedQuery>;
      let after = input.after === undefined ? 0 : decodeEventCursor(input.after)!;
      const events: EventBody[] = [];
      // Events the token may not see are passed over (the cursor still moves past them).
      for (;;) {
        const want = input.limit - events.length;
        const page = await deps.store.events.find({ user_id: ctx.state.auth.userId, seq: { $gt: after } }, { sort: { seq: 1 }, limit: want });
        for (const event of page) {
          after = event.seq!;
          if (eventVisibleTo(event.event_type, ctx.state.auth.scopes)) events.push(eventBody(event));
        }
        if (page.length < want || events.length >= input.limit) break;
      }
      ctx.body = { events, next: encodeEventCursor(after) };
    },
  );
}
