/**
 * An `activityFiles` ping → at most one download (providers.md §1: "one download — a repeat gets 410").
 * A file we already stored is not fetched again; a 410 for a file we stored (our earlier download's
 * answer was lost, or Garmin re-sent the ping) is done; a 410 for a file we never stored is lost and
 * reported; a 500 or a timeout is thrown as `unavailable` for the job to retry within the URL's 24 h.
 * Kept honest by test/engine/integrations/garmin-client.test.ts.
 */
import type { GarminClient } from './client.js';
import type { GarminNotice } from './notifications.js';

export type ActivityFileOutcome =
  | { kind: 'downloaded'; bytes: Uint8Array }
  | { kind: 'already_stored' }
  | { kind: 'lost'; reason: string };

export async function fetchActivityFile(
  client: GarminClient,
  notice: Extract<GarminNotice, { kind: 'activity_file' }>,
  /** Whether this summaryId's file is already stored (the framework's upsert key). */
  isStored: (summaryId: string) => Promise<boolean>,
): Promise<ActivityFileOutcome> {
  if (await isStored(notice.summaryId)) return { kind: 'already_stored' };
  const download = await client.downloadActivityFile(notice.callbackUrl);
  if (download.kind === 'file') return { kind: 'downloaded', bytes: download.bytes };
  if (await isStored(notice.summaryId)) return { kind: 'already_stored' };
  return { kind: 'lost', reason: `garmin activity file ${notice.summaryId}: Garmin answered 410 (already downloaded or older than 24 h) and we hold no copy` };
}
