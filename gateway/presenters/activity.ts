/**
 * Activity records → the interface's Activity summary and details (interface §2, gaps.md "Shapes").
 * Explicit field lists: a record is never spread into a response.
 */
import type { ActivityRecord, AppMetadata, LapRecord, MetricSummary, SummaryBlocks } from '../../storage/store.js';
import { formatDuration, formatLocal, formatUtc } from '../../domain/time.js';
import type { Principal } from '../auth/access-tokens.js';

const SUMMARY_FIELDS = ['mean', 'min', 'max', 'sum', 'start', 'end', 'gain', 'loss'] as const;

/**
 * The format version of stored activity listings (presenters/listing.ts): bump it with any change to the JSON
 * `presentActivityListing` gives (fields, order, formatting), and every stored listing is derived again on
 * its next read (services/listing-page.ts). Version 3: float-typed fields written with a decimal point.
 * test/gateway/activity-list.test.ts pins that JSON for one record.
 */
export const ACTIVITY_LISTING_VERSION = 3;

/**
 * The fields a stored listing stops before, presented per request: `traces` (a trace written later must show;
 * services/activity-traces.ts) and the caller-dependent `app_metadata`.
 */
export const ACTIVITY_LISTING_TAIL = ['traces', 'app_metadata'] as const;

/**
 * The summary; `traces` are the activity's traces as services/activity-traces.ts presents them, or null where
 * they are not resolved (the activity inside a trace, which would otherwise nest itself).
 */
export function presentActivitySummary(record: ActivityRecord, principal: Principal, traces: object[] | null = null) {
  return { ...presentActivityListing(record), traces, app_metadata: ownMetadata(record.app_metadata, principal) };
}

/** The summary as every caller sees it, with the read-time fields (ACTIVITY_LISTING_TAIL, the last ones) null. */
export function presentActivityListing(record: ActivityRecord) {
  return {
    id: record.id,
    sport: record.sport,
    start: formatUtc(record.start),
    end: formatUtc(record.end),
    start_local: formatLocal(record.start, record.offset),
    end_local: formatLocal(record.end, record.offset),
    duration: formatDuration(record.duration_s),
    metrics: [...record.metrics],
    source_id: record.source_id,
    tags: [...record.tags],
    summary: record.summary ? presentBlocks(record.summary) : null,
    laps: record.laps ? record.laps.map(presentLap) : null,
    traces: null,
    app_metadata: null,
  };
}

export function presentActivityDetails(record: ActivityRecord, principal: Principal, traces: object[] | null) {
  return { ...presentActivitySummary(record, principal, traces), distance: record.distance, devices: [...record.devices] };
}

/**
 * The UTC span of a stored listing, read from its leading `{"id":…,"sport":…,"start":"…","end":"…"` (ids and
 * sports never hold a quote), so a page can resolve its traces without reading the documents. Pinned with the
 * listing's JSON by test/gateway/activity-list.test.ts.
 */
export function listingSpan(listing: string): { start: number; end: number } {
  const startAt = listing.indexOf('","start":"') + 11;
  const endAt = listing.indexOf('","end":"', startAt) + 9;
  const start = Date.parse(listing.slice(startAt, listing.indexOf('"', startAt)));
  const end = Date.parse(listing.slice(endAt, listing.indexOf('"', endAt)));
  if (startAt < 11 || endAt < 9 || !Number.isFinite(start) || !Number.isFinite(end)) throw new Error('listing: no start and end where the listing format puts them');
  return { start, end };
}

export function presentLap(lap: LapRecord) {
  return {
    start: formatUtc(lap.start),
    end: formatUtc(lap.end),
    start_local: formatLocal(lap.start, lap.offset),
    end_local: formatLocal(lap.end, lap.offset),
    duration: formatDuration((lap.end - lap.start) / 1000),
    ...presentBlocks(lap.blocks),
  };
}

function presentBlocks(blocks: SummaryBlocks): Record<string, Record<string, number | null>> {
  const out: Record<string, Record<string, number | null>> = {};
  for (const [metric, summary] of Object.entries(blocks)) out[metric] = presentSummary(summary);
  return out;
}

function presentSummary(summary: MetricSummary): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (const field of SUMMARY_FIELDS) if (summary[field] !== undefined) out[field] = summary[field] ?? null;
  return out;
}

/** "the calling app's own metadata, visible to an app token" — null for personal tokens. */
export function ownMetadata(metadata: AppMetadata, principal: Principal): AppMetadata[string] | null {
  return principal.applicationId ? (metadata[principal.applicationId] ?? null) : null;
}
