/**
 * The teams API (interface §4 "Teams"; gaps.md "Team", "Team users"):
 *
 *   GET    /api/v1/teams/                     the caller's teams with their role          sharing:read
 *   GET    /api/v1/teams/authorized           the teams the caller (or a managed user) authorized
 *   POST   /api/v1/teams/{team_id}/authorize  a managed user authorizes a team            (delegated token)
 *   DELETE /api/v1/teams/{team_id}/authorize  and revokes it                             (delegated token)
 *   GET    /api/v1/teams/{team_id}/users      who authorized the team; members only       sharing:read
 *
 * authorize "requires a delegated token whose subject is a managed user of the authorized party", yet a
 * delegated token "never carries … sharing": so the scope these need (sharing:write, and sharing:read for
 * the authorized listing on a delegated token) is looked for on the token the delegated one was minted
 * from (its `principal_scope`), and the route table declares none. A team the caller is not in answers
 * as an unknown one: 404 either way, never confirming that it exists. Revoking ends every delegated
 * token minted through the authorization at once (auth/access-tokens.ts re-checks it on each request).
 * Kept honest by test/gateway/teams.test.ts.
 */
import { z } from 'zod';
import { named } from '../schemas/components.js';
import type { Context } from 'koa';
import type { Principal } from '../auth/access-tokens.js';
import { NEVER_DELEGATED } from '../auth/delegation.js';
import { SCOPES, isScope, sortScopes, type Scope } from '../auth/scopes.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../errors.js';
import { AuthorizedTeam, Team, presentAuthorizedTeam, presentTeam } from '../presenters/team.js';
import { UserSummary, presentUserSummary } from '../presenters/user.js';
import { queryString } from '../schemas/query.js';
import { authorizeTeam, authorizedTeams, revokeTeamAuthorization, teamAuthorizers, teamOfMember, teamsOf } from '../services/team-access.js';
import type { RouteTable } from '../route-table.js';
import type { GatewayDeps } from '../deps.js';

const TeamParams = z.object({ team_id: z.string().min(1).max(64).describe("The team's id") });
type TeamParams = z.output<typeof TeamParams>;

const UsersQuery = z.object({
  name: queryString(z.string().max(200)).optional().describe('Case-insensitive match anywhere in the display name'),
});

const AuthorizeBody = z.object({
  scopes: z.array(z.string().max(64)).max(32)
    .describe('The data scopes to grant (the retired bundles data:read and data:write stand for their data scopes); openid and profile ride along'),
});

const AuthorizeResponse = named('TeamAuthorization', z.object({ team_id: z.string(), user_id: z.string(), scopes: z.array(z.enum(SCOPES)) }));

/** The data parts of the retired bundles: a delegated token never carries their sharing part. */
const BUNDLE_DATA: ReadonlyMap<string, readonly Scope[]> = new Map([
  ['data:read', ['activities:read', 'wellness:read', 'reproductive_health:read', 'workouts:read']],
  ['data:write', ['activities:write', 'wellness:write', 'reproductive_health:write', 'workouts:write']],
]);

const DELEGATED_ONLY = 'Needs a delegated token whose subject is a managed user of the caller, minted from a token with sharing:write';
const NOT_FOUND = { description: 'Unknown team, or one the caller is not in (the same answer)' };

