/**
 * GET /api/v1/users/ (interface §4 "Users"): the caller, their managed users and the users who shared
 * data with a team the caller belongs to. It acts as the signed-in user only, so a delegated token is
 * refused before anything is read. test/gateway/delegation.test.ts covers it.
 */
import { z } from 'zod';
import type { UserRecord } from '../../storage/store.js';
import { OWNED_ACCOUNT_SCOPES, UserSummary, displayName, presentUserSummary } from '../presenters/user.js';
import { queryBool, queryString } from '../schemas/query.js';
import { SCOPES } from '../auth/scopes.js';
import type { RouteTable } from '../route-table.js';
import type { GatewayDeps } from '../deps.js';

const ListQuery = z.object({
  include_managed: queryBool().default(true).describe('List the users the caller manages'),
  include_shared: queryBool().default(true).describe('List the users who authorized a team the caller is a member of'),
  name: queryString(z.string().max(200)).optional().describe('Case-insensitive match anywhere in the display name'),
});

export function userRoutes(table: RouteTable, deps: GatewayDeps): void {
  table.add(
    {
      method: 'get', path: '/api/v1/users/', operationId: 'listUsers', tag: 'users',
      summary: 'The caller, managed users and shared users (not with a delegated token)',
      auth: 'bearer', scope: 'sharing:read', refuseDelegated: true, query: ListQuery,
      responses: { 200: { description: 'User summaries: the caller first, then managed, then shared users', schema: z.array(UserSummary) } },
    },
    async function listUsers(ctx) {
      const input = ctx.state.input as z.output<typeof ListQuery>;
      const callerId: string = ctx.state.auth.userId;
      // The caller's own row may use their email's local part only when this token may see the email.
      const emailVisibleOf = ctx.state.auth.scopes.has('email') ? callerId : null;
      const [caller, managed, shared] = await Promise.all([
        deps.store.users.get(callerId),
        input.include_managed ? deps.store.users.find({ managed_by: callerId }) : [],
        input.include_shared ? sharedUsers(deps, callerId) : [],
      ]);
      // "the caller's own and managed users carry default scopes, shared users carry the granted scopes"
      const rows = [
        ...(caller ? [{ user: caller, scopes: OWNED_ACCOUNT_SCOPES }] : []),
        ...byName(managed).map((user) => ({ user, scopes: OWNED_ACCOUNT_SCOPES })),
        ...shared,
      ];
      const needle = input.name?.trim().toLowerCase();
      ctx.body = rows
        .map(({ user, scopes }) => presentUserSummary(user, scopes, emailVisibleOf))
        .filter((summary) => !needle || summary.display_name.toLowerCase().includes(needle));
    },
  );
}

/**
 * Users who authorized a team the caller is a member of, with the scopes they granted (united over
 * those teams). The caller and users the caller manages are listed as themselves, never as shared.
 */
async function sharedUsers(deps: GatewayDeps, callerId: string): Promise<{ user: UserRecord; scopes: string[] }[]> {
  const memberships = await deps.store.team_members.find({ user_id: callerId });
  if (memberships.length === 0) return [];
  const authorizations = await deps.store.team_authorizations.find({ team_id: { $in: memberships.map((member) => member.team_id) } });
  const granted = new Map<string, Set<string>>();
  for (const authorization of authorizations) {
    if (authorization.user_id === callerId) continue;
    const scopes = granted.get(authorization.user_id) ?? new Set<string>();
    for (const scope of authorization.scopes) scopes.add(scope);
    granted.set(authorization.user_id, scopes);
  }
  if (granted.size === 0) return [];
  const users = await deps.store.users.find({ id: { $in: [...granted.keys()] } });
  return byName(users.filter((user) => user.managed_by !== callerId))
    .map((user) => ({ user, scopes: SCOPES.filter((scope) => granted.get(user.id)!.has(scope)) }));
}

function byName(users: UserRecord[]): UserRecord[] {
  const named = users.map((user) => ({ user, key: displayName(user, { revealEmail: false }).toLowerCase() }));
  named.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.user.id < b.user.id ? -1 : 1));
  return named.map(({ user }) => user);
}
