/**
 * Publication: gives pending outbox events their feed position (`seq`) and creates their deliveries, one
 * per webhook endpoint of every application the user granted whose grant reads the event's kind
 * (storage/events.ts EVENT_SCOPES), all in one atomic batch.
 *
 * Why positions are safe as a cursor: a publisher numbers events from the highest published `seq` + 1 and
 * inserts a publication record whose id is that first number in the same batch, so two publishers that
 * read the same highest number collide and one batch fails whole (a duplicate key, or MongoDB's write
 * conflict; delivery ids are deterministic too). A batch therefore commits only after every lower number is visible: readers of the
 * feed never see a gap that fills later, and events written in the same millisecond get distinct, ordered
 * positions (batch order, storage/events.ts `ord`).
 *
 * Deliveries of one publication are due a microsecond apart, round-robin over their queues (every queue's
 * first delivery, then every queue's second …): the dispatcher's candidate scan (ordered by due time, then
 * id) finds the heads of many queues first, and stops at its limit instead of sorting a whole tie group.
 *
 * Applications without a webhook secret get no delivery: an unsigned call cannot be verified, and
 * receivers verify exactly the signature (gaps.md). Their events stay readable through the feed.
 * Kept honest by test/engine/webhooks.test.ts.
 */
import type { ApplicationRecord, BatchOp, EventDeliveryRecord, GrantRecord, Store } from '../../storage/store.js';
import { DuplicateKeyError } from '../../storage/store.js';
import { eventVisibleTo } from '../../storage/events.js';
import { newDelivery } from '../../storage/event-deliveries.js';

/** Events published per batch. */
export const PUBLISH_BATCH = 500;

/** Publishes up to PUBLISH_BATCH pending events; answers how many (0 when another publisher won the race). */
export async function publishPending(store: Store, now = Date.now()): Promise<number> {
  const pending = await store.events.find({ status: 'pending' }, { sort: { created_at: 1, ord: 1 }, limit: PUBLISH_BATCH });
  if (pending.length === 0) return 0;
  // The highest number given out: the last event's, or a later publication's whose events are gone.
  const [lastEvent, lastPublication] = await Promise.all([
    store.events.findOne({ seq: { $exists: true } }, { sort: { seq: -1 } }),
    store.event_publications.findOne({}, { sort: { last: -1 } }),
  ]);
  let seq = Math.max(lastEvent?.seq ?? 0, lastPublication?.last ?? 0);
  const receivers = await receiversOf(store, new Set(pending.map((event) => event.user_id)));
  const first = seq + 1;
  const ops: BatchOp[] = [{ collection: 'event_publications', insert: { id: `p${first}`, first, last: seq + pending.length, created_at: now } }];
  const deliveries: EventDeliveryRecord[] = [];
  for (const event of pending) {
    seq += 1;
    ops.push({ collection: 'events', update: { id: event.id, status: 'pending' }, change: { set: { status: 'published', seq } } });
    for (const receiver of receivers.get(event.user_id) ?? []) {
      if (!eventVisibleTo(event.event_type, receiver.scopes)) continue;
      for (const endpoint of receiver.application.webhook_endpoints) deliveries.push(newDelivery(event, receiver.application.id, endpoint, seq, now));
    }
  }
  for (const delivery of staggered(deliveries, now)) ops.push({ collection: 'event_deliveries', insert: delivery });
  try {
    await store.batch(ops);
  } catch (error) {
    // Another publisher numbered from the same place first: a duplicate key on SQLite, a write conflict
    // on MongoDB; either way its publication record is there now. The next round goes on after it.
    if (error instanceof DuplicateKeyError || (await store.event_publications.get(`p${first}`)) !== null) return 0;
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

/** The deliveries with due times `now`, `now` + 1 µs, … in round-robin order over their queues (feed order within each). */
function staggered(deliveries: EventDeliveryRecord[], now: number): EventDeliveryRecord[] {
  const level = new Map<string, number>();
  const ranked = deliveries.map((delivery, index) => {
    const depth = level.get(delivery.queue) ?? 0;
    level.set(delivery.queue, depth + 1);
    return { delivery, depth, index };
  });
  ranked.sort((a, b) => a.depth - b.depth || a.index - b.index);
  return ranked.map(({ delivery }, rank) => ({ ...delivery, next_attempt_at: now + rank / 1000 }));
}
