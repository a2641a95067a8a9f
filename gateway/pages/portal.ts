/**
 * The hosted portal's screens (gaps.md "Portal"): `manage-integrations` (the training platforms, each
 * with its connection and sync state) and `manage-teams` (the teams the user authorized, each with a
 * Revoke button), branded with the calling app's name, image and colour, plus the pages a link that
 * cannot be used answers with. Pure renderers for routes/portal.ts, sent with sendPage (no-store,
 * no-referrer, frame-ancestors 'none', no script).
 *
 * Deliberately: the only link that leaves this server is "Back to <app>", and only to the `return_url`
 * checked against the application's redirect URIs when the link was made; without one the page tells the
 * user to close it ("without it the portal tells the user to close the page"). Connect buttons arrive
 * with the integrations (issue 15): until a platform is configured here the page says so instead of
 * offering a button that cannot work. A live connection lists the permissions its user did not grant at
 * the provider (Garmin's four), each with what that means. Kept honest by test/gateway/portal.test.ts,
 * test/gateway/garmin-permissions.test.ts and test/browser/portal.test.ts.
 */
import { html, type Html } from './html.js';
import { appHeader, type Brand, type PageOptions } from './layout.js';
import { describeScopes, formatDate } from './account.js';
import type { ProviderPermission } from '../../domain/provider-permissions.js';

/** A team the user authorized, as the manage-teams page lists it. */
export interface AuthorizedTeam {
  teamId: string;
  name: string;
  description: string;
  url: string;
  scopes: string[];
  since: number;
}

export interface PortalFrame {
  brand: Brand;
  returnUrl: string | null;
  csrfToken: string;
  notice?: string | null;
}

export interface IntegrationView {
  name: string;
  /** What the platform supplies, in a few words. */
  supplies: string;
  state: 'connected' | 'syncing' | 'action_required' | 'disconnected' | 'not_connected';
  /** An integration is configured on this server. */
  configured: boolean;
  /** The provider key, for the Connect / Disconnect forms. */
  provider: string;
  /** Permissions a live connection's user has not granted at the provider, and what that means; empty when none. */
  missing: readonly Pick<ProviderPermission, 'name' | 'label' | 'withoutIt'>[];
}

const STATE_TEXT: Record<IntegrationView['state'], string> = {
  connected: 'Connected',
  syncing: 'Connected · importing your history',
  action_required: 'Needs your attention: reconnect to keep data flowing',
  disconnected: 'Disconnected',
  not_connected: 'Not connected',
};

function frame(view: PortalFrame, title: string, body: Html): PageOptions {
  const { brand } = view;
  return {
    title,
    brand,
    wide: true,
    body: html`${view.returnUrl ? html`<p class="muted"><a href="${view.returnUrl}">← Back to ${brand.name}</a></p>` : null}
${appHeader(brand)}
<h1>${title}</h1>
${view.notice ? html`<p class="notice success" role="status">${view.notice}</p>` : null}
${body}
${view.returnUrl
  ? html`<a class="button" href="${view.returnUrl}">Back to ${brand.name}</a>`
  : html`<p class="notice">When you are done, close this page to return to ${brand.name}.</p>`}`,
  };
}

export function integrationsPage(view: PortalFrame & { integrations: IntegrationView[] }): PageOptions {
  const anyConfigured = view.integrations.some((integration) => integration.configured);
  return frame(view, 'Connected platforms', html`<p class="lead">${view.brand.name} receives your training through Threshold. Connect the platforms that record it, and see how each one is syncing.</p>
<div class="list">${view.integrations.map((integration) => html`<div class="item">
<div><strong>${integration.name}</strong>
<p class="muted">${integration.supplies}</p>
<p>${STATE_TEXT[integration.state]}${integration.state === 'not_connected' && !integration.configured ? html`<span class="muted"> · not available on this server</span>` : null}</p>
${integration.missing.length > 0 ? missingNote(integration) : null}</div>
${integration.configured ? integrationForm(view.csrfToken, integration) : null}
</div>`)}</div>
${anyConfigured ? null : html`<p class="muted">No platform can be connected on this Threshold server yet. You can still upload activity files through ${view.brand.name}.</p>`}`);
}

