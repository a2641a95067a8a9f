/**
 * A list page under sport filters ("a parent sport also matches its sub-sports", match any): the store
 * narrows by code prefix, and modifier containment (`cycling+stationary` under `cycling`, but not
 * `cyclingx`) is checked here on ids and sports only; the page is then read by id. Shared by the activity
 * and trace lists; kept honest by test/gateway/activity-list.test.ts and test/gateway/traces.test.ts.
 */
import type { Collection, Filter, FindOptions, Sort } from '../../storage/store.js';
import { sportMatches, sportStorePrefix } from '../../domain/sport.js';

interface WithSport {
  id: string;
  user_id: string;
  sport: string | null;
}

export interface Page<T> {
  filter: Filter<T>;
  options: FindOptions<T>;
}

/** `filter` and the page options that select the `limit` records from `offset` matching `filter` and any of `sports`. */
export async function sportPage<T extends WithSport>(
  collection: Collection<T>,
  filter: Filter<T>,
  sports: readonly string[],
  page: { sort: Sort<T>; limit: number; offset: number },
): Promise<Page<T>> {
  if (sports.length === 0) return { filter, options: page };
  const narrowed = { ...filter, $or: sports.map((sport) => ({ sport: { $prefix: sportStorePrefix(sport) ?? sport } })) } as Filter<T>;
  const candidates = await collection.findFields(narrowed, ['id', 'sport'] as (keyof T & string)[], { sort: page.sort });
  const matching = candidates.filter((candidate) => candidate.sport !== null && sports.some((sport) => sportMatches(candidate.sport as string, sport)));
  const ids = matching.slice(page.offset, page.offset + page.limit).map((candidate) => candidate.id);
  return { filter: { user_id: filter.user_id, id: { $in: ids } } as Filter<T>, options: { sort: page.sort } };
}
