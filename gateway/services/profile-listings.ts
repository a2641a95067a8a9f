/**
 * Listings derived from the user's data (interface §4 "Profile"): the tags used on activities, traces and
 * tests, and the sports of the user's activities. Shared by `/profile/tags/`, `/profile/sports/` and the
 * athlete's list filters. Kept honest by test/gateway/http-api.test.ts and test/gateway/athlete-pages.test.ts.
 */
import type { Store } from '../../storage/store.js';
import { rootSport } from '../../domain/sport.js';

/** Every tag the user has used, sorted. */
export async function userTags(store: Store, userId: string): Promise<string[]> {
  const withTags = { user_id: userId, tags: { $exists: true } } as const;
  // One query per collection, reading the tags alone.
  const [activities, traces, tests] = await Promise.all([
    store.activities.findFields(withTags, ['tags']),
    store.traces.findFields(withTags, ['tags']),
    store.tests.findFields(withTags, ['tags']),
  ]);
  const tags = new Set<string>();
  for (const record of [...activities, ...traces, ...tests]) for (const tag of record.tags) tags.add(tag);
  return [...tags].sort();
}

/** The sports the user has activities in, sorted; `onlyRoot` folds sub-sports into their top-level sport. */
export async function userSports(store: Store, userId: string, onlyRoot: boolean): Promise<string[]> {
  const activities = await store.activities.findFields({ user_id: userId }, ['sport']);
  const sports = new Set(activities.map((activity) => (onlyRoot ? (rootSport(activity.sport) ?? activity.sport) : activity.sport)));
  return [...sports].sort();
}
