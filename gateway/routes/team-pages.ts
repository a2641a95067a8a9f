/**
 * The team pages (issue 14; interface §4 "Teams"), over services/teams.ts and services/team-access.ts:
 *
 *   GET  /account/teams                                   your teams (with role), create, teams you authorized
 *   POST /account/teams                                   createTeam → 303 /account/teams/:id
 *   POST /account/authorized-teams/:id/revoke             revokeTeamAuthorization → 303 /account/teams
 *   GET  /account/teams/:id                               owner: edit, members, invite; member: read-only
 *   POST /account/teams/:id                               updateTeam (owner) → 303
 *   POST /account/teams/:id/members/:user_id/remove       removeMember (owner) → 303
 *   POST /account/teams/:id/invitations                   inviteToTeam + email (owner) → the "sent" page
 *   GET  /teams/invitations/:token                        the team and Join (or "sign in first"); 410 when unusable
 *   POST /teams/invitations/:token                        acceptInvitation → 303 /account/teams/:id; 410 when unusable
 *
 * Like the account pages: no session → 303 /signin; a team the user is not in, or a change asked by a
 * member, is the 404 page (the team's existence is not confirmed); every POST carries the session's CSRF
 * token (403 otherwise); notices travel as fixed codes. The invitation link is emailed through the mailer;
 * only when no SMTP server is configured (the mailer then writes it to the log) is it also shown once to
 * the owner, who has to pass it on. Kept honest by test/gateway/team-pages.test.ts and
 * test/browser/team-pages.test.ts.
 */
import type { Context } from 'koa';
import type { SessionRecord, TeamRecord, UserRecord } from '../../storage/store.js';
import type { RouteTable } from '../route-table.js';
import type { GatewayDeps } from '../deps.js';
import { ValidationError } from '../errors.js';
import { displayName } from '../presenters/user.js';
import {
  acceptInvitation, createTeam, findInvitation, INVITATION_TTL_MS, invitationPath, inviteToTeam, ownedTeam, removeMember, teamMembers, updateTeam,
  type TeamFields,
} from '../services/teams.js';
import { authorizedTeams, revokeTeamAuthorization, teamOfMember, teamsOf } from '../services/team-access.js';
import { sendPage } from '../pages/layout.js';
import { csrfSession, formBody, seeOther, stringField, type FormBody } from '../pages/forms.js';
import { forbiddenPage, mailFailedPage, notFoundPage } from '../pages/messages.js';
import { teamInvitationMail } from '../pages/emails.js';
import {
  invitationCreatedPage, invitationPage, invitationUnusablePage, memberTeamPage, ownedTeamPage, teamsPage,
  type MemberView, type TeamFormValues, type TeamView,
} from '../pages/teams.js';

const NOTICES = new Map([
  ['created', 'Team created. Invite its members below.'],
  ['saved', 'Changes saved.'],
  ['removed', 'Member removed. Their access through the team has ended.'],
  ['member_missing', 'That person was no longer a member.'],
  ['joined', 'You joined the team.'],
  ['revoked', 'Access revoked. The team can no longer see your data.'],
  ['missing', 'That team no longer had access.'],
]);

const TEAM_FIELDS = ['name', 'description', 'url', 'image', 'privacy_statement'] as const;

