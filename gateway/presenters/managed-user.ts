/**
 * User records → the interface's User object (interface §2 "User (returned on creation of a managed
 * user)"; gaps.md: "Managed user GET/PUT return the User object"). Explicit field list: the email, the
 * password hash and the manager never leave through here. test/gateway/managed-users.test.ts.
 */
import { z } from 'zod';
import { named } from '../schemas/components.js';
import type { UserRecord } from '../../storage/store.js';
import { displayName } from './user.js';

export const User = named('User', z.object({
  id: z.string(),
  first_name: z.string().nullable(),
  last_name: z.string().nullable(),
  admin: z.boolean(),
  registered_at: z.string().describe('UTC date-time'),
  display_name: z.string().describe('Read-only'),
  is_managed: z.boolean().describe('Read-only'),
}));

export function presentUser(user: UserRecord): z.output<typeof User> {
  return {
    id: user.id,
    first_name: user.first_name,
    last_name: user.last_name,
    admin: user.admin,
    registered_at: new Date(user.registered_at).toISOString(),
    // A managed user has no email; nobody else comes through here.
    display_name: displayName(user, { revealEmail: false }),
    is_managed: user.managed_by !== null,
  };
}
