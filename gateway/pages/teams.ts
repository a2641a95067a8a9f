/**
 * The team pages of the account (issue 14): the signed-in user's teams with their role, a form to create
 * one, and the teams they let see their data (each with Revoke); a team's page, editable with its members
 * and an invitation form for its owner, read-only for a member; the page that answers an invitation
 * (created, and the link shown once only when no mail server is configured); and the invitation link's
 * own pages (join, sign in first, unusable). Pure renderers for routes/team-pages.ts; everything the user
 * typed is escaped by the html tag, and every form carries the session's CSRF token.
 *
 * Deliberately: a member sees the other members by name only, never their email; only the owner sees
 * addresses. Kept honest by test/gateway/team-pages.test.ts and test/browser/team-pages.test.ts.
 */
import { html, type Html } from './html.js';
import type { PageOptions } from './layout.js';
import { describeScopes, formatDate } from './account.js';
import type { TeamRole } from '../presenters/team.js';

export interface TeamView {
  id: string;
  name: string;
  description: string;
  url: string;
  image: string;
  privacyStatement: string;
}

/** What the create and edit forms show again after a refused post. */
export interface TeamFormValues {
  name: string;
  description: string;
  url: string;
  image: string;
  privacy_statement: string;
}

export interface MemberView {
  userId: string;
  name: string;
  /** Shown to the owner only. */
  email: string | null;
  role: TeamRole;
}

interface Messages {
  notice?: string | null;
  error?: string | null;
}

const EMPTY_FORM: TeamFormValues = { name: '', description: '', url: '', image: '', privacy_statement: '' };

function notices(view: Messages): Html {
  return html`${view.notice ? html`<p class="notice success" role="status">${view.notice}</p>` : null}${view.error ? html`<p class="notice error" role="alert">${view.error}</p>` : null}`;
}

function csrfField(token: string): Html {
  return html`<input type="hidden" name="csrf" value="${token}">`;
}

function roleText(role: TeamRole): string {
  return role === 'owner' ? 'Owner' : 'Member';
}

/** The team's name, image (or initial) and links. */
function teamHeader(team: TeamView): Html {
  const image = /^https:\/\//i.test(team.image) ? team.image : null;
  return html`<div class="app">${image ? html`<img src="${image}" alt="">` : html`<span class="initial" aria-hidden="true">${team.name.slice(0, 1).toUpperCase()}</span>`}<div><h1>${team.name}</h1>${team.description ? html`<p class="muted">${team.description}</p>` : null}</div></div>
${team.url || team.privacyStatement ? html`<p class="muted">${team.url ? html`<a href="${team.url}" rel="noopener noreferrer">${team.url}</a>` : null}${team.url && team.privacyStatement ? ' · ' : null}${team.privacyStatement ? html`<a href="${team.privacyStatement}" rel="noopener noreferrer" class="nowrap">Privacy statement</a>` : null}</p>` : null}`;
}

function teamFields(values: TeamFormValues): Html {
  return html`<label for="name">Name</label>
<input id="name" type="text" name="name" value="${values.name}" maxlength="100" required>
<label for="description">Description <span class="muted">(optional)</span></label>
<textarea id="description" name="description" maxlength="500" rows="2">${values.description}</textarea>
<label for="url">Website <span class="muted">(https)</span></label>
<input id="url" type="url" name="url" value="${values.url}" maxlength="2048" placeholder="https://" required>
<label for="image">Image URL <span class="muted">(https: a logo shown to the athletes you ask)</span></label>
<input id="image" type="url" name="image" value="${values.image}" maxlength="2048" placeholder="https://" required>
<label for="privacy_statement">Privacy statement URL <span class="muted">(https)</span></label>
<input id="privacy_statement" type="url" name="privacy_statement" value="${values.privacy_statement}" maxlength="2048" placeholder="https://" required>`;
}

