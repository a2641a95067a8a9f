/**
 * The hosted portal (interface §4 "Portal", §7; gaps.md "Portal"):
 *
 *   POST /api/v1/portal/sessions                      app token, no scope → {url, expires_at}
 *   GET  /portal/link/:token                           uses the link up → 303 /portal/<destination>
 *   GET  /portal/manage-integrations                   platforms and their sync state
 *   GET  /portal/manage-teams                          authorized teams, each with Revoke
 *   POST /portal/manage-teams/:team_id/revoke          CSRF-checked → 303 /portal/manage-teams
 *   POST /portal/manage-integrations/:provider/connect     CSRF-checked → 303 to the provider (callback: routes/integrations.ts)
 *   POST /portal/manage-integrations/:provider/disconnect  CSRF-checked → revoke, 303 /portal/manage-integrations
 *
 * "Portal session with a delegated token: 403" (the route refuses delegated tokens before anything
 * else); "with a token that belongs to no application: 400". `return_url` "must equal or sit under one of
 * the app's registered redirect URIs": the redirect matcher decides (auth/redirect-uris.ts), at most 2048
 * characters; either failure is a 422. The link is single-use and lives 5 minutes; following it opens a
 * portal visit of 30 minutes for that destination only (auth/portal-links.ts). A used link answers 410
 * "already used", an expired one 410, an unknown one 404. Kept honest by test/gateway/portal.test.ts
 * and test/browser/portal.test.ts.
 */
import { z } from 'zod';
import { named } from '../schemas/components.js';
import type { Context } from 'koa';
import type { ApplicationRecord, PortalSessionRecord } from '../../storage/store.js';
import { PORTAL_DESTINATIONS, type PortalDestination } from '../../domain/account-status.js';
import { PROVIDERS, PROVIDER_NAMES, DAILY_PROVIDERS, type Provider } from '../../domain/providers.js';
import { missingPermissions } from '../../domain/provider-permissions.js';
import { HttpError, ValidationError } from '../errors.js';
import { matchRedirectUri } from '../auth/redirect-uris.js';
import { PortalLinks } from '../auth/portal-links.js';
import { brandOf } from '../presenters/application.js';
import { startProviderAuthorization } from '../services/provider-authorization.js';
import { authorizedTeams, revokeTeamAuthorization } from '../services/team-access.js';
import { sendPage } from '../pages/layout.js';
import { formBody, seeOther } from '../pages/forms.js';
import { integrationsPage, portalFormExpiredPage, teamsPage, unusableLinkPage, visitEndedPage, type IntegrationView } from '../pages/portal.js';
import type { RouteTable } from '../route-table.js';
import type { GatewayDeps } from '../deps.js';

/** "Portal return_url: at most 2048 characters". */
const MAX_RETURN_URL = 2048;

const PortalSessionBody = z.object({
  destination: z.enum(PORTAL_DESTINATIONS).describe('The portal page to open'),
  return_url: z.string().max(MAX_RETURN_URL).nullish()
    .describe('Where "Back to the app" leads: equal to or under one of the application\'s redirect URIs; without it the portal tells the user to close the page'),
});

const PortalSession = named('PortalSession', z.object({
  url: z.string().describe('The single-use portal link; send the user to it straight away, never store or reuse it'),
  expires_at: z.string().describe('When the unused link stops working (5 minutes), UTC'),
}));

const NOTICES = new Map([
  ['revoked', 'Access revoked. The team can no longer see your data.'],
  ['missing', 'That team no longer had access.'],
  ['connected', 'Connected. Your history is being imported.'],
  ['refused', 'Nothing was connected: the platform did not give access.'],
  ['disconnected', 'Disconnected. No more data is imported from that platform.'],
]);