export function teamRoutes(table: RouteTable, deps: GatewayDeps): void {
  const { store } = deps;
  const unknownTeam = (id: string) => new NotFoundError(`teams: no team ${id}`);

  table.add(
    {
      method: 'get', path: '/api/v1/teams/', operationId: 'listTeams', tag: 'teams',
      summary: 'The teams the caller owns or belongs to, with their role', auth: 'bearer', scope: 'sharing:read',
      responses: { 200: { description: 'Teams by name', schema: z.array(Team) } },
    },
    async function listTeams(ctx) {
      ctx.body = (await teamsOf(store, ctx.state.auth.userId)).map(({ team, role }) => presentTeam(team, role, deps.config.baseUrl));
    },
  );

  table.add(
    {
      method: 'get', path: '/api/v1/teams/authorized', operationId: 'listAuthorizedTeams', tag: 'teams',
      summary: 'The teams the caller authorized (sharing:read; on a delegated token for a managed user, on the token it was minted from)',
      auth: 'bearer',
      responses: {
        200: { description: 'Authorized teams by name, with the scopes granted', schema: z.array(AuthorizedTeam) },
        403: { description: 'sharing:read missing, or a delegated token for someone other than a managed user' },
      },
    },
    async function listAuthorizedTeams(ctx) {
      await requireSharing(ctx, 'sharing:read', { delegated: 'allowed' });
      ctx.body = (await authorizedTeams(store, ctx.state.auth.userId)).map(({ team, scopes }) => presentAuthorizedTeam(team, scopes, deps.config.baseUrl));
    },
  );

  table.add(
    {
      method: 'post', path: '/api/v1/teams/{team_id}/authorize', operationId: 'authorizeTeam', tag: 'teams',
      summary: "Authorize a team to access a managed user's data (a delegated token for that user)",
      auth: 'bearer', params: TeamParams, body: AuthorizeBody,
      responses: {
        200: { description: 'The authorization', schema: AuthorizeResponse },
        403: { description: `${DELEGATED_ONLY}; or a scope beyond the delegated token` },
        404: { description: 'Unknown team' },
      },
    },
    async function authorize(ctx) {
      await requireSharing(ctx, 'sharing:write', { delegated: 'required' });
      const { team_id } = ctx.state.input as TeamParams;
      const scopes = grantableScopes((ctx.state.body as z.output<typeof AuthorizeBody>).scopes, ctx.state.auth);
      if (!(await store.teams.get(team_id))) throw unknownTeam(team_id);
      const authorization = await authorizeTeam(store, team_id, ctx.state.auth.userId, scopes);
      ctx.body = { team_id, user_id: authorization.user_id, scopes: authorization.scopes };
    },
  );

  table.add(
    {
      method: 'delete', path: '/api/v1/teams/{team_id}/authorize', operationId: 'revokeTeam', tag: 'teams',
      summary: "Revoke a managed user's authorization of a team; every token minted through it stops working",
      auth: 'bearer', params: TeamParams,
      responses: { 204: { description: 'No authorization is left' }, 403: { description: DELEGATED_ONLY }, 404: { description: 'Unknown team' } },
    },
    async function revoke(ctx) {
      await requireSharing(ctx, 'sharing:write', { delegated: 'required' });
      const { team_id } = ctx.state.input as TeamParams;
      if (!(await store.teams.get(team_id))) throw unknownTeam(team_id);
      await revokeTeamAuthorization(store, team_id, ctx.state.auth.userId);
      ctx.status = 204;
    },
  );

  table.add(
    {
      method: 'get', path: '/api/v1/teams/{team_id}/users', operationId: 'listTeamUsers', tag: 'teams',
      summary: 'The users who authorized the team, with the scopes they granted; team members only',
      auth: 'bearer', scope: 'sharing:read', params: TeamParams, query: UsersQuery,
      responses: { 200: { description: 'User summaries by name', schema: z.array(UserSummary) }, 404: NOT_FOUND },
    },
    async function listTeamUsers(ctx) {
      const { team_id, name } = ctx.state.input as TeamParams & z.output<typeof UsersQuery>;
      if (!(await teamOfMember(store, team_id, ctx.state.auth.userId))) throw unknownTeam(team_id);
      const needle = name?.trim().toLowerCase();
      ctx.body = (await teamAuthorizers(store, team_id))
        .map(({ user, scopes }) => presentUserSummary(user, scopes, null))
        .filter((summary) => !needle || summary.display_name.toLowerCase().includes(needle));
    },
  );

  /**
   * The scope on the token, or for a delegated token on the token it was minted from, and then only
   * when its subject is a managed user of the actor. `required`: a token that is not delegated is refused.
   */
  async function requireSharing(ctx: Context, scope: Scope, options: { delegated: 'allowed' | 'required' }): Promise<void> {
    const auth: Principal = ctx.state.auth;
    if (auth.actorId === null) {
      if (options.delegated === 'required') {
        throw new ForbiddenError('teams: authorize a team for a managed user with a delegated token for them; people authorize teams in the browser (/oauth/authorize)');
      }
      if (!auth.scopes.has(scope)) throw ForbiddenError.missingScope(scope);
      return;
    }
    const subject = await store.users.get(auth.userId);
    if (!subject || subject.managed_by !== auth.actorId) throw new ForbiddenError('teams: a delegated token acts here only for a managed user of the caller');
    if (!auth.mintingScopes?.has(scope)) throw ForbiddenError.missingScope(scope);
  }
}

/**
 * The requested names as data scopes: bundles read as their data scopes, openid and profile dropped (they
 * ride along), never a scope a delegated token cannot carry (422), never beyond this token (403).
 */
function grantableScopes(requested: readonly string[], auth: Principal): Scope[] {
  const scopes: Scope[] = [];
  requested.forEach((name, index) => {
    const bundle = BUNDLE_DATA.get(name);
    if (bundle) return void scopes.push(...bundle);
    if (!isScope(name)) throw ValidationError.single(['body', 'scopes', index], `unknown scope ${name}`);
    if ((NEVER_DELEGATED as readonly string[]).includes(name)) throw ValidationError.single(['body', 'scopes', index], `${name} cannot be granted to a team`);
    if (name !== 'openid' && name !== 'profile') scopes.push(name);
  });
  const beyond = scopes.find((scope) => !auth.scopes.has(scope));
  if (beyond) throw new ForbiddenError(`teams: scope ${beyond} is beyond this token`, { scope: beyond });
  return sortScopes(scopes);
}
