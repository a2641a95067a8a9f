/**
 * What a provider lets a connection do, as the user granted it there (providers.md §1: Garmin's
 * `user/permissions` → `["ACTIVITY_EXPORT","HEALTH_EXPORT","WORKOUT_IMPORT","HISTORICAL_DATA_EXPORT"]`,
 * changed later by a `userPermissionsChange` push). One table per provider that has such permissions: each
 * permission gates one capability (domain/account-status.ts's keys) and says, for the user, what its
 * absence means. The engine reads it to stop work the provider would refuse (imports, the backfill, workout
 * delivery); the portal reads it to show what is missing. Neither branches on a provider's name.
 *
 * Deliberately: a connection whose permissions are unknown (`null`: made before they were stored, or a
 * provider without a table here) withholds nothing — the provider's own refusal (403/412) still stops the
 * work. Kept honest by test/gateway/garmin-permissions.test.ts.
 */
import type { Capability } from './account-status.js';
import type { Provider } from './providers.js';

export interface ProviderPermission {
  /** As the provider spells it: `HISTORICAL_DATA_EXPORT`. */
  name: string;
  /** What the user sees it as: `Historical data`. */
  label: string;
  /** The capability it gates. */
  capability: Capability;
  /** What its absence means, for the user: `history older than the connection is not imported`. */
  withoutIt: string;
}

export const PROVIDER_PERMISSIONS: Readonly<Partial<Record<Provider, readonly ProviderPermission[]>>> = {
  garmin_connect: [
    { name: 'ACTIVITY_EXPORT', label: 'Activities', capability: 'activities', withoutIt: 'new activities are not imported' },
    { name: 'HISTORICAL_DATA_EXPORT', label: 'Historical data', capability: 'activity_history', withoutIt: 'history older than the connection is not imported' },
    { name: 'HEALTH_EXPORT', label: 'Health data', capability: 'dailies', withoutIt: 'daily measures (sleep, resting heart rate, weight) are not imported' },
    { name: 'WORKOUT_IMPORT', label: 'Workout import', capability: 'workouts', withoutIt: 'workouts cannot be sent' },
  ],
};

/** What the permission checks need of a connection (storage's ConnectionRecord has these fields). */
export interface PermissionHolder {
  provider: Provider;
  /** Granted at the provider; null or absent: unknown. */
  permissions?: readonly string[] | null;
}

/** The permissions a provider's `scope` names, for a provider with a table here; else null (unknown). */
export function permissionsFromScope(provider: Provider, scope: string | null): string[] | null {
  if (!PROVIDER_PERMISSIONS[provider] || scope === null) return null;
  return scope.split(/[\s,]+/).filter((name) => name !== '');
}

/** The permissions of the connection's provider that the user has not granted, in table order. */
export function missingPermissions(connection: PermissionHolder): ProviderPermission[] {
  const table = PROVIDER_PERMISSIONS[connection.provider];
  const granted = connection.permissions;
  if (!table || granted === null || granted === undefined) return [];
  return table.filter((permission) => !granted.includes(permission.name));
}

/** The missing permissions that gate any of `capabilities`; empty when the connection may do all of them. */
export function withheld(connection: PermissionHolder, ...capabilities: Capability[]): ProviderPermission[] {
  return missingPermissions(connection).filter((permission) => capabilities.includes(permission.capability));
}

/** `'garmin_connect: history older than the connection is not imported (HISTORICAL_DATA_EXPORT not granted)'`. */
export function describeWithheld(provider: Provider, permissions: readonly ProviderPermission[]): string {
  return `${provider}: ${permissions.map((permission) => `${permission.withoutIt} (${permission.name} not granted)`).join('; ')}`;
}
