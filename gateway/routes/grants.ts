/**
 * Connected applications through the API ([ours]: the interface names revocation but no path). A
 * personal token (no application) sees and revokes every grant of its user; an application's token
 * sees and revokes only its own grant (an app offering "disconnect"). Delegated tokens are refused:
 * only the user may disconnect apps. Revoking ends every token of the grant at once
 * (services/grants.ts). The signed-in page /account does the same for people.
 */
import { z } from 'zod';
import { named } from '../schemas/components.js';
import type { RouteTable } from '../route-table.js';
import type { GatewayDeps } from '../deps.js';
import { ForbiddenError, NotFoundError } from '../errors.js';
import { formatUtc } from '../../domain/time.js';
import { revokeGrant } from '../services/grants.js';

const ConnectedApp = named('ConnectedApplication', z.object({
  application_id: z.string(),
  application_name: z.string(),
  scopes: z.array(z.string()),
  created_at: z.string().describe('When the user first connected the app (UTC)'),
  updated_at: z.string().describe('When the grant last grew (UTC)'),
}));
const ApplicationParams = z.object({ application_id: z.string().min(1).max(128).describe("The application's id (its OAuth client_id)") });

export function grantRoutes(table: RouteTable, deps: GatewayDeps): void {
  const { store } = deps;

  table.add(
    {
      method: 'get', path: '/api/v1/oauth/grants', operationId: 'listGrants', tag: 'oauth', auth: 'bearer', refuseDelegated: true,
      summary: 'Applications the user has connected, with the scopes granted (an app token sees only its own)',
      responses: { 200: { description: 'Connected applications, oldest first', schema: z.array(ConnectedApp) } },
    },
    async function listGrants(ctx) {
      const { userId, applicationId } = ctx.state.auth;
      const grants = await store.grants.find(
        applicationId ? { user_id: userId, application_id: applicationId } : { user_id: userId },
        { sort: { created_at: 1 } },
      );
      const applications = await Promise.all(grants.map((grant) => store.applications.get(grant.application_id)));
      ctx.body = grants.map((grant, index) => ({
        application_id: grant.application_id,
        application_name: applications[index]?.name ?? grant.application_id,
        scopes: [...grant.scopes],
        created_at: formatUtc(grant.created_at),
        updated_at: formatUtc(grant.updated_at),
      }));
    },
  );

  table.add(
    {
      method: 'delete', path: '/api/v1/oauth/grants/{application_id}', operationId: 'revokeGrant', tag: 'oauth', auth: 'bearer', refuseDelegated: true,
      summary: 'Disconnects an application: its grant, refresh tokens and access tokens end at once', params: ApplicationParams,
      responses: {
        200: { description: 'Revoked', schema: z.object({ application_id: z.string(), revoked: z.literal(true) }) },
        403: { description: 'An application token naming another application' },
        404: { description: 'The user has not connected this application' },
      },
    },
    async function revoke(ctx) {
      const { userId, applicationId } = ctx.state.auth;
      const target = (ctx.state.input as z.output<typeof ApplicationParams>).application_id;
      if (applicationId && applicationId !== target) throw new ForbiddenError('An application token can only disconnect its own application');
      if (!(await revokeGrant(store, userId, target))) throw new NotFoundError('This application is not connected');
      ctx.body = { application_id: target, revoked: true };
    },
  );
}
