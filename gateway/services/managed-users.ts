/**
 * Managed users (interface §2 "User": "A managed user is created by another user (the manager). It
 * cannot log in, and the manager controls its data"): create, look up, rename and delete, each only for
 * the manager. A user the caller does not manage is answered exactly as an unknown one (null), so
 * nothing here confirms that an id exists. Deleting is storage/user-deletion.ts: the user is gone at once,
 * the rest of its records go in the background, irreversibly.
 * Kept honest by test/gateway/managed-users.test.ts and test/gateway/account-deletion.test.ts.
 */
import type { Store, UserRecord } from '../../storage/store.js';
import { beginUserDeletion } from '../../storage/user-deletion.js';
import { cleanName, createUser } from './accounts.js';

export interface ManagedNames {
  first_name: string;
  last_name: string | null;
}

/** Creates a user without an email or a password (so it can never sign in), managed by `managerId`. */
export function createManagedUser(store: Store, managerId: string, names: ManagedNames): Promise<UserRecord> {
  return createUser(store, { email: null, password: null, first_name: names.first_name, last_name: names.last_name, managed_by: managerId });
}

/** The managed user `userId` when `managerId` manages it; null for anyone else, unknown ids included. */
export async function managedUserOf(store: Store, managerId: string, userId: string): Promise<UserRecord | null> {
  const user = await store.users.get(userId);
  return user && user.managed_by === managerId ? user : null;
}

/** "omitted fields stay unchanged"; null or blank clears a name. Null when the caller does not manage the user. */
export async function renameManagedUser(
  store: Store, managerId: string, userId: string, names: { first_name?: string | null; last_name?: string | null },
): Promise<UserRecord | null> {
  const set: Partial<Pick<UserRecord, 'first_name' | 'last_name'>> = {};
  if (names.first_name !== undefined) set.first_name = cleanName(names.first_name, 'first_name');
  if (names.last_name !== undefined) set.last_name = cleanName(names.last_name, 'last_name');
  if (Object.keys(set).length === 0) return managedUserOf(store, managerId, userId);
  return store.users.updateOne({ id: userId, managed_by: managerId }, { set });
}

/** Deletes the managed user and everything it owns; false when the caller does not manage it. */
export async function deleteManagedUser(store: Store, managerId: string, userId: string): Promise<boolean> {
  if (!(await managedUserOf(store, managerId, userId))) return false;
  await beginUserDeletion(store, userId);
  return true;
}
