/**
 * The browser side of the authorization-code flow (interface §5; AUTH.md "authorize" and "consent"):
 *
 *   GET  /oauth/authorize                   validate (auth/authorization-request.ts), then start an
 *                                           interaction bound to this browser's session
 *   GET  /oauth/interaction/:id             the next screen: sign-in, the private-app or not-ready
 *                                           page, consent — or straight back with a code when
 *                                           prompt=none can skip consent
 *   POST /oauth/interaction/:id/decision    the consent answer: CSRF-checked, single use
 *
 * An interaction belongs to the browser session that started it (sign-in moves it to the new session)
 * and, once the consent screen was shown, to that user: a decision from another session or another
 * account is refused, and a second decision finds it consumed. With `team_id` (the team variant,
 * auth/team-consent.ts) the consent screen also names the team and what it will see, and approving
 * records the user's authorization of the team as well as the app's grant. Kept honest by
 * test/gateway/authorize.test.ts, test/gateway/team-consent.test.ts and test/browser/oauth-flow.test.ts.
 */
import type { Context } from 'koa';
import type { ApplicationRecord, InteractionRecord, SessionRecord, UserRecord } from '../../storage/store.js';
import type { RouteTable } from '../route-table.js';
import type { GatewayDeps } from '../deps.js';
import { ValidationError } from '../errors.js';
import { Sessions } from '../auth/sessions.js';
import {
  callbackUrl, clientProblem, parseAuthorizationRequest, validationIssues, type AuthorizationRequest, type Query,
} from '../auth/authorization-request.js';
import { isLoopbackRedirect } from '../auth/redirect-uris.js';
import { isOnPagesOrigin } from '../hosted-pages/page-urls.js';
import { PURPOSE_CATEGORIES, consentLines, isScope, isSubset, withIdentity, type Scope } from '../auth/scopes.js';
import { issueCode } from '../auth/authorization-codes.js';
import { unionGrant } from '../services/accounts.js';
import { recordTeamConsent, teamAuthorizationCovers, teamScopes } from '../auth/team-consent.js';
import { brandOf, isPrivate } from '../presenters/application.js';
import { seeOther, withInteraction } from '../pages/forms.js';
import { INTERACTION_TTL_MS, liveInteraction, newInteractionId } from '../services/interactions.js';
import { sometimesSweep } from '../auth/sweep.js';
import { displayName } from '../presenters/user.js';
import { sendPage } from '../pages/layout.js';
import {
  authorizationErrorPage, consentPage, integrationNotConfiguredPage, notReadyPage, privateAppPage,
} from '../pages/oauth.js';


const PROVIDER_NAMES: Record<string, string> = { garmin_connect: 'Garmin Connect', intervals_icu: 'intervals.icu', wahoo: 'Wahoo' };
const FIELD_LABELS: Record<string, string> = {
  description: 'a description', url: 'a website address', image: 'an image', privacy_statement: 'a privacy statement',
};

