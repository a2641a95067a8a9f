/**
 * Outbox events (DESIGN.md §6): written in the same batch as the change they report, delivered to
 * each application's webhook endpoints afterwards, at least once. Payload per gaps.md "Events":
 * `{user_id, event_type, resource_id, timestamp}`.
 */
import type { EventRecord } from './records.js';
import { newId } from './ids.js';

export const EVENT_TYPES = [
  'source_processed', 'source_failed', 'activity_created', 'activity_updated', 'activity_deleted',
  'test_created', 'test_updated', 'test_deleted',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export function newEvent(userId: string, eventType: EventType, resourceId: string, now = Date.now()): EventRecord {
  return { id: newId(), user_id: userId, event_type: eventType, resource_id: resourceId, timestamp: now, deliveries: {}, status: 'pending', created_at: now };
}
