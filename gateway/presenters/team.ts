/**
 * Team records → the interface's Team and Authorized team (interface §2 "Team"; gaps.md "Team":
 * "description, url, image, privacy_statement are non-null; role is owner, member or null"). The three
 * links are absolute URIs always: a team stored without one gets the service's own (services/team-links.ts).
 * Explicit field lists: the owner's id and the creation time stay inside. test/gateway/teams.test.ts.
 */
import { z } from 'zod';
import { named } from '../schemas/components.js';
import type { TeamRecord } from '../../storage/store.js';
import { SCOPES, isScope } from '../auth/scopes.js';
import { teamLinks } from '../services/team-links.js';

export const TEAM_ROLES = ['owner', 'member'] as const;
export type TeamRole = (typeof TEAM_ROLES)[number];

const TeamFields = {
  id: z.string(),
  name: z.string(),
  description: z.string(),
  url: z.string().meta({ format: 'uri', description: "The team's website; its page on this service when the owner gave none" }),
  image: z.string().meta({ format: 'uri', description: 'Its logo; an SVG of its initials on this service when the owner gave none' }),
  privacy_statement: z.string().meta({ format: 'uri', description: "Its privacy statement; this service's (/legal/privacy) when the owner gave none" }),
};

export const Team = named('Team', z.object({ ...TeamFields, role: z.enum(TEAM_ROLES).nullable().describe("The caller's role in the team") }));
export const AuthorizedTeam = named('AuthorizedTeam', z.object({ ...TeamFields, scopes: z.array(z.enum(SCOPES)).describe('The scopes granted') }));

/** `baseUrl`: the service's BASE_URL, for the links a team stored without them answers with. */
function teamFields(team: TeamRecord, baseUrl: string) {
  const { url, image, privacy_statement } = teamLinks(team, baseUrl);
  return {
    id: team.id,
    name: team.name,
    description: team.description ?? '',
    url,
    image,
    privacy_statement,
  };
}

export function presentTeam(team: TeamRecord, role: TeamRole | null, baseUrl: string): z.output<typeof Team> {
  return { ...teamFields(team, baseUrl), role };
}

export function presentAuthorizedTeam(team: TeamRecord, scopes: readonly string[], baseUrl: string): z.output<typeof AuthorizedTeam> {
  return { ...teamFields(team, baseUrl), scopes: scopes.filter(isScope) };
}
