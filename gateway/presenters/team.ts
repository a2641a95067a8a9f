/**
 * Team records → the interface's Team and Authorized team (interface §2 "Team"; gaps.md "Team":
 * "description, url, image, privacy_statement are non-null; role is owner, member or null"). Explicit
 * field lists: the owner's id and the creation time stay inside. test/gateway/teams.test.ts.
 */
import { z } from 'zod';
import { named } from '../schemas/components.js';
import type { TeamRecord } from '../../storage/store.js';
import { SCOPES, isScope } from '../auth/scopes.js';

export const TEAM_ROLES = ['owner', 'member'] as const;
export type TeamRole = (typeof TEAM_ROLES)[number];

const TeamFields = {
  id: z.string(),
  name: z.string(),
  description: z.string(),
  url: z.string().describe('uri; empty when the owner gave none'),
  image: z.string().describe('uri; empty when the owner gave none'),
  privacy_statement: z.string().describe('uri; empty when the owner gave none'),
};

export const Team = named('Team', z.object({ ...TeamFields, role: z.enum(TEAM_ROLES).nullable().describe("The caller's role in the team") }));
export const AuthorizedTeam = named('AuthorizedTeam', z.object({ ...TeamFields, scopes: z.array(z.enum(SCOPES)).describe('The scopes granted') }));

function teamFields(team: TeamRecord) {
  return {
    id: team.id,
    name: team.name,
    description: team.description ?? '',
    url: team.url ?? '',
    image: team.image ?? '',
    privacy_statement: team.privacy_statement ?? '',
  };
}

export function presentTeam(team: TeamRecord, role: TeamRole | null): z.output<typeof Team> {
  return { ...teamFields(team), role };
}

export function presentAuthorizedTeam(team: TeamRecord, scopes: readonly string[]): z.output<typeof AuthorizedTeam> {
  return { ...teamFields(team), scopes: scopes.filter(isScope) };
}
