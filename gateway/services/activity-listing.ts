/**
 * The activity list (interface §4 "Activities": "lists activities, newest first … sport (array; match any),
 * tags (array; activity must carry all)") as the JSON (UTF-8 bytes) the API answers, shared by
 * `GET /api/v1/activities/` and the athlete's list page, so both read the same query and the same presenter.
 * A page is answered from memory while the user's listing stamp is unchanged (services/listing-page-cache.ts).
 * Kept honest by test/gateway/activity-list.test.ts and test/gateway/athlete-pages.test.ts.
 */
import type { ActivityRecord, Filter } from '../../storage/store.js';
import type { Principal } from '../auth/access-tokens.js';
import type { GatewayDeps } from '../deps.js';
import { ACTIVITY_LISTING_TAIL, ACTIVITY_LISTING_VERSION, presentActivityListing } from '../presenters/activity.js';
import { ActivitySummary } from '../schemas/resources.js';
import { activityTracesResolver } from './activity-traces.js';
import { listingPage, type ListingKind } from './listing-page.js';
import { listingPageCache } from './listing-page-cache.js';
import { sportPage } from './sport-page.js';

export const NEWEST_FIRST = { start: -1 } as const;

export interface ActivityListQuery {
  /** Inclusive local dates (YYYY-MM-DD) of the activity's own start. */
  start?: string | undefined;
  end?: string | undefined;
  limit: number;
  offset: number;
  /** Canonical sports; match any, a parent matching its sub-sports. Empty: every sport. */
  sports: readonly string[];
  /** The activity must carry all of them. */
  tags?: readonly string[] | undefined;
}

function activityListings(deps: GatewayDeps, principal: Principal): ListingKind<ActivityRecord> {
  return {
    collection: deps.store.activities, version: ACTIVITY_LISTING_VERSION, present: presentActivityListing,
    schema: ActivitySummary, tail: ACTIVITY_LISTING_TAIL, resolve: activityTracesResolver(deps.store, principal),
  };
}

/** A page of the caller's activities as JSON bytes: byte for byte the JSON of presentActivitySummary over the page. */
export async function activityListJson(deps: GatewayDeps, principal: Principal, query: ActivityListQuery): Promise<Buffer> {
  const filter: Filter<ActivityRecord> = { user_id: principal.userId };
  if (query.start || query.end) filter.local_date = { ...(query.start && { $gte: query.start }), ...(query.end && { $lte: query.end }) };
  if (query.tags?.length) filter.tags = { $all: [...query.tags] };
  // The page's bytes depend on the user's activities, traces and tests (all stamped), the caller's
  // application (its own app_metadata) and the query, nothing else: services/listing-page-cache.ts.
  const key = JSON.stringify(['activities', principal.applicationId, query.start ?? null, query.end ?? null, query.limit, query.offset, query.sports, query.tags ?? null]);
  return listingPageCache(deps.store).page(deps.store, principal.userId, key, async () => {
    const page = await sportPage(deps.store.activities, filter, query.sports, { sort: NEWEST_FIRST, limit: query.limit, offset: query.offset });
    return listingPage(activityListings(deps, principal), page.filter, page.options, principal);
  });
}
