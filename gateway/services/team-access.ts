/**
 * Who belongs to which team, and who let which team reach their data (interface §4 "Teams"): the
 * caller's teams with their role, a member's view of a team's authorizations, and writing or removing
 * one user's authorization of a team. Shared by the teams API, the account pages and the authorize flow.
 *
 * Deliberately not here: who may authorize for whom (the routes decide: a delegated token for a managed
 * user, or the person on the consent screen). Removing an authorization is all it takes to end every
 * delegated token minted through it: access-tokens.ts re-checks the delegation basis on each request.
 * Kept honest by test/gateway/teams.test.ts.
 */
import type { Store, TeamAuthorizationRecord, TeamRecord, UserRecord } from '../../storage/store.js';
import { newId } from '../../storage/ids.js';
import type { TeamRole } from '../presenters/team.js';
import { SCOPES } from '../auth/scopes.js';

export interface TeamWithRole {
  team: TeamRecord;
  role: TeamRole;
}

/** The teams `userId` owns or belongs to, by name. */
export async function teamsOf(store: Store, userId: string): Promise<TeamWithRole[]> {
  const [memberships, owned] = await Promise.all([store.team_members.find({ user_id: userId }), store.teams.find({ user_id: userId })]);
  const roles = new Map<string, TeamRole>(memberships.map((member) => [member.team_id, member.role]));
  for (const team of owned) roles.set(team.id, 'owner');
  if (roles.size === 0) return [];
  const teams = await store.teams.find({ id: { $in: [...roles.keys()] } });
  return byName(teams).map((team) => ({ team, role: roles.get(team.id)! }));
}

/** The team and the user's role in it, or null when the team is unknown or the user is not in it (the same answer). */
export async function teamOfMember(store: Store, teamId: string, userId: string): Promise<TeamWithRole | null> {
  const [team, member] = await Promise.all([store.teams.get(teamId), store.team_members.findOne({ team_id: teamId, user_id: userId })]);
  if (!team) return null;
  if (team.user_id === userId) return { team, role: 'owner' };
  return member ? { team, role: member.role } : null;
}

/** The users who authorized the team, by name, with the scopes each granted. */
export async function teamAuthorizers(store: Store, teamId: string): Promise<{ user: UserRecord; scopes: string[] }[]> {
  const authorizations = await store.team_authorizations.find({ team_id: teamId });
  if (authorizations.length === 0) return [];
  const users = new Map((await store.users.find({ id: { $in: authorizations.map((row) => row.user_id) } })).map((user) => [user.id, user]));
  return authorizations
    .flatMap((row) => (users.has(row.user_id) ? [{ user: users.get(row.user_id)!, scopes: inScopeOrder(row.scopes) }] : []))
    .sort((a, b) => compareNames(a.user, b.user));
}

/** The teams `userId` authorized, by name, with the scopes granted and when (epoch ms). */
export async function authorizedTeams(store: Store, userId: string): Promise<{ team: TeamRecord; scopes: string[]; since: number }[]> {
  const authorizations = await store.team_authorizations.find({ user_id: userId });
  if (authorizations.length === 0) return [];
  const byTeam = new Map(authorizations.map((row) => [row.team_id, row]));
  const teams = await store.teams.find({ id: { $in: [...byTeam.keys()] } });
  return byName(teams).map((team) => ({ team, scopes: inScopeOrder(byTeam.get(team.id)!.scopes), since: byTeam.get(team.id)!.created_at }));
}

/**
 * Sets the user's authorization of the team to exactly `scopes` (creating it when absent). Narrowing it
 * ends the delegated tokens that carry more (auth/delegation.ts `delegationHolds`).
 */
export async function authorizeTeam(store: Store, teamId: string, userId: string, scopes: readonly string[], now = Date.now()): Promise<TeamAuthorizationRecord> {
  const wanted = [...new Set(scopes)];
  for (let attempt = 0; attempt < 20; attempt++) {
    const outcome = await store.team_authorizations.insertIfAbsent(
      { id: newId(), team_id: teamId, user_id: userId, scopes: wanted, created_at: now, updated_at: now }, ['team_id', 'user_id'],
    );
    if (outcome.inserted) return outcome.doc;
    const updated = await store.team_authorizations.updateOne(
      { id: outcome.existing.id }, { set: { scopes: wanted, updated_at: Math.max(now, outcome.existing.updated_at + 1) } },
    );
    if (updated) return updated;
  }
  throw new Error('team authorizations: could not write the authorization under contention');
}

/** Removes the user's authorization of the team; whether there was one. Every token minted through it dies. */
export async function revokeTeamAuthorization(store: Store, teamId: string, userId: string): Promise<boolean> {
  return (await store.team_authorizations.deleteMany({ team_id: teamId, user_id: userId })) > 0;
}

/** Known scope names, in SCOPES order (so equal sets read equal). */
function inScopeOrder(scopes: readonly string[]): string[] {
  return SCOPES.filter((scope) => scopes.includes(scope));
}

function byName(teams: TeamRecord[]): TeamRecord[] {
  return [...teams].sort((a, b) => a.name.localeCompare(b.name) || (a.id < b.id ? -1 : 1));
}

function compareNames(a: UserRecord, b: UserRecord): number {
  const name = (user: UserRecord) => [user.first_name, user.last_name].filter(Boolean).join(' ').toLowerCase();
  return name(a).localeCompare(name(b)) || (a.id < b.id ? -1 : 1);
}