export function authorizeRoutes(table: RouteTable, deps: GatewayDeps): void {
  const { store, sessions } = deps;
  const issuer = deps.config.baseUrl;

  table.page({ method: 'get', path: '/oauth/authorize', name: 'authorize' }, async function authorize(ctx) {
    const query = ctx.query as Query;
    const clientId = typeof query.client_id === 'string' && query.client_id.length <= 128 ? query.client_id : null;
    const application = clientId ? await store.applications.get(clientId) : null;
    const problem = clientProblem(query, application, (uri) => isOnPagesOrigin(deps.config.pagesBase, uri));
    if (problem || !application) return sendPage(ctx, 400, authorizationErrorPage(problem ?? { title: 'Unknown application', message: '' }));

    const issues = validationIssues(query);
    if (issues.length > 0) throw new ValidationError(issues);
    const hasClientSecret = (await store.client_secrets.count({ application_id: application.id })) > 0;
    const parsed = parseAuthorizationRequest(query, application, { hasClientSecret, scopeReleaseAt: deps.config.scopeReleaseAt });
    if (!parsed.ok) {
      return seeOther(ctx, callbackUrl(query.redirect_uri as string, issuer, { error: parsed.error, error_description: parsed.description, state: parsed.state }));
    }
    if (parsed.request.integration && !deps.config.configuredProviders.includes(parsed.request.integration)) {
      // A provider this server has no integration configured for.
      return sendPage(ctx, 501, integrationNotConfiguredPage({ brand: brandOf(application), provider: PROVIDER_NAMES[parsed.request.integration]! }));
    }
    if (parsed.request.team_id !== null) {
      const back = (error: string, description: string) => seeOther(ctx, callbackUrl(parsed.request.redirect_uri, issuer, { error, error_description: description, state: parsed.request.state }));
      if (!(await store.teams.get(parsed.request.team_id))) return back('invalid_request', 'team_id names no team');
      if (teamScopes(parsed.request.scopes).length === 0) return back('invalid_scope', 'a team can only be given data scopes (not email, sharing or offline_access)');
    }

    const session = await sessions.ensure(ctx);
    const now = Date.now();
    const interaction: InteractionRecord = {
      id: newInteractionId(),
      user_id: null,
      session_id: session.id,
      application_id: application.id,
      request: { ...parsed.request },
      expires_at: now + INTERACTION_TTL_MS,
      consumed_at: null,
      created_at: now,
    };
    await store.interactions.insert(interaction);
    await sometimesSweep(store.interactions, now);
    await proceed(ctx, interaction, application, session);
  });

  table.page({ method: 'get', path: '/oauth/interaction/:id', name: 'interaction' }, async function interactionScreen(ctx) {
    const found = await boundInteraction(ctx);
    if (!found) return;
    const { interaction, application, session } = found;
    await proceed(ctx, interaction, application, session);
  });

  table.page({ method: 'post', path: '/oauth/interaction/:id/decision', name: 'consentDecision' }, async function decide(ctx) {
    const found = await boundInteraction(ctx);
    if (!found) return;
    const { interaction, application, session } = found;
    const body = (ctx.request as { body?: Record<string, unknown> }).body ?? {};
    if (!session.user_id || !Sessions.csrfMatches(session, body.csrf)) {
      return sendPage(ctx, 403, authorizationErrorPage({ title: 'Request refused', message: 'This form has expired or did not come from this browser window. Return to the app and start again.' }));
    }
    if (interaction.user_id !== session.user_id) {
      return sendPage(ctx, 403, authorizationErrorPage({ title: 'Account changed', message: 'You signed in with another account after this request started. Return to the app and start again.' }));
    }
    const decision = body.decision;
    if (decision !== 'approve' && decision !== 'deny') {
      return sendPage(ctx, 400, authorizationErrorPage({ title: 'Invalid answer', message: 'Choose Allow or Cancel.' }));
    }
    // Single use: of two submissions (double click, two tabs) exactly one gets through.
    const consumed = await store.interactions.updateOne({ id: interaction.id, consumed_at: null, session_id: session.id }, { set: { consumed_at: Date.now() } });
    if (!consumed) {
      return sendPage(ctx, 409, authorizationErrorPage({ title: 'Already answered', message: 'This request was already answered. Return to the app to continue.' }));
    }
    const request = interaction.request as unknown as AuthorizationRequest;
    if (decision === 'deny') {
      return seeOther(ctx, callbackUrl(request.redirect_uri, issuer, { error: 'access_denied', error_description: 'The user declined the request', state: request.state }));
    }
    const user = await store.users.get(session.user_id);
    if (!user || (isPrivate(application) && application.user_id !== user.id)) {
      return sendPage(ctx, 403, authorizationErrorPage({ title: 'Request refused', message: `${application.name} cannot be connected to this account.` }));
    }
    await sendCode(ctx, request, application, user, session);
  });

  /** The interaction named in the path, live and belonging to this browser; otherwise an error page was sent. */
  async function boundInteraction(ctx: Context): Promise<{ interaction: InteractionRecord; application: ApplicationRecord; session: SessionRecord } | null> {
    const interaction = await liveInteraction(store, ctx.params.id);
    const session = await sessions.current(ctx);
    const application = interaction ? await store.applications.get(interaction.application_id) : null;
    if (!interaction || !application) {
      sendPage(ctx, 400, authorizationErrorPage({ title: 'This request has expired', message: 'Return to the app you came from and start again.' }));
      return null;
    }
    if (!session || interaction.session_id !== session.id) {
      sendPage(ctx, 403, authorizationErrorPage({ title: 'Started in another window', message: 'This request was started in another browser or window. Return to the app and start again from here.' }));
      return null;
    }
    return { interaction, application, session };
  }

  /** Decides the next screen for a live interaction. */
  async function proceed(ctx: Context, interaction: InteractionRecord, application: ApplicationRecord, session: SessionRecord): Promise<void> {
    const request = interaction.request as unknown as AuthorizationRequest;
    const user = session.user_id ? await store.users.get(session.user_id) : null;
    // `integration` "skips the sign-in chooser and sends the user straight to that provider" (routes/integrations.ts).
    if (!user && request.integration) return seeOther(ctx, `/integrations/${request.integration}/signin?interaction=${encodeURIComponent(interaction.id)}`);
    if (!user || user.managed_by !== null) return seeOther(ctx, withInteraction('/signin', interaction.id));
    // `integration`: connect that platform first (after signing in), then come back here for consent.
    if (request.integration && !(await store.connections.findOne({ user_id: user.id, provider: request.integration, status: 'connected' }))) {
      return seeOther(ctx, `/integrations/${request.integration}/connect?interaction=${encodeURIComponent(interaction.id)}`);
    }
    const brand = brandOf(application);
    // The person's own screen: their email is theirs to see.
    const account = { email: user.email, name: displayName(user, { revealEmail: true }) };
    const isOwner = application.user_id === user.id;

    // "A private app (missing any of the four public fields) shows others a still-private page."
    if (isPrivate(application) && !isOwner) {
      const missing = (['description', 'url', 'image', 'privacy_statement'] as const).filter((field) => !application[field]).map((field) => FIELD_LABELS[field]!);
      return sendPage(ctx, 403, privateAppPage({ brand, account, missing }));
    }
    const requested = withIdentity(request.scopes);
    // "Purposes are optional while only the owner connects. Once the app is public, a request for a
    // category without a purpose shows a not-ready page instead of the consent screen."
    const missingPurposes = consentLines(requested)
      .filter((line) => (PURPOSE_CATEGORIES as readonly string[]).includes(line.category) && !application.purposes[line.category])
      .map((line) => line.title);
    if (!isOwner && missingPurposes.length > 0) return sendPage(ctx, 403, notReadyPage({ brand, missingPurposes }));
    // The owner of a public app is told where to write them (interface §5: "in its settings").
    const settingsHref = `/account/applications/${encodeURIComponent(application.id)}`;
    const ownerNotice = isOwner && !isPrivate(application) && missingPurposes.length > 0 ? { titles: missingPurposes, settingsHref } : null;

    // The team variant: the team must still exist; its consent is always asked until it covers the request.
    const teamId = request.team_id ?? null;
    const team = teamId ? await store.teams.get(teamId) : null;
    if (teamId && !team) return sendPage(ctx, 400, authorizationErrorPage({ title: 'This team no longer exists', message: 'Return to the app you came from and start again.' }));
    const forTeam = teamScopes(requested);
    const teamCovered = !team || (await teamAuthorizationCovers(store, team.id, user.id, forTeam));

    const grant = await store.grants.findOne({ user_id: user.id, application_id: application.id });
    const granted = new Set(grant?.scopes ?? []);
    const loopback = isLoopbackRedirect(request.redirect_uri);
    // "none skips consent when the user is signed in and already granted these scopes … Consent is
    // always shown for a loopback redirect."
    if (request.prompt === 'none' && !loopback && teamCovered && isSubset(requested, grant?.scopes.filter(isScope) ?? [])) {
      const consumed = await store.interactions.updateOne({ id: interaction.id, consumed_at: null }, { set: { consumed_at: Date.now() } });
      if (consumed) return sendCode(ctx, request, application, user, session);
    }

    await store.interactions.updateOne({ id: interaction.id, consumed_at: null }, { set: { user_id: user.id } });
    const fresh = requested.filter((scope) => !granted.has(scope));
    const lines = consentLines(fresh).map((line) => ({ title: line.title, detail: line.detail, purpose: application.purposes[line.category] ?? null }));
    const alreadyGranted = consentLines(requested.filter((scope) => granted.has(scope))).map((line) => line.title);
    sendPage(ctx, 200, consentPage({
      brand, account, lines, alreadyGranted, loopback,
      redirectOrigin: redirectOrigin(request.redirect_uri),
      interactionId: interaction.id,
      csrfToken: session.csrf_token,
      team: team ? {
        name: team.name, description: team.description ?? '', url: team.url ?? '', lines: consentLines(forTeam).map((line) => line.title),
      } : null,
      missingPurposes: ownerNotice,
    }));
  }

  /** Records the consent (the grant becomes the union) and sends the browser back with a code. */
  async function sendCode(ctx: Context, request: AuthorizationRequest, application: ApplicationRecord, user: UserRecord, session: SessionRecord): Promise<void> {
    const scopes: Scope[] = withIdentity(request.scopes);
    const teamId = request.team_id ?? null;
    if (teamId) {
      if (!(await store.teams.get(teamId))) return sendPage(ctx, 400, authorizationErrorPage({ title: 'This team no longer exists', message: 'Nothing was shared. Return to the app you came from and start again.' }));
      await recordTeamConsent(store, teamId, user.id, teamScopes(scopes));
    }
    const grant = await unionGrant(store, user.id, application.id, scopes);
    const code = await issueCode(store, {
      userId: user.id,
      applicationId: application.id,
      grantId: grant.id,
      redirectUri: request.redirect_uri,
      scopes,
      codeChallenge: request.code_challenge,
      nonce: request.nonce,
      authTime: session.auth_time ?? Date.now(),
    });
    seeOther(ctx, callbackUrl(request.redirect_uri, issuer, { code, state: request.state }));
  }
}



/** What the consent screen says the browser will go back to: the origin, or the scheme of an app. */
function redirectOrigin(uri: string): string {
  const url = new URL(uri);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : `${url.protocol}//`;
}
