/**
 * Delegated and principal tokens (interface §4 "OAuth and identity", §5 "Delegated tokens"; gaps.md
 * "Paths the interface leaves out").
 *
 * POST /api/v1/oauth/delegated-token mints a 15-minute token whose `sub` is another user and whose
 * `act.sub` is the caller; who may mint for whom and which scopes it carries live in auth/delegation.ts.
 * A delegated token never mints again. GET /api/v1/oauth/principal-token gives the signed-in user a
 * fresh token back, from a delegated token never wider than the token that minted it.
 * test/gateway/delegation.test.ts keeps both honest.
 */
import { z } from 'zod';
import { named } from '../schemas/components.js';
import { mintAccessToken, type Principal } from '../auth/access-tokens.js';
import { delegableScopes, findDelegationBasis, narrowToRequested } from '../auth/delegation.js';
import { SCOPES } from '../auth/scopes.js';
import { ForbiddenError, UnauthorizedError } from '../errors.js';
import type { RouteTable } from '../route-table.js';
import type { GatewayDeps } from '../deps.js';

const id = z.string().min(1).max(64);

/** Clients send every key; null means absent (gaps.md "Wire conventions"). */
const DelegatedTokenBody = z.object({
  sub: id.describe('The user to act for'),
  team_id: id.nullish().describe('Delegate through this team: the subject must have authorized it and the caller be a member; the token then carries `org`'),
  scopes: z.array(z.enum(SCOPES)).max(SCOPES.length).nullish().describe('Narrow the token to these scopes (all delegable scopes when absent); openid and profile always ride along'),
});

const TokenResponse = named('DelegatedTokenResponse', z.object({
  access_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int().describe('Seconds: 900'),
  refresh_token: z.null().describe('Always null: these tokens are not refreshed'),
  scope: z.string(),
}));
type TokenResponse = z.output<typeof TokenResponse>;

export function delegationRoutes(table: RouteTable, deps: GatewayDeps): void {
  table.add(
    {
      method: 'post', path: '/api/v1/oauth/delegated-token', operationId: 'mintDelegatedToken', tag: 'oauth',
      summary: 'A token that acts for a managed user or a user who shared data with your team',
      // A delegated token never carries sharing:read, and is refused by name before the scope check.
      auth: 'bearer', scope: 'sharing:read', refuseDelegated: true, body: DelegatedTokenBody,
      responses: {
        200: { description: 'The delegated token', schema: TokenResponse },
        403: { description: 'Not allowed to act for this user (unknown users get the same answer), a scope that cannot be delegated, or a delegated token' },
      },
    },
    async function mintDelegatedToken(ctx) {
      const minting: Principal = ctx.state.auth;
      const body = ctx.state.body as z.output<typeof DelegatedTokenBody>;
      const teamId = body.team_id ?? null;
      if (minting.actorId !== null) throw new ForbiddenError('delegated-token: a delegated token cannot mint another');
      const basis = await findDelegationBasis(deps.store, { actorId: minting.userId, subjectId: body.sub, teamId });
      if (!basis) {
        throw new ForbiddenError(`delegated-token: no delegation to user ${body.sub}${teamId === null ? '' : ` through team ${teamId}`}`);
      }
      const narrowed = narrowToRequested(delegableScopes(minting.scopes, basis), body.scopes);
      if (!narrowed.ok) {
        throw new ForbiddenError(`delegated-token: scope ${narrowed.refused} cannot be delegated (never email, sharing or offline_access, never beyond this token or the user's authorization)`);
      }
      const minted = await mintAccessToken(deps.keys, {
        issuer: deps.config.baseUrl,
        userId: body.sub,
        applicationId: minting.applicationId,
        // The minting token is not delegated, so its grant is the actor's, which the new token stands on.
        grantId: minting.grantId,
        clientSecretId: minting.clientSecretId,
        issuanceId: minting.issuanceId,
        scopes: narrowed.scopes,
        actorId: minting.userId,
        // "Delegated tokens carry org = the team id when minted through a team."
        org: teamId,
        mintingScopes: [...minting.scopes],
      });
      ctx.body = { ...minted, refresh_token: null, scope: narrowed.scopes.join(' ') } satisfies TokenResponse;
    },
  );

  table.add(
    {
      method: 'get', path: '/api/v1/oauth/principal-token', operationId: 'principalToken', tag: 'oauth',
      summary: 'A token for the signed-in (principal) user, also from a delegated token',
      // "needs a valid token and no scope"
      auth: 'bearer',
      responses: {
        200: { description: "The principal's token: a delegated token's minting scopes at most, otherwise the same scopes", schema: TokenResponse },
        403: { description: 'A delegated token that does not record the token it was minted from' },
      },
    },
    async function principalToken(ctx) {
      const auth: Principal = ctx.state.auth;
      const userId = auth.actorId ?? auth.userId;
      const scopes = auth.actorId === null ? [...auth.scopes] : await actorScopes(deps, auth, auth.actorId);
      const minted = await mintAccessToken(deps.keys, {
        issuer: deps.config.baseUrl,
        userId,
        applicationId: auth.applicationId,
        // A delegated token's grant is already the actor's.
        grantId: auth.grantId,
        clientSecretId: auth.clientSecretId,
        issuanceId: auth.issuanceId,
        scopes,
      });
      ctx.body = { ...minted, refresh_token: null, scope: scopes.join(' ') } satisfies TokenResponse;
    },
  );
}

/**
 * The scopes the actor's token gets back: those of the token the delegated one was minted from, and for
 * an app token no more than the actor's grant (the one the token names) holds now.
 */
async function actorScopes(deps: GatewayDeps, auth: Principal, actorId: string): Promise<string[]> {
  if (!auth.mintingScopes) throw new ForbiddenError('principal-token: this delegated token does not record the token it was minted from');
  const [actor, grant] = await Promise.all([
    deps.store.users.get(actorId),
    auth.grantId ? deps.store.grants.get(auth.grantId) : null,
  ]);
  if (!actor || (auth.applicationId && !grant)) throw new UnauthorizedError('Access token revoked', { invalidToken: true });
  const granted = grant ? new Set(grant.scopes) : null;
  return [...auth.mintingScopes].filter((scope) => !granted || granted.has(scope));
}