export function portalRoutes(table: RouteTable, deps: GatewayDeps): void {
  const { store } = deps;
  const links = new PortalLinks(store, deps.config.baseUrl);

  table.add(
    {
      method: 'post', path: '/api/v1/portal/sessions', operationId: 'createPortalSession', tag: 'portal',
      summary: 'A single-use, short-lived link to the hosted portal, branded for the calling app (beta)',
      auth: 'bearer', refuseDelegated: true, body: PortalSessionBody,
      responses: {
        200: { description: 'The link', schema: PortalSession },
        400: { description: 'The token belongs to no application (a personal token)' },
        403: { description: 'A delegated token' },
      },
    },
    async function createPortalSession(ctx) {
      const input = ctx.state.body as z.output<typeof PortalSessionBody>;
      const applicationId: string | null = ctx.state.auth.applicationId;
      const application = applicationId ? await store.applications.get(applicationId) : null;
      if (!application) throw new HttpError(400, 'A portal session needs an application\'s token; this token belongs to no application', { code: 'no_application' });
      const returnUrl = input.return_url ?? null;
      if (returnUrl !== null && !matchRedirectUri(application.redirect_uris, returnUrl)) {
        throw ValidationError.single(['body', 'return_url'], 'must equal or sit under one of the application\'s registered redirect URIs');
      }
      const { token, record } = await links.create({ userId: ctx.state.auth.userId, applicationId: application.id, destination: input.destination, returnUrl });
      ctx.body = { url: `${deps.config.baseUrl}/portal/link/${token}`, expires_at: new Date(record.expires_at).toISOString() };
    },
  );

  table.page({ method: 'get', path: '/portal/link/:token', name: 'portalLink' }, async function followPortalLink(ctx) {
    const used = await links.use(ctx, ctx.params.token);
    if (used.ok) return seeOther(ctx, `/portal/${used.record.destination}`);
    const application = used.record ? await store.applications.get(used.record.application_id) : null;
    sendPage(ctx, used.reason === 'unknown' ? 404 : 410, unusableLinkPage({ reason: used.reason, brand: application ? brandOf(application) : null }));
  });

  table.page({ method: 'get', path: '/portal/manage-integrations', name: 'portalIntegrations' }, async function showIntegrations(ctx) {
    const open = await openVisit(ctx, 'manage-integrations');
    if (!open) return;
    const connections = await store.connections.find({ user_id: open.visit.user_id });
    const integrations: IntegrationView[] = PROVIDERS.map((provider) => {
      const connection = connections.find((candidate) => candidate.provider === provider);
      const state = !connection ? 'not_connected'
        : connection.status === 'connected' ? (connection.backfill_done ? 'connected' : 'syncing')
        : connection.status;
      return {
        name: PROVIDER_NAMES[provider],
        supplies: DAILY_PROVIDERS.has(provider) ? 'Activities, daily measures and scheduled workouts' : 'Activities and scheduled workouts',
        state,
        configured: deps.config.configuredProviders.includes(provider),
        provider,
        missing: connection?.status === 'connected' ? missingPermissions(connection) : [],
      };
    });
    sendPage(ctx, 200, integrationsPage({ ...frameOf(open), integrations, notice: noticeOf(ctx) }));
  });

  table.page({ method: 'post', path: '/portal/manage-integrations/:provider/connect', name: 'portalConnectIntegration' }, async function connectIntegration(ctx) {
    const open = await openVisit(ctx, 'manage-integrations');
    if (!open) return;
    if (!PortalLinks.csrfMatches(open.visit, formBody(ctx).csrf)) return sendPage(ctx, 403, portalFormExpiredPage(brandOf(open.application)));
    const provider = configuredProvider(String(ctx.params.provider));
    if (!provider) return seeOther(ctx, '/portal/manage-integrations');
    await startProviderAuthorization(ctx, deps, { userId: open.visit.user_id, provider, returnTo: 'portal' });
  });

  table.page({ method: 'post', path: '/portal/manage-integrations/:provider/disconnect', name: 'portalDisconnectIntegration' }, async function disconnectIntegration(ctx) {
    const open = await openVisit(ctx, 'manage-integrations');
    if (!open) return;
    if (!PortalLinks.csrfMatches(open.visit, formBody(ctx).csrf)) return sendPage(ctx, 403, portalFormExpiredPage(brandOf(open.application)));
    const provider = configuredProvider(String(ctx.params.provider));
    if (provider) await deps.engine.disconnectProvider({ user_id: open.visit.user_id, provider });
    seeOther(ctx, '/portal/manage-integrations?notice=disconnected');
  });

  function configuredProvider(name: string): Provider | null {
    return deps.config.configuredProviders.find((provider) => provider === name) ?? null;
  }

  table.page({ method: 'get', path: '/portal/manage-teams', name: 'portalTeams' }, async function showTeams(ctx) {
    const open = await openVisit(ctx, 'manage-teams');
    if (!open) return;
    sendPage(ctx, 200, teamsPage({ ...frameOf(open), teams: (await authorizedTeams(store, open.visit.user_id)).map(({ team, scopes, since }) => ({ teamId: team.id, name: team.name, description: team.description, url: team.url, scopes, since })), notice: noticeOf(ctx) }));
  });

  table.page({ method: 'post', path: '/portal/manage-teams/:team_id/revoke', name: 'portalRevokeTeam' }, async function revokeTeam(ctx) {
    const open = await openVisit(ctx, 'manage-teams');
    if (!open) return;
    if (!PortalLinks.csrfMatches(open.visit, formBody(ctx).csrf)) return sendPage(ctx, 403, portalFormExpiredPage(brandOf(open.application)));
    const revoked = await revokeTeamAuthorization(store, String(ctx.params.team_id), open.visit.user_id);
    seeOther(ctx, `/portal/manage-teams?notice=${revoked ? 'revoked' : 'missing'}`);
  });

  /** The browser's live visit for `destination` and its application; otherwise the 403 page was sent. */
  async function openVisit(ctx: Context, destination: PortalDestination): Promise<{ visit: PortalSessionRecord; application: ApplicationRecord } | null> {
    const visit = await links.visit(ctx);
    const application = visit && visit.destination === destination ? await store.applications.get(visit.application_id) : null;
    if (visit && application) return { visit, application };
    sendPage(ctx, 403, visitEndedPage());
    return null;
  }
}

function frameOf(open: { visit: PortalSessionRecord; application: ApplicationRecord }) {
  return { brand: brandOf(open.application), returnUrl: open.visit.return_url, csrfToken: open.visit.csrf_token };
}

function noticeOf(ctx: Context): string | null {
  const code = ctx.query.notice;
  return typeof code === 'string' ? NOTICES.get(code) ?? null : null;
}
