/**
 * A team's three links as the interface types them (§2 "Team": "url, image, privacy_statement: string,
 * uri"; issue 23 item 2). New teams must give all three (services/teams.ts); a team stored without one
 * answers with an address this service serves under BASE_URL instead of "" (which the official client
 * refuses, and with it the whole team list):
 *
 *   url                the team's public page        /teams/{id}
 *   image              an SVG of the team's initials /teams/{id}/image.svg
 *   privacy_statement  the instance's statement      /legal/privacy
 *
 * routes/team-profile.ts and routes/legal.ts serve them. Kept honest by
 * test/gateway/team-links.test.ts.
 */
import type { TeamRecord } from '../../storage/store.js';

/** The instance's own privacy statement, on BASE_URL. */
export const PRIVACY_STATEMENT_PATH = '/legal/privacy';

export function teamPagePath(teamId: string): string {
  return `/teams/${encodeURIComponent(teamId)}`;
}

export function teamImagePath(teamId: string): string {
  return `${teamPagePath(teamId)}/image.svg`;
}

export interface TeamLinks {
  url: string;
  image: string;
  privacy_statement: string;
}

/** The team's own links, each replaced by the service's address when the team has none. */
export function teamLinks(team: Pick<TeamRecord, 'id' | 'url' | 'image' | 'privacy_statement'>, baseUrl: string): TeamLinks {
  return {
    url: team.url || `${baseUrl}${teamPagePath(team.id)}`,
    image: team.image || `${baseUrl}${teamImagePath(team.id)}`,
    privacy_statement: team.privacy_statement || `${baseUrl}${PRIVACY_STATEMENT_PATH}`,
  };
}