export function teamsPage(view: Messages & {
  teams: { team: TeamView; role: TeamRole }[];
  authorized: { team: TeamView; scopes: string[]; since: number }[];
  form?: TeamFormValues | null;
  csrfToken: string;
}): PageOptions {
  return {
    title: 'Teams',
    wide: true,
    body: html`<p class="muted"><a href="/account">← Your account</a></p>
<h1>Teams</h1>
${notices(view)}
<h2>Your teams</h2>
${view.teams.length === 0
  ? html`<p class="muted">You are not in a team yet. Create one below, or open an invitation link a team's owner sent you.</p>`
  : html`<div class="list">${view.teams.map(({ team, role }) => html`<div class="item">
<div><strong>${team.name}</strong>${team.description ? html`<p class="muted">${team.description}</p>` : null}<p class="muted">${roleText(role)}</p></div>
<a href="/account/teams/${encodeURIComponent(team.id)}">${role === 'owner' ? 'Manage' : 'View'}</a>
</div>`)}</div>`}
<details class="create"${view.form ? html` open` : null}><summary>Create a team</summary>
<p class="muted">A team lets a coach or a club see the data of the athletes who allow it. You become its owner and can invite members.</p>
<form method="post" action="/account/teams">${csrfField(view.csrfToken)}
${teamFields(view.form ?? EMPTY_FORM)}
<button type="submit">Create team</button>
</form>
</details>
<h2>Teams that can see your data</h2>
${view.authorized.length === 0
  ? html`<p class="muted">No team can see your data. Teams you allow will be listed here.</p>`
  : html`<p class="muted">Revoking one stops its members' access at once; it can ask you again later.</p>
<div class="list">${view.authorized.map(({ team, scopes, since }) => html`<div class="item">
<div><strong>${team.name}</strong>
<p class="muted">${describeScopes(scopes).join(' · ')}</p>
<p class="muted">Allowed since ${formatDate(since)}</p></div>
<form method="post" action="/account/authorized-teams/${encodeURIComponent(team.id)}/revoke" class="inline">${csrfField(view.csrfToken)}<button type="submit" class="secondary" title="${team.name} loses access at once">Revoke</button></form>
</div>`)}</div>`}`,
  };
}

/** The owner's page: edit, members (with Remove), invite. */
export function ownedTeamPage(view: Messages & {
  team: TeamView;
  members: MemberView[];
  form?: TeamFormValues | null;
  csrfToken: string;
  /** Invitations are emailed (SMTP configured); otherwise the link is shown once for the owner to pass on. */
  emailsInvitations: boolean;
}): PageOptions {
  const base = `/account/teams/${encodeURIComponent(view.team.id)}`;
  const values = view.form ?? { name: view.team.name, description: view.team.description, url: view.team.url, image: view.team.image, privacy_statement: view.team.privacyStatement };
  return {
    title: view.team.name,
    wide: true,
    body: html`<p class="muted"><a href="/account/teams">← Teams</a></p>
${teamHeader(view.team)}
${notices(view)}
<p><a href="/teams/${encodeURIComponent(view.team.id)}/athletes">The athletes’ training</a>: calendars, load and seasons of those who authorized the team.</p>
<h2>Members</h2>
<div class="list">${view.members.map((member) => html`<div class="item">
<div><strong>${member.name}</strong><p class="muted">${roleText(member.role)}${member.email ? html` · ${member.email}` : null}</p></div>
${member.role === 'owner' ? null : html`<form method="post" action="${base}/members/${encodeURIComponent(member.userId)}/remove" class="inline">${csrfField(view.csrfToken)}<button type="submit" class="secondary" title="${member.name} leaves the team at once">Remove</button></form>`}
</div>`)}</div>
<h2>Invite a member</h2>
<p class="muted">${view.emailsInvitations ? 'We email a link' : 'You get a link to pass on (this server sends no email)'} that works once, for 7 days. Whoever opens it while signed in joins as a member.</p>
<form method="post" action="${base}/invitations">${csrfField(view.csrfToken)}
<label for="email">Email address</label>
<input id="email" type="email" name="email" maxlength="320" autocomplete="off" required>
<button type="submit">Send invitation</button>
</form>
<h2>Team details</h2>
<form method="post" action="${base}">${csrfField(view.csrfToken)}
${teamFields(values)}
<button type="submit">Save changes</button>
</form>`,
  };
}

/** A member's page: the team, its owner and members by name, nothing to change. */
export function memberTeamPage(view: Messages & { team: TeamView; members: MemberView[] }): PageOptions {
  return {
    title: view.team.name,
    wide: true,
    body: html`<p class="muted"><a href="/account/teams">← Teams</a></p>
${teamHeader(view.team)}
${notices(view)}
<p class="notice">You are a member of this team. Only its owner can change it or invite people.</p>
<p><a href="/teams/${encodeURIComponent(view.team.id)}/athletes">The athletes’ training</a>: calendars, load and seasons of those who authorized the team.</p>
<h2>Members</h2>
<div class="list">${view.members.map((member) => html`<div class="item"><div><strong>${member.name}</strong><p class="muted">${roleText(member.role)}</p></div></div>`)}</div>`,
  };
}

/** The answer to an invitation: sent by email, or (no mail server) the link itself, shown once. */
export function invitationCreatedPage(view: { team: TeamView; email: string; url: string | null; expiresAt: number }): PageOptions {
  const back = `/account/teams/${encodeURIComponent(view.team.id)}`;
  return {
    title: 'Invitation created',
    body: html`<h1>${view.url ? 'Invitation created' : 'Invitation sent'}</h1>
${view.url
  ? html`<p>This server sends no email, so pass this link on to <strong>${view.email}</strong> yourself. It is shown only this once, works once, and expires on ${formatDate(view.expiresAt)}.</p>
<code class="secret">${view.url}</code>`
  : html`<p>We emailed <strong>${view.email}</strong> a link to join <strong>${view.team.name}</strong>. It works once and expires on ${formatDate(view.expiresAt)}.</p>`}
<a class="button" href="${back}">Back to the team</a>`,
  };
}

/** GET of an invitation link: Join when signed in, otherwise sign in first. */
export function invitationPage(view: { team: TeamView; email: string; signedIn: { name: string; csrfToken: string; token: string } | null }): PageOptions {
  return {
    title: `Join ${view.team.name}`,
    body: html`<p class="lead">You are invited to join a team</p>
${teamHeader(view.team)}
<p class="muted">This invitation was sent to ${view.email}. Members of a team see the data of the athletes who allow the team; joining shares nothing of yours.</p>
${view.signedIn
  ? html`<form method="post" action="/teams/invitations/${view.signedIn.token}">${csrfField(view.signedIn.csrfToken)}
<p>You join as <strong>${view.signedIn.name}</strong>.</p>
<button type="submit">Join ${view.team.name}</button>
</form>`
  : html`<p class="notice">Sign in (or create an account) first, then open this link again.</p>
<a class="button" href="/signin">Sign in</a>`}`,
  };
}

/**
 * A team's public page (routes/team-profile.ts): what the consent screen shows of it — name, description,
 * image and links — and never its members. The address a team stored without a website answers with.
 */
export function teamProfilePage(team: TeamView): PageOptions {
  return {
    title: team.name,
    body: html`${teamHeader(team)}
<p class="muted">A team on this Threshold service: its members see the training data of the athletes who allow it, and nothing else.</p>`,
  };
}

/** A used, expired or unknown invitation link. */
export function invitationUnusablePage(): PageOptions {
  return {
    title: 'This invitation cannot be used',
    body: html`<h1>This invitation cannot be used</h1>
<p class="notice error" role="alert">It was already used, it has expired (invitations last 7 days), or the link is incomplete.</p>
<p class="muted">Ask the team's owner to invite you again.</p>
<a class="button secondary" href="/account/teams">Your teams</a>`,
  };
}
