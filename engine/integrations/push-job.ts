/**
 * Provider pushes, durably: `acceptPush` verifies a push (the adapter checks its secret) and stores its
 * parsed items as one `provider_push` job before the gateway answers 200, so a crash after the answer loses
 * nothing; the job then imports each activity (keyed by provider activity id, so the duplicates providers
 * send are harmless), writes dailies through upsertDaily (never over a manual value), marks a
 * deauthorized connection action_required once the provider refuses its token, and stores a permission change read again from the provider
 * (the push is only the cue; permission-change.ts). An
 * activity or dailies for a connection whose user withdrew that permission (domain/provider-permissions.ts)
 * is dropped, as are items for users we do not know.
 *
 * test/gateway/integrations.test.ts and test/gateway/garmin-permissions.test.ts keep it honest.
 */
import type { Provider } from '../../domain/providers.js';
import type { ConnectionRecord, JobRecord, JsonObject, Store } from '../../storage/store.js';
import { newJob } from '../../storage/jobs.js';
import { upsertDaily } from '../../storage/dailies.js';
import { RescheduleJob, type JobHandler } from '../jobs/runner.js';
import { adapterFor, markActionRequired, tokensFor, type ConnectionDeps } from './connections.js';
import { importActivity, reportDownloadFailed } from './import-activity.js';
import { AuthorizationRevoked, backoffMs, ProviderRefused, RateLimited, type ProviderAdapter, type PushItem, type PushRequest } from './provider.js';
import { applyPermissionChange } from './permission-change.js';
import { withheld } from '../../domain/provider-permissions.js';

export const PUSH_JOB = 'provider_push';

/** Verifies and stores a push; returns how many items it carried. Throws PushRejected for a bad secret. */
export async function acceptPush(deps: ConnectionDeps, provider: string, request: PushRequest): Promise<number> {
  const adapter = adapterFor(deps, provider);
  const items = adapter.parsePush(request).filter((item) => item.kind !== 'ignored');
  if (items.length === 0) return 0;
  await deps.store.jobs.insert(newJob(PUSH_JOB, null, null, { provider: adapter.provider, items: items as unknown as JsonObject[] } as JsonObject));
  deps.wake?.();
  return items.length;
}

export function pushJobHandler(deps: ConnectionDeps): JobHandler {
  return {
    async run(job) {
      try {
        await runPush(deps, job);
      } catch (error) {
        // Throttled (the provider, or the app's shared budget spent): back in the queue until it resets,
        // no attempt spent; what was imported already is skipped on the next run (keyed by activity id).
        if (error instanceof RateLimited) throw new RescheduleJob(error.retryAt ?? Date.now() + backoffMs(1, 60_000), error.message);
        throw error;
      }
    },
  };
}

async function runPush(deps: ConnectionDeps, job: JobRecord): Promise<void> {
  const provider = String(job.payload.provider) as Provider;
  const adapter = adapterFor(deps, provider);
  for (const item of job.payload.items as unknown as PushItem[]) {
    if (item.kind === 'ignored') continue;
    // Every connection of that provider account (two of our users may have connected the same one).
    for (const connection of await liveConnections(deps.store, provider, item.externalUserId)) {
    if (item.kind === 'deauthorized') await confirmDeauthorized(deps, adapter, connection);
    else if (item.kind === 'permissions') await applyPushedPermissions(deps, adapter, connection, item);
    else if (item.kind === 'dailies') {
      if (withheld(connection, 'dailies').length > 0) continue; // HEALTH_EXPORT withdrawn: nothing of it is kept
      for (const daily of item.dailies) await upsertDaily(deps.store, { userId: connection.user_id, measure: daily.measure, date: daily.date, value: daily.value, source: provider });
    } else if (item.kind === 'activity') {
      if (withheld(connection, 'activities').length > 0) continue; // ACTIVITY_EXPORT withdrawn: not imported
      const tokens = await tokensFor(deps, connection);
      try {
        await importActivity(deps, adapter, connection.user_id, tokens, item.activity);
      } catch (error) {
        if (!(error instanceof ProviderRefused)) throw error;
        // Asking again cannot change a refusal: this activity is reported and the push's other items go on.
        await reportDownloadFailed(deps.store, connection.id, item.activity.id, error);
        continue;
      }
      await deps.store.connections.updateOne({ id: connection.id }, { set: { newest_seen: Math.max(connection.newest_seen ?? 0, item.activity.start) } });
    }
    // activity_deleted: the activity stays here; deleting a user's data is the user's call through the API.
    }
  }
}

/**
 * A pushed deauthorization, confirmed before the connection is given up: the token must be refused. A push
 * Garmin sends unsigned could be forged to disconnect someone; a stale one (re-sent after a reconnect)
 * would undo the reconnect. A token that still works means neither happened, and the connection stays.
 */
async function confirmDeauthorized(deps: ConnectionDeps, adapter: ProviderAdapter, connection: ConnectionRecord): Promise<void> {
  try {
    await adapter.identity(await tokensFor(deps, connection));
  } catch (error) {
    if (!(error instanceof AuthorizationRevoked)) throw error;
    await markActionRequired(deps.store, connection.id, `${adapter.provider}: the user removed the app's access`);
  }
}

/**
 * A pushed permission change. Garmin signs no push (only its client id, which authorization URLs show, is
 * checked), so the pushed list is not trusted: it is read again from the provider with the connection's
 * token and applied as true now. A change dated before the one stored is stale and costs no call.
 */
async function applyPushedPermissions(
  deps: ConnectionDeps, adapter: ProviderAdapter, connection: ConnectionRecord, item: Extract<PushItem, { kind: 'permissions' }>,
): Promise<void> {
  if (item.changedAt !== null && connection.permissions_at != null && item.changedAt < connection.permissions_at) return;
  if (!adapter.permissions) return; // no provider without a permissions read sends such a push
  const permissions = await adapter.permissions(await tokensFor(deps, connection));
  await applyPermissionChange(deps, connection.id, permissions, Math.max(Date.now(), item.changedAt ?? 0));
}

function liveConnections(store: Store, provider: Provider, externalUserId: string) {
  return store.connections.find({ provider, external_user_id: externalUserId, status: 'connected' });
}
