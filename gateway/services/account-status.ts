/**
 * Gathers the facts domain/account-status.ts decides on, for one verified token: the user's provider
 * connections, whether they uploaded a file or entered a daily value, the calling application's declared
 * capabilities (default activities, activity_history; a personal token has no application and gets the
 * default too) and the token's own scopes ("what they granted" the caller). Reads only; four small
 * queries. Kept honest by test/gateway/account-status.test.ts on the real stack.
 */
import type { Store } from '../../storage/store.js';
import type { Principal } from '../auth/access-tokens.js';
import { accountStatus, DEFAULT_CAPABILITIES, type AccountStatus } from '../../domain/account-status.js';
import type { Provider } from '../../domain/providers.js';
import { missingPermissions } from '../../domain/provider-permissions.js';

/** `configured`: the providers this server has an integration configured for (GatewayConfig.configuredProviders). */
export async function accountStatusOf(store: Store, auth: Principal, configured: readonly Provider[]): Promise<AccountStatus> {
  const userId = auth.userId;
  const [connections, upload, daily, application] = await Promise.all([
    store.connections.find({ user_id: userId }),
    store.sources.findOne({ user_id: userId, origin: 'manual_upload' }),
    store.dailies.findOne({ user_id: userId, source: 'manual' }),
    auth.applicationId ? store.applications.get(auth.applicationId) : null,
  ]);
  return accountStatus({
    granted: auth.scopes,
    declared: application?.capabilities ?? DEFAULT_CAPABILITIES,
    connections: connections.map((connection) => ({
      provider: connection.provider, status: connection.status, backfillDone: connection.backfill_done,
      // Missing permissions, and history Garmin refused (403) although the list, if known, did not say so.
      withheld: [...missingPermissions(connection).map((permission) => permission.capability), ...(connection.backfill_withheld ? ['activity_history' as const] : [])],
    })),
    // Files from a provider arrive through its connection; an uploaded one is a source of its own.
    hasUploads: upload !== null,
    hasEnteredDailies: daily !== null,
    configuredProviders: configured,
    portal: auth.applicationId !== null && auth.actorId === null,
  });
}
