/**
 * Delivery records (EventDeliveryRecord): one per event and webhook endpoint, created when the engine
 * publishes the event (engine/events/publish.ts), or by the account page's Redeliver button. Deliveries of
 * one queue (application, endpoint, user) go out in `seq` order (engine/events/dispatcher.ts).
 */
import { createHash } from 'node:crypto';
import type { EventDeliveryRecord, EventRecord } from './records.js';

/** "retries with exponential backoff until 24 h after the event" (gaps.md), milliseconds. */
export const DELIVERY_WINDOW_MS = 24 * 60 * 60 * 1000;

export function endpointKey(endpoint: string): string {
  return createHash('sha256').update(endpoint).digest('hex').slice(0, 16);
}

/** Deliveries of one queue go out in `seq` order: one application endpoint, one user. */
export function queueOf(applicationId: string, endpoint: string, userId: string): string {
  return `${applicationId}:${endpointKey(endpoint)}:${userId}`;
}

/** The delivery of a just-published event (`seq` its feed position); its id is deterministic, so publishing twice collides. */
export function newDelivery(event: EventRecord, applicationId: string, endpoint: string, seq: number, now: number): EventDeliveryRecord {
  return {
    id: `${event.id}:${applicationId}:${endpointKey(endpoint)}`,
    event_id: event.id, user_id: event.user_id, application_id: applicationId, endpoint,
    queue: queueOf(applicationId, endpoint, event.user_id), seq,
    status: 'pending', attempts: 0, next_attempt_at: now, expires_at: event.timestamp + DELIVERY_WINDOW_MS,
    lease_owner: null, lease_until: null, claim: null, last_status: null, last_error: null, created_at: now, updated_at: now,
  };
}

/**
 * A redelivery of a published event to one endpoint, asked by the application's owner: a queue of its own
 * (an old event by definition, it neither waits for nor holds back the user's newer events) and a fresh
 * 24 h window from the request.
 */
export function redelivery(event: EventRecord & { seq: number }, applicationId: string, endpoint: string, now: number): EventDeliveryRecord {
  const id = `${event.id}:${applicationId}:${endpointKey(endpoint)}:r${now}`;
  return { ...newDelivery({ ...event, timestamp: now }, applicationId, endpoint, event.seq, now), id, queue: `redeliver:${id}` };
}
