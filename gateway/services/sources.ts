/**
 * The user's upload sources as the API (`/profile/sources/`) and the athlete's upload page read them, and
 * the per-request file limit both share. Accepting a file is storage/sources.ts (provider imports in the
 * engine use it too).
 */
import type { Filter, SourceRecord, Store } from '../../storage/store.js';
import { NotFoundError } from '../errors.js';

/** Files one upload request may carry (the API's and the upload page's). */
export const MAX_FILES_PER_UPLOAD = 10;

export interface SourceListQuery {
  status?: SourceRecord['status'] | undefined;
  origin?: SourceRecord['origin'] | undefined;
  limit: number;
  offset: number;
}

/** The user's sources, newest first. */
export function listSources(store: Store, userId: string, query: SourceListQuery): Promise<SourceRecord[]> {
  const filter: Filter<SourceRecord> = { user_id: userId };
  if (query.status) filter.status = query.status;
  if (query.origin) filter.origin = query.origin;
  return store.sources.find(filter, { sort: { created_at: -1 }, limit: query.limit, offset: query.offset });
}

/** The user's source; another user's is a 404, never a 403 that leaks its existence. */
export async function ownSource(store: Store, userId: string, sourceId: string): Promise<SourceRecord> {
  const record = await store.sources.findOne({ id: sourceId, user_id: userId });
  if (!record || record.user_id !== userId) throw new NotFoundError('Source not found');
  return record;
}
