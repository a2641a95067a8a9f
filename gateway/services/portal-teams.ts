/**
 * The team authorizations the portal's manage-teams page lists and revokes (gaps.md "Portal": "list and
 * revoke team authorizations"). Read straight from `team_authorizations` and `teams`; the teams API may
 * bring its own service, and then this file is the one place to swap. Revoking deletes the authorization,
 * and every delegated token minted through it dies at once (auth/delegation.ts `delegationHolds` runs on
 * every request). Kept honest by test/gateway/portal.test.ts.
 */
import type { Store } from '../../storage/store.js';

export interface AuthorizedTeam {
  teamId: string;
  name: string;
  description: string;
  url: string;
  scopes: string[];
  since: number;
}

/** The teams the user authorized, oldest authorization first. */
export async function authorizedTeams(store: Store, userId: string): Promise<AuthorizedTeam[]> {
  const authorizations = await store.team_authorizations.find({ user_id: userId }, { sort: { created_at: 1 } });
  const teams = await Promise.all(authorizations.map((authorization) => store.teams.get(authorization.team_id)));
  return authorizations.flatMap((authorization, index) => {
    const team = teams[index];
    return team ? [{ teamId: team.id, name: team.name, description: team.description, url: team.url, scopes: authorization.scopes, since: authorization.created_at }] : [];
  });
}

/** Removes the user's authorization of the team; whether there was one. */
export async function revokeTeamAuthorization(store: Store, userId: string, teamId: string): Promise<boolean> {
  return (await store.team_authorizations.deleteMany({ user_id: userId, team_id: teamId })) > 0;
}
