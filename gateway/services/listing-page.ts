/**
 * A page of a list endpoint as JSON bytes, assembled from the records' stored listings
 * (presenters/listing.ts): one store query reads only each record's id, listing and listing version — and
 * for an app token its `app_metadata` — never the rest of the document (on SQLite the listing has its own
 * column, read as a blob, so a personal token's page parses no document and decodes no listing). The page is
 * the listings' bytes and each entry's small tail copied once into one Buffer of known length: no string of
 * the whole page (a string past ~128 KB is a fresh large-object allocation per request, measured again when
 * the body's length is taken and encoded again by the socket write; bench/list-endpoint.bench.ts). A record without a listing in the current
 * version is read whole and presented, and its listing is stored for the next page, on the condition that
 * `updated_at` is unchanged, so a listing never lands on a newer write; any later write drops it
 * (storage/schema.ts `derived`).
 *
 * The text is what the JSON of `records.map(present + the caller's own metadata)` would be, byte for byte:
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
  resolve?(entries: { id: string; listing: Buffer }[]): Promise<Map<string, string[]>>;
}

/** What the page needs of each record: its listing as UTF-8 bytes. */
interface Row {
  id: string;
  listing?: Buffer;
  listing_version?: number;
  app_metadata?: AppMetadata;
}

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');

/** `find(filter, options)` as the JSON array of the records' listings, each with the caller's own app metadata. */
export async function listingPage<T extends Listable>(
  kind: ListingKind<T>,
  filter: Filter<T>,
  options: FindOptions<T>,
  principal: { applicationId: string | null },
): Promise<Buffer> {
  const appId = principal.applicationId;
  const fields = ['id', 'listing', 'listing_version', ...(appId ? ['app_metadata'] : [])] as (keyof T & string)[];
  const rows = (await kind.collection.findFieldBytes(filter, fields, 'listing' as keyof T & string, options)) as unknown as Row[];
  const isStale = (row: Row): boolean => row.listing === undefined || row.listing_version !== kind.version;
  const stale = rows.filter(isStale);
  const derived = stale.length > 0 ? await derive(kind, filter.user_id as Filter<T>['user_id'], stale.map((row) => row.id)) : new Map<string, Row>();
  const current: (Row & { listing: Buffer })[] = [];
  for (const row of rows) {
    const fresh = isStale(row) ? derived.get(row.id) : row;
    // A record deleted since the page was read is left out.
    if (fresh?.listing !== undefined) current.push(fresh as Row & { listing: Buffer });
  }
  const resolved = kind.resolve ? await kind.resolve(current) : null;
  // Most entries end alike ("traces":[],"app_metadata":null}): each distinct tail is encoded once per page.
  const tails = new Map<string, Buffer>();
  const parts: Buffer[] = [OPEN];
  for (const [i, row] of current.entries()) {
    const own: JsonObject | null = appId ? (row.app_metadata?.[appId] ?? null) : null;
    const tail = listingTail(kind.tail, resolved?.get(row.id) ?? [], own);
    let bytes = tails.get(tail);
    if (bytes === undefined) tails.set(tail, (bytes = Buffer.from(tail)));
    if (i > 0) parts.push(COMMA);
    parts.push(row.listing, bytes);
  }
  parts.push(CLOSE);
  return Buffer.concat(parts);
}

/** Reads the records whole, presents them and stores their listings; answers each one's listing and metadata. */
async function derive<T extends Listable>(kind: ListingKind<T>, owner: Filter<T>['user_id'], ids: string[]): Promise<Map<string, Row>> {
  const records = await kind.collection.find({ user_id: owner, id: { $in: ids } } as unknown as Filter<T>);
  const rows = new Map<string, Row>();
  const write = jsonWriter(kind.schema);
  await Promise.all(records.map(async (record) => {
    const listing = listingOf(kind.present(record), kind.tail, write);
    rows.set(record.id, { id: record.id, listing: Buffer.from(listing), listing_version: kind.version, app_metadata: record.app_metadata });
    await kind.collection.updateOne(
      { id: record.id, user_id: record.user_id, updated_at: record.updated_at } as Filter<T>,
      { set: { listing, listing_version: kind.version } as Partial<T> },
    );
  }));
  return rows;
}