export function teamPageRoutes(table: RouteTable, deps: GatewayDeps): void {
  const { store, sessions, mailer } = deps;

  table.page({ method: 'get', path: '/account/teams', name: 'accountTeams' }, async function showTeams(ctx) {
    const found = await sessions.signedInUser(ctx);
    if (!found) return seeOther(ctx, '/signin');
    await sendTeamsPage(ctx, 200, found.user, found.session, { notice: noticeOf(ctx) });
  });

  table.page({ method: 'post', path: '/account/teams', name: 'createTeamPage' }, async function createTeamFromPage(ctx) {
    const acting = await actingUser(ctx);
    if (!acting) return;
    const form = formValues(acting.body);
    try {
      const team = await createTeam(store, acting.user.id, form);
      seeOther(ctx, `/account/teams/${encodeURIComponent(team.id)}?notice=created`);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      await sendTeamsPage(ctx, 422, acting.user, acting.session, { error: problemOf(error), form });
    }
  });

  table.page({ method: 'post', path: '/account/authorized-teams/:id/revoke', name: 'revokeTeamPage' }, async function revokeFromPage(ctx) {
    const acting = await actingUser(ctx);
    if (!acting) return;
    const revoked = await revokeTeamAuthorization(store, String(ctx.params.id), acting.user.id);
    seeOther(ctx, `/account/teams?notice=${revoked ? 'revoked' : 'missing'}`);
  });

  table.page({ method: 'get', path: '/account/teams/:id', name: 'accountTeam' }, async function showTeam(ctx) {
    const found = await sessions.signedInUser(ctx);
    if (!found) return seeOther(ctx, '/signin');
    const membership = await teamOfMember(store, teamIdOf(ctx), found.user.id);
    if (!membership) return sendPage(ctx, 404, notFoundPage());
    if (membership.role === 'owner') return sendTeamPage(ctx, 200, membership.team, found.session, { notice: noticeOf(ctx) });
    const members = (await teamMembers(store, membership.team.id)).map(({ user, role }) => memberView(user, role, false));
    sendPage(ctx, 200, memberTeamPage({ team: teamView(membership.team), members, notice: noticeOf(ctx) }));
  });

  table.page({ method: 'post', path: '/account/teams/:id', name: 'updateTeamPage' }, async function updateTeamFromPage(ctx) {
    const acting = await actingOwner(ctx);
    if (!acting) return;
    const form = formValues(acting.body);
    try {
      await updateTeam(store, acting.team, form);
      seeOther(ctx, `/account/teams/${encodeURIComponent(acting.team.id)}?notice=saved`);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      await sendTeamPage(ctx, 422, acting.team, acting.session, { error: problemOf(error), form });
    }
  });

  table.page({ method: 'post', path: '/account/teams/:id/members/:user_id/remove', name: 'removeTeamMemberPage' }, async function removeFromPage(ctx) {
    const acting = await actingOwner(ctx);
    if (!acting) return;
    const userId = String(ctx.params.user_id);
    if (userId === acting.team.user_id) return sendTeamPage(ctx, 422, acting.team, acting.session, { error: 'The owner cannot be removed from their team.' });
    const removed = await removeMember(store, acting.team, userId);
    seeOther(ctx, `/account/teams/${encodeURIComponent(acting.team.id)}?notice=${removed ? 'removed' : 'member_missing'}`);
  });

  table.page({ method: 'post', path: '/account/teams/:id/invitations', name: 'inviteTeamMemberPage' }, async function inviteFromPage(ctx) {
    const acting = await actingOwner(ctx);
    if (!acting) return;
    let invited: Awaited<ReturnType<typeof inviteToTeam>>;
    try {
      invited = await inviteToTeam(store, acting.team, stringField(acting.body, 'email') ?? '');
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      return sendTeamPage(ctx, 422, acting.team, acting.session, { error: 'Enter a valid email address to invite.' });
    }
    const url = `${deps.config.baseUrl}${invitationPath(invited.token)}`;
    try {
      await mailer.send(teamInvitationMail({
        to: invited.record.email, teamName: acting.team.name, invitedBy: acting.user.email ?? displayName(acting.user, { revealEmail: true }),
        url, days: INVITATION_TTL_MS / 86_400_000,
      }));
    } catch (error) {
      ctx.state.logger?.error({ err: error }, 'team invitation: the email could not be sent');
      await store.team_invitations.deleteMany({ id: invited.record.id });
      return sendPage(ctx, 503, mailFailedPage(`/account/teams/${encodeURIComponent(acting.team.id)}`));
    }
    sendPage(ctx, 201, invitationCreatedPage({
      team: teamView(acting.team), email: invited.record.email, url: deps.config.smtpUrl ? null : url, expiresAt: invited.record.expires_at,
    }));
  });

  table.page({ method: 'get', path: '/teams/invitations/:token', name: 'teamInvitation' }, async function showInvitation(ctx) {
    const token = String(ctx.params.token);
    const found = await findInvitation(store, token);
    if (!found) return sendPage(ctx, 410, invitationUnusablePage());
    const signedIn = await sessions.signedInUser(ctx);
    sendPage(ctx, 200, invitationPage({
      team: teamView(found.team),
      email: found.invitation.email,
      signedIn: signedIn ? { name: displayName(signedIn.user, { revealEmail: true }), csrfToken: signedIn.session.csrf_token, token } : null,
    }));
  });

  table.page({ method: 'post', path: '/teams/invitations/:token', name: 'acceptTeamInvitation' }, async function joinTeam(ctx) {
    const acting = await actingUser(ctx);
    if (!acting) return;
    const team = await acceptInvitation(store, String(ctx.params.token), acting.user);
    if (!team) return sendPage(ctx, 410, invitationUnusablePage());
    seeOther(ctx, `/account/teams/${encodeURIComponent(team.id)}?notice=joined`);
  });

  async function sendTeamsPage(
    ctx: Context, status: number, user: UserRecord, session: SessionRecord, messages: { notice?: string | null; error?: string | null; form?: TeamFormValues },
  ): Promise<void> {
    const [teams, authorized] = await Promise.all([teamsOf(store, user.id), authorizedTeams(store, user.id)]);
    sendPage(ctx, status, teamsPage({
      teams: teams.map(({ team, role }) => ({ team: teamView(team), role })),
      authorized: authorized.map(({ team, scopes, since }) => ({ team: teamView(team), scopes, since })),
      csrfToken: session.csrf_token,
      ...messages,
    }));
  }

  async function sendTeamPage(
    ctx: Context, status: number, team: TeamRecord, session: SessionRecord, messages: { notice?: string | null; error?: string | null; form?: TeamFormValues },
  ): Promise<void> {
    const members = (await teamMembers(store, team.id)).map(({ user, role }) => memberView(user, role, true));
    sendPage(ctx, status, ownedTeamPage({ team: teamView(team), members, csrfToken: session.csrf_token, emailsInvitations: deps.config.smtpUrl !== null, ...messages }));
  }

  /** For a POST: the CSRF-checked, signed-in user; otherwise the 403 page or 303 /signin was sent. */
  async function actingUser(ctx: Context): Promise<{ user: UserRecord; session: SessionRecord; body: FormBody } | null> {
    const body = formBody(ctx);
    if (!(await csrfSession(ctx, sessions, body))) {
      sendPage(ctx, 403, forbiddenPage());
      return null;
    }
    const found = await sessions.signedInUser(ctx);
    if (!found) {
      seeOther(ctx, '/signin');
      return null;
    }
    return { ...found, body };
  }

  /** For a POST on a team: the acting user when they own it; otherwise the 404 page (or 403, 303) was sent. */
  async function actingOwner(ctx: Context): Promise<{ user: UserRecord; session: SessionRecord; body: FormBody; team: TeamRecord } | null> {
    const acting = await actingUser(ctx);
    if (!acting) return null;
    const team = await ownedTeam(store, teamIdOf(ctx), acting.user.id);
    if (team) return { ...acting, team };
    sendPage(ctx, 404, notFoundPage());
    return null;
  }
}

