/**
 * User records → the interface's User summary (interface §2 "User summary (listings)"). Explicit field
 * list: the email and the password hash never leave through here.
 */
import { z } from 'zod';
import { named } from '../schemas/components.js';
import type { UserRecord } from '../../storage/store.js';
import { SCOPES, isScope } from '../auth/scopes.js';

/**
 * The "default scopes" of the caller's own and managed accounts: every data scope, read and write. Owning
 * or managing an account reaches all of its data; what a given token may do is still bounded by its own
 * scopes (a delegated token by the minting token's).
 */
export const OWNED_ACCOUNT_SCOPES: readonly string[] = [
  'activities:read', 'activities:write', 'wellness:read', 'wellness:write',
  'reproductive_health:read', 'reproductive_health:write', 'workouts:read', 'workouts:write',
];

export const UserSummary = named('UserSummary', z.object({
  id: z.string(),
  first_name: z.string().nullable(),
  last_name: z.string().nullable(),
  scopes: z.array(z.enum(SCOPES)).describe("Scopes held for that user: the default data scopes for the caller and managed users, the granted scopes for shared users"),
  display_name: z.string(),
  is_managed: z.boolean(),
}));

/**
 * "First Last" (whichever is set), else the email's local part where the email itself may be shown,
 * else "Athlete". The one name rule for listings, userinfo, ID tokens and pages: an email is never
 * exposed in part where it may not be exposed whole ("the email address [is] never exposed through
 * any other scope"; delegated tokens never see it).
 */
export function displayName(user: Pick<UserRecord, 'first_name' | 'last_name' | 'email'>, options: { revealEmail: boolean }): string {
  const name = [user.first_name, user.last_name].filter((part): part is string => !!part && part.trim().length > 0).join(' ');
  if (name) return name;
  const local = options.revealEmail ? user.email?.split('@')[0] : undefined;
  return local || 'Athlete';
}

/** `emailVisibleOf`: the user whose email the viewer may see (their own, with the email scope), or null. */
export function presentUserSummary(user: UserRecord, scopes: readonly string[], emailVisibleOf: string | null): z.output<typeof UserSummary> {
  return {
    id: user.id,
    first_name: user.first_name,
    last_name: user.last_name,
    scopes: scopes.filter(isScope),
    display_name: displayName(user, { revealEmail: user.id === emailVisibleOf }),
    is_managed: user.managed_by !== null,
  };
}
