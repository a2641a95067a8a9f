/**
 * Listings: a record as list endpoints answer it, kept on the record as JSON text (its derived fields
 * `listing` and `listing_version`, storage/schema.ts) so a page is assembled from stored strings instead of
 * parsed records presented again. A listing is the presented summary with `app_metadata: null`, cut before
 * that null: the one caller-dependent field, last in every listed shape, is spliced in per request. It holds
 * nothing caller-dependent, so it is never wrong for another caller.
 * test/gateway/activity-list.test.ts checks pages against the presenters byte for byte.
 */
import type { JsonObject } from '../../storage/store.js';

const NULL_TAIL = 'null}';

/** The listing of a presented summary whose last field is `app_metadata: null`. */
export function listingOf(presented: { app_metadata: null }): string {
  const json = JSON.stringify(presented);
  if (!json.endsWith(`,"app_metadata":${NULL_TAIL}`)) throw new Error('listing: app_metadata must be the last field of a listed shape');
  return json.slice(0, -NULL_TAIL.length);
}

/** One entry of a page: the listing with the caller's own metadata (or null) in place. */
export function listingEntry(listing: string, metadata: JsonObject | null): string {
  return metadata === null ? `${listing}${NULL_TAIL}` : `${listing}${JSON.stringify(metadata)}}`;
}