function teamIdOf(ctx: Context): string {
  const id = String(ctx.params.id ?? '');
  return id.length <= 64 ? id : '';
}

function teamView(team: TeamRecord): TeamView {
  return {
    id: team.id, name: team.name, description: team.description ?? '', url: team.url ?? '', image: team.image ?? '', privacyStatement: team.privacy_statement ?? '',
  };
}

function memberView(user: UserRecord, role: MemberView['role'], revealEmail: boolean): MemberView {
  return { userId: user.id, name: displayName(user, { revealEmail }), email: revealEmail ? user.email : null, role };
}

/** The posted team fields, as typed (each bounded: the service then validates them). */
function formValues(body: FormBody): TeamFormValues & TeamFields {
  const values = Object.fromEntries(TEAM_FIELDS.map((field) => [field, (stringField(body, field) ?? '').slice(0, 4096)]));
  return values as unknown as TeamFormValues & TeamFields;
}

function problemOf(error: ValidationError): string {
  const issue = error.issues[0];
  const field = issue ? String(issue.loc.at(-1) ?? '') : '';
  const label: Record<string, string> = { name: 'Name', description: 'Description', url: 'Website', image: 'Image URL', privacy_statement: 'Privacy statement URL' };
  return `${label[field] ?? 'A value'}: ${issue?.msg ?? 'is not valid'}.`;
}

function noticeOf(ctx: Context): string | null {
  const code = ctx.query.notice;
  return typeof code === 'string' ? NOTICES.get(code) ?? null : null;
}
