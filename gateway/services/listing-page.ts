/**
 * A page of a list endpoint as JSON bytes, assembled from the records' stored listings
 * (presenters/listing.ts): one store query reads only each record's id, listing and listing version — and
 * for an app token its `app_metadata` — never the rest of the document (on SQLite the listing has its own
 * column, so a personal token's page parses no document at all). The page is written once into one Buffer of
 * its known length — each listing's UTF-8 bytes and its entry's small tail — never as one string of the
 * whole page: a string past ~128 KB is a fresh large-object allocation per request, measured again when the
 * body's length is taken and encoded again by the socket write (bench/list-endpoint.bench.ts). Listings are
 * read as strings, not blobs: a Node Buffer per row costs better-sqlite3 more than a one-byte string
 * (measured: ~115 against ~50 µs of CPU for a page of 50), and writing one into the page is a copy.
 * A record without a listing in the current version is read whole and presented, and its listing is stored
 * for the next page, on the condition that `updated_at` is unchanged, so a listing never lands on a newer
 * write; any later write drops it (storage/schema.ts `derived`).
 *
 * The bytes are what the JSON of `records.map(present + the caller's own metadata)` would be, byte for byte:
 * test/gateway/activity-list.test.ts compares the two.
 */
import type { AppMetadata, Collection, Filter, FindOptions, JsonObject } from '../../storage/store.js';
import type { z } from 'zod';
import { jsonWriter } from '../presenters/json-writer.js';
import { listingOf, listingTail } from '../presenters/listing.js';

/** A record a list endpoint answers: the fields the page reads. */
export interface Listable {
  id: string;
  user_id: string;
  updated_at: number;
  app_metadata: AppMetadata;
  listing?: string;
  listing_version?: number;
}

export interface ListingKind<T extends Listable> {
  collection: Collection<T>;
  /** The format version of `present`'s JSON: a stored listing of another version is derived again. */
  version: number;
  /** The record as listed, its last fields (`tail`) null. */
  present(record: T): { app_metadata: null };
  /** The listed shape (its float-typed fields are written with a decimal point; presenters/json-writer.ts). */
  schema: z.ZodType;
  /** The fields presented per request, last in the shape, in order; the last is `app_metadata`. */
  tail: readonly string[];
  /**
   * The JSON text of the tail's fields before `app_metadata`, per listed record (in tail order), resolved at
   * read time from the page's listings; absent when the tail is `app_metadata` alone.
   */
  resolve?(entries: { id: string; listing: string }[]): Promise<Map<string, string[]>>;
}

/** What the page needs of each record. */
type Row = Pick<Listable, 'id' | 'listing' | 'listing_version'> & { app_metadata?: AppMetadata };

const OPEN = 0x5b; // [
const COMMA = 0x2c;
const CLOSE = 0x5d; // ]

/** `find(filter, options)` as the JSON array of the records' listings, each with the caller's own app metadata. */
export async function listingPage<T extends Listable>(
  kind: ListingKind<T>,
  filter: Filter<T>,
  options: FindOptions<T>,
  principal: { applicationId: string | null },
): Promise<Buffer> {
  const appId = principal.applicationId;
  const fields = ['id', 'listing', 'listing_version', ...(appId ? ['app_metadata'] : [])] as (keyof T & string)[];
  const rows = (await kind.collection.findFields(filter, fields, options)) as unknown as Row[];
  const isStale = (row: Row): boolean => row.listing === undefined || row.listing_version !== kind.version;
  const stale = rows.filter(isStale);
  const derived = stale.length > 0 ? await derive(kind, filter.user_id as Filter<T>['user_id'], stale.map((row) => row.id)) : new Map<string, Row>();
  const current: (Row & { listing: string })[] = [];
  for (const row of rows) {
    const fresh = isStale(row) ? derived.get(row.id) : row;
    // A record deleted since the page was read is left out.
    if (fresh?.listing !== undefined) current.push(fresh as Row & { listing: string });
  }
  const resolved = kind.resolve ? await kind.resolve(current) : null;
  // Most entries end alike ("traces":[],"app_metadata":null}): each distinct tail is encoded once per page.
  const tails = new Map<string, Buffer>();
  const entryTails: Buffer[] = [];
  let length = 2 + Math.max(0, current.length - 1);
  for (const row of current) {
    const own: JsonObject | null = appId ? (row.app_metadata?.[appId] ?? null) : null;
    const tail = listingTail(kind.tail, resolved?.get(row.id) ?? [], own);
    let bytes = tails.get(tail);
    if (bytes === undefined) tails.set(tail, (bytes = Buffer.from(tail)));
    entryTails.push(bytes);
    length += Buffer.byteLength(row.listing) + bytes.length;
  }
  const page = Buffer.allocUnsafe(length);
  let at = 0;
  page[at++] = OPEN;
  for (const [i, row] of current.entries()) {
    if (i > 0) page[at++] = COMMA;
    at += page.write(row.listing, at);
    at += entryTails[i]!.copy(page, at);
  }
  page[at++] = CLOSE;
  if (at !== length) throw new Error(`listing page: wrote ${at} of ${length} bytes`);
  return page;
}

/** Reads the records whole, presents them and stores their listings; answers each one's listing and metadata. */
async function derive<T extends Listable>(kind: ListingKind<T>, owner: Filter<T>['user_id'], ids: string[]): Promise<Map<string, Row>> {
  const records = await kind.collection.find({ user_id: owner, id: { $in: ids } } as unknown as Filter<T>);
  const rows = new Map<string, Row>();
  const write = jsonWriter(kind.schema);
  await Promise.all(records.map(async (record) => {
    const listing = listingOf(kind.present(record), kind.tail, write);
    rows.set(record.id, { id: record.id, listing, listing_version: kind.version, app_metadata: record.app_metadata });
    await kind.collection.updateOne(
      { id: record.id, user_id: record.user_id, updated_at: record.updated_at } as Filter<T>,
      { set: { listing, listing_version: kind.version } as Partial<T> },
    );
  }));
  return rows;
}
