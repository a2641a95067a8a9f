/**
 * Listings: a record as list endpoints answer it, kept on the record as JSON text (its derived fields
 * `listing` and `listing_version`, storage/schema.ts) so a page is assembled from stored strings instead of
 * parsed records presented again. A listing is the presented summary cut before its read-time tail: fields
 * spliced in per request, last in every listed shape — the caller-dependent `app_metadata` and, for an
 * activity, its `traces` (written separately, so never stored with it). It holds nothing caller-dependent,
 * so it is never wrong for another caller. A page writes each listing and its entry's tail (`listingTail`)
 * into one buffer, never one string of the whole page (services/listing-page.ts).
 * test/gateway/activity-list.test.ts checks pages against the presenters byte for byte.
 */
import type { JsonObject } from '../../storage/store.js';
import type { JsonWriter } from './json-writer.js';

/**
 * The listing of a presented summary whose last fields, `tail` (ending with `app_metadata`), are all null:
 * its JSON as `write` (the listed shape's jsonWriter: floats with a decimal point) writes it, cut before them.
 */
export function listingOf(presented: { app_metadata: null }, tail: readonly string[], write: JsonWriter): string {
  const json = write(presented) ?? '';
  const suffix = `${tail.map((field) => `"${field}":null`).join(',')}}`;
  if (!json.endsWith(`,${suffix}`)) throw new Error(`listing: ${tail.join(', ')} must be the last fields of a listed shape, each null`);
  return json.slice(0, -suffix.length);
}

/**
 * What follows a listing in its page entry: the tail's read-time values (JSON text in `tail` order, all but
 * the last; a missing one is null) and the caller's own metadata (or null) as the last field, closing the entry.
 */
export function listingTail(tail: readonly string[], values: readonly string[], metadata: JsonObject | null): string {
  let text = '';
  for (let i = 0; i < tail.length - 1; i++) text += `"${tail[i]}":${values[i] ?? 'null'},`;
  return `${text}"${tail[tail.length - 1]}":${metadata === null ? 'null' : JSON.stringify(metadata)}}`;
}
