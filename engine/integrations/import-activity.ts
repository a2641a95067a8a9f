/**
 * One provider activity into the ingest path uploads use (storage/sources.ts acceptSource, origin = the
 * provider), keyed by the provider's activity id: an activity already imported is never downloaded or
 * imported again, whether it comes back through an overlapping page, a duplicate push or a backfill resumed
 * after a crash (the unique `external_id` closes the race between two of them).
 *
 * test/engine/integrations/backfill.test.ts and test/gateway/backfill-crash.test.ts keep it honest.
 */
import type { Provider } from '../../domain/providers.js';
import type { Store } from '../../storage/store.js';
import { acceptSource } from '../../storage/sources.js';
import type { ProviderTokens } from './credentials.js';
import type { ProviderAdapter, RemoteActivity } from './provider.js';

export type ImportOutcome = 'imported' | 'already_imported' | 'no_file';

/** An activity's file that could not be had (refused, or failing every try): noted on the connection for backfill-status. */
export async function reportDownloadFailed(store: Store, connectionId: string, activityId: string, error: Error): Promise<void> {
  await store.connections.updateOne({ id: connectionId }, { set: { sync_error: { code: 'download_failed', message: `activity ${activityId}: ${error.message}`, at: Date.now() } } });
}

export function externalIdOf(provider: Provider, activityId: string): string {
  return `${provider}:${activityId}`;
}

export async function importActivity(
  deps: { store: Store; wake?: () => void },
  adapter: ProviderAdapter,
  userId: string,
  tokens: ProviderTokens,
  activity: RemoteActivity,
): Promise<ImportOutcome> {
  const externalId = externalIdOf(adapter.provider, activity.id);
  if (await deps.store.sources.findOne({ user_id: userId, external_id: externalId })) return 'already_imported';
  const bytes = await adapter.download(tokens, activity);
  if (bytes === null) return 'no_file';
  await acceptSource(deps.store, userId, { filename: `${adapter.provider}-${activity.id}`, bytes }, { origin: adapter.provider, externalId });
  deps.wake?.();
  return 'imported';
}
