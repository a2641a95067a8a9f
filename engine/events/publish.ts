/**
 * Publication: gives pending outbox events their feed position (`seq`) and creates their deliveries, one
 * per webhook endpoint of every application the user granted whose grant reads the event's kind
 * (storage/events.ts EVENT_SCOPES), all in one atomic batch.
 *
 * Why positions are safe as a cursor: a publisher numbers events from the highest published `seq` + 1, and
 * `seq` is unique (schema.ts), so two publishers that read the same highest number collide and one batch
 * fails whole (DuplicateKeyError; delivery ids are deterministic too). A batch therefore commits only after
 * every lower number is visible: readers of the feed never see a gap that fills later, and events written
 * in the same millisecond get distinct, ordered positions (batch order, storage/events.ts `ord`).
 *
 * Applications without a webhook secret get no delivery: an unsigned call cannot be verified, and
 * receivers verify exactly the signature (gaps.md). Their events stay readable through the feed.
 * Kept honest by test/engine/webhooks.test.ts.
 */
import type { ApplicationRecord, BatchOp, GrantRecord, Store } from '../../storage/store.js';
import { DuplicateKeyError } from '../../storage/store.js';
import { eventVisibleTo } from '../../storage/events.js';
import { newDelivery } from '../../storage/event-deliveries.js';

/** Events published per batch. */
export const PUBLISH_BATCH = 500;

/** Publishes up to PUBLISH_BATCH pending events; answers how many (0 when another publisher won the race). */
export async function publishPending(store: Store, now = Date.now()): Promise<number> {
  const pending = await store.events.find({ status: 'pending' }, { sort: { created_at: 1, ord: 1 }, limit: PUBLISH_BATCH });
  if (pending.length === 0) return 0;
  const last = await store.events.findOne({ seq: { $exists: true } }, { sort: { seq: -1 } });
  let seq = last?.seq ?? 0;
  const receivers = await receiversOf(store, new Set(pending.map((event) => event.user_id)));
  const ops: BatchOp[] = [];
  for (const event of pending) {
    seq += 1;
    ops.push({ collection: 'events', update: { id: event.id, status: 'pending' }, change: { set: { status: 'published', seq } } });
    for (const receiver of receivers.get(event.user_id) ?? []) {
      if (!eventVisibleTo(event.event_type, receiver.scopes)) continue;
      for (const endpoint of receiver.application.webhook_endpoints) {
        ops.push({ collection: 'event_deliveries', insert: newDelivery(event, receiver.application.id, endpoint, seq, now) });
      }
    }
  }
  try {
    await store.batch(ops);
  } catch (error) {
    if (error instanceof DuplicateKeyError) return 0; // another publisher numbered them first
    throw error;
  }
  return pending.length;
}

interface Receiver {
  application: ApplicationRecord;
  scopes: ReadonlySet<string>;
}

/** Per user: the applications they granted that have endpoints and a secret, with the grant's scopes. */
async function receiversOf(store: Store, userIds: Set<string>): Promise<Map<string, Receiver[]>> {
  const out = new Map<string, Receiver[]>();
  const grants: GrantRecord[] = await store.grants.find({ user_id: { $in: [...userIds] } });
  const applications = new Map<string, ApplicationRecord | null>();
  for (const grant of grants) {
    if (!applications.has(grant.application_id)) applications.set(grant.application_id, await store.applications.get(grant.application_id));
    const application = applications.get(grant.application_id);
    if (!application || application.webhook_endpoints.length === 0 || !application.webhook_secret) continue;
    const list = out.get(grant.user_id) ?? [];
    list.push({ application, scopes: new Set(grant.scopes) });
    out.set(grant.user_id, list);
  }
  return out;
}