/** The permissions not granted at the provider, each with what it means, and where to change that. */
function missingNote(integration: IntegrationView): Html {
  return html`<div class="notice permissions-missing" role="note"><p>Not shared by ${integration.name}:</p>
<ul>${integration.missing.map((permission) => html`<li><strong>${permission.label}</strong> <span class="muted">(${permission.name})</span>: ${permission.withoutIt}.</li>`)}</ul>
<p class="muted">To change this, allow it in ${integration.name}'s settings for connected apps; there is no need to reconnect.</p></div>`;
}

/** Connect (also to reconnect after a problem) or Disconnect, as CSRF-checked forms. */
function integrationForm(csrfToken: string, integration: IntegrationView): Html {
  const live = integration.state === 'connected' || integration.state === 'syncing' || integration.state === 'action_required';
  const action = live && integration.state !== 'action_required' ? 'disconnect' : 'connect';
  const label = action === 'disconnect' ? 'Disconnect' : integration.state === 'action_required' ? 'Reconnect' : 'Connect';
  return html`<form method="post" action="/portal/manage-integrations/${encodeURIComponent(integration.provider)}/${action}" class="inline"><input type="hidden" name="csrf" value="${csrfToken}"><button type="submit"${action === 'disconnect' ? html` class="secondary"` : null}>${label}</button></form>`;
}

export function teamsPage(view: PortalFrame & { teams: AuthorizedTeam[] }): PageOptions {
  return frame(view, 'Teams with access', view.teams.length === 0
    ? html`<p class="lead">No team can see your data. When you allow a coach's or club's team to follow your training, it will be listed here.</p>`
    : html`<p class="lead">These teams can see your data. Revoking one stops its members' access at once.</p>
<div class="list">${view.teams.map((team) => html`<div class="item">
<div><strong>${team.name}</strong>
${team.description ? html`<p class="muted">${team.description}</p>` : null}
<p class="muted">${describeScopes(team.scopes).join(' · ')}</p>
<p class="muted">Allowed since ${formatDate(team.since)}</p></div>
<form method="post" action="/portal/manage-teams/${encodeURIComponent(team.teamId)}/revoke" class="inline"><input type="hidden" name="csrf" value="${view.csrfToken}"><button type="submit" class="secondary" title="${team.name} loses access at once">Revoke</button></form>
</div>`)}</div>`);
}

/** A link that was used, expired or never existed; `brand` when its application is known. */
export function unusableLinkPage(view: { reason: 'used' | 'expired' | 'unknown'; brand: Brand | null }): PageOptions {
  const appName = view.brand?.name ?? 'the app';
  const title = view.reason === 'used' ? 'This link was already used' : view.reason === 'expired' ? 'This link has expired' : 'This link is not valid';
  const why = view.reason === 'used'
    ? 'Each portal link opens the portal once, for your safety.'
    : view.reason === 'expired' ? 'Portal links work for a few minutes only, for your safety.' : 'It may be incomplete, or it was never made.';
  return {
    title,
    brand: view.brand,
    body: html`${view.brand ? appHeader(view.brand) : null}
<h1>${title}</h1>
<p>${why}</p>
<p class="muted">Go back to ${appName} and open this page from there again. Nothing was changed.</p>`,
  };
}

/** No live portal visit in this browser (the cookie is missing, expired, or for another destination). */
export function visitEndedPage(): PageOptions {
  return {
    title: 'Open this page from your app',
    body: html`<h1>Open this page from your app</h1>
<p>This page opens from the app you came from, and only for a while. Go back to the app and open it again.</p>
<p class="muted">To manage everything yourself, go to your <a href="/account">Threshold account</a>.</p>`,
  };
}

/** 403 for a portal form without the visit's CSRF token. */
export function portalFormExpiredPage(brand: Brand): PageOptions {
  return {
    title: 'This form has expired',
    brand,
    body: html`${appHeader(brand)}
<h1>This form has expired</h1>
<p class="notice error" role="alert">The form did not come from this portal page. Nothing was changed. Reload the page and try again.</p>`,
  };
}
