/**
 * Listing stamps: per user, a value in the store that changes after every write to a collection their list
 * pages are built from (schema.ts `stamped`: activities, traces, tests), so a process that keeps pages in
 * memory (gateway/services/listing-page-cache.ts) learns with one read by id whether it may still answer
 * one — whoever wrote (another gateway process, the engine, `threshold import`), on either backend.
 *
 * `withListingStamps(store)` wraps the store every process opens (open-store.ts): each write of a stamped
 * collection, once done, sets a new stamp for the user it touched; a batch, once applied, for every user its
 * stamped writes touched. A stamp is only ever updated here, never created, so a user's deletion (which
 * removes it with their other documents) leaves none behind; the first reader creates it (`listingStamp`).
 * A reader reads the stamp BEFORE the rows, so a page kept under a stamp holds at least every write that
 * finished before it was read; a write in flight is done only once its stamp is set. What it does not cover:
 * a process that dies between a write and its stamp leaves pages kept elsewhere stale until the next write
 * of that user (or the cache's age limit). Kept honest by test/storage/listing-stamps.test.ts and
 * test/gateway/activity-list.test.ts.
 */
import { newId } from './ids.js';
import { SCHEMA } from './schema.js';
import { filteredUser } from './shard-keys.js';
import { DuplicateKeyError, type BatchOp, type Collection, type CollectionName, type Doc, type Store } from './store.js';

const STAMPED = (Object.keys(SCHEMA) as CollectionName[]).filter((name) => SCHEMA[name].stamped);

/** Gives `userId` a new stamp, if they have one (none yet: no reader kept a page of theirs). */
async function bump(store: Store, userIds: Iterable<string | null>): Promise<void> {
  const users = new Set([...userIds].filter((id): id is string => id !== null));
  await Promise.all([...users].map((id) => store.listing_stamps.updateOne({ id, user_id: id }, { set: { stamp: newId() } })));
}

const ownerOf = (doc: Doc): string | null => (doc as { user_id?: unknown }).user_id as string | null ?? null;

/** `collection` with every write followed by its user's new stamp. */
function stamped<T extends Doc>(store: Store, collection: Collection<T>): Collection<T> {
  const after = async <R>(write: Promise<R>, user: string | null, changed: (result: R) => boolean): Promise<R> => {
    const result = await write;
    if (changed(result)) await bump(store, [user]);
    return result;
  };
  const always = () => true;
  return Object.assign(Object.create(collection) as Collection<T>, {
    insert: (doc: T) => after(collection.insert(doc), ownerOf(doc), always),
    insertIfAbsent: (doc: T, key: (keyof T & string)[]) => after(collection.insertIfAbsent(doc, key), ownerOf(doc), (outcome) => outcome.inserted),
    put: (doc: T) => after(collection.put(doc), ownerOf(doc), always),
    updateOne: (...args: Parameters<Collection<T>['updateOne']>) => after(collection.updateOne(...args), filteredUser(args[0]), (doc) => doc !== null),
    updateMany: (...args: Parameters<Collection<T>['updateMany']>) => after(collection.updateMany(...args), filteredUser(args[0]), (count) => count > 0),
    deleteMany: (...args: Parameters<Collection<T>['deleteMany']>) => after(collection.deleteMany(...args), filteredUser(args[0]), (count) => count > 0),
  });
}

/** The users a batch's writes to stamped collections touch. */
function batchUsers(ops: readonly BatchOp[]): (string | null)[] {
  return ops.filter((op) => SCHEMA[op.collection].stamped).map((op) => {
    if ('insert' in op) return ownerOf(op.insert);
    if ('put' in op) return ownerOf(op.put);
    return filteredUser('update' in op ? op.update : op.delete);
  });
}

/** The stores `withListingStamps` made: only their stamps may be trusted. */
const STAMPING = new WeakSet<Store>();

/** Whether every write through `store` renews listing stamps (a store not opened by open-store.ts may not). */
export function stampsListings(store: Store): boolean {
  return STAMPING.has(store);
}

/** `store` with every write to a stamped collection followed by a new stamp for the user it touched. */
export function withListingStamps(store: Store): Store {
  if (STAMPING.has(store)) return store;
  const wrapped: Store = { ...store };
  for (const name of STAMPED) (wrapped as unknown as Record<string, unknown>)[name] = stamped(store, store[name] as unknown as Collection<Doc>);
  wrapped.batch = async (ops) => {
    await store.batch(ops);
    await bump(store, batchUsers(ops));
  };
  // The engine's background writers (ingest, backfill) write through this view: it must stamp as well.
  const grouped = store.withGroupCommit?.bind(store);
  if (grouped) wrapped.withGroupCommit = (options) => withListingStamps(grouped(options));
  STAMPING.add(wrapped);
  return wrapped;
}

/** `userId`'s current stamp, created when they have none yet. Read it before the rows a page is built from. */
export async function listingStamp(store: Store, userId: string): Promise<string> {
  const found = await store.listing_stamps.findFields({ id: userId, user_id: userId }, ['stamp'], { limit: 1 });
  if (found[0] !== undefined) return found[0].stamp;
  const stamp = newId();
  try {
    await store.listing_stamps.insert({ id: userId, user_id: userId, stamp });
    return stamp;
  } catch (error) {
    if (!(error instanceof DuplicateKeyError)) throw error;
    // Another reader created it meanwhile.
    const [winner] = await store.listing_stamps.findFields({ id: userId, user_id: userId }, ['stamp'], { limit: 1 });
    if (winner === undefined) throw error;
    return winner.stamp;
  }
}
