/**
 * Outbox events (DESIGN.md §6): written in the same batch as the change they report, published in feed
 * order by the engine's dispatcher (engine/events/) and delivered to each application's webhook endpoints
 * afterwards, at least once. Payload per gaps.md "Events": `{user_id, event_type, resource_id, timestamp}`,
 * plus the event's `id` so a receiver can drop duplicates and match a delivery with the feed's item.
 *
 * This file is the one definition of what goes out, shared by webhooks and GET /api/v1/events: the body,
 * which scope an application needs to receive each kind, and the feed cursor.
 * Kept honest by test/engine/webhooks.test.ts and test/gateway/events-feed.test.ts.
 */
import type { EventRecord } from './records.js';
import { newId } from './ids.js';
import { formatUtc } from '../domain/time.js';

export const EVENT_TYPES = [
  'source_processed', 'source_failed', 'activity_created', 'activity_updated', 'activity_deleted', 'activity_analyzed',
  'test_created', 'test_updated', 'test_deleted',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/**
 * The scope that reads each kind's resource: an application receives an event (webhook or feed) only when
 * its grant (the token, for the feed) carries it. Sources, activities and tests are all read with
 * `activities:read` (interface §5: "everything under /activities/, /tests/, /traces/").
 */
export const EVENT_SCOPES: Record<EventType, string> = {
  source_processed: 'activities:read',
  source_failed: 'activities:read',
  activity_created: 'activities:read',
  activity_updated: 'activities:read',
  activity_deleted: 'activities:read',
  activity_analyzed: 'activities:read',
  test_created: 'activities:read',
  test_updated: 'activities:read',
  test_deleted: 'activities:read',
};

/** Whether a holder of `scopes` may see an event of this kind (an unknown kind: never). */
export function eventVisibleTo(eventType: string, scopes: { has(scope: string): boolean }): boolean {
  const scope = (EVENT_SCOPES as Record<string, string | undefined>)[eventType];
  return scope !== undefined && scopes.has(scope);
}

/** Increases with every event this process writes: publication keeps a batch's events in the order written. */
let written = 0;

export function newEvent(userId: string, eventType: EventType, resourceId: string, now = Date.now()): EventRecord {
  written += 1;
  return { id: newId(), user_id: userId, event_type: eventType, resource_id: resourceId, timestamp: now, deliveries: {}, status: 'pending', created_at: now, ord: written };
}

/** What a webhook carries and the feed lists, field for field. */
export interface EventBody {
  id: string;
  user_id: string;
  event_type: string;
  resource_id: string;
  /** When the change happened, as every instant of the API is written (`2024-05-01T05:00:00.250Z`, UTC). */
  timestamp: string;
}

export function eventBody(event: EventRecord): EventBody {
  return { id: event.id, user_id: event.user_id, event_type: event.event_type, resource_id: event.resource_id, timestamp: formatUtc(event.timestamp) };
}

/**
 * The feed cursor: the event's publication number, opaque to clients (base64url of `e1:<seq>`). Ordered
 * and stable: publication numbers are unique and commit in increasing order (engine/events/publish.ts),
 * so events written in the same millisecond are neither skipped nor repeated.
 */
export function encodeEventCursor(seq: number): string {
  return Buffer.from(`e1:${seq}`).toString('base64url');
}

/** The publication number in a cursor, or null when it is not one of ours. */
export function decodeEventCursor(cursor: string): number | null {
  if (!/^[A-Za-z0-9_-]{1,40}$/.test(cursor)) return null;
  const match = /^e1:(0|[1-9]\d{0,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) return null;
  const seq = Number(match[1]);
  return Number.isSafeInteger(seq) ? seq : null;
}
