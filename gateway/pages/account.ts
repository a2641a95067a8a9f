/**
 * The signed-in account pages: who is signed in, the apps connected to the account (with what they
 * may do, and a Revoke button), the applications the account owns, and an application's settings
 * with its client secrets. A secret is shown once, on the page that answers its creation; afterwards
 * only its label, hint and date. Deleting a secret asks first without any script (a <details>
 * disclosure holds the real button); revoking an app is one button, since it can simply be connected
 * again. Deleting the account sits last, behind a disclosure, and asks for the email typed out. Pure renderers for routes/account.ts; kept honest by test/gateway/account-pages.test.ts.
 */
import { html, type Html } from './html.js';
import { consentLines, isScope } from '../auth/scopes.js';
import type { PageOptions } from './layout.js';
import { accountChip, type AccountView } from './oauth.js';
import { FIELD_LIMITS } from './forms.js';

export interface ConnectedApp {
  applicationId: string;
  name: string;
  /** The granted scopes, as stored on the grant. */
  scopes: string[];
  /** When the app was first connected, epoch ms. */
  since: number;
}

export interface OwnedApp {
  id: string;
  name: string;
  isPrivate: boolean;
}

export interface SecretView {
  id: string;
  label: string | null;
  /** The first characters of the secret ("tsk_ab12"). */
  hint: string;
  createdAt: number;
}

export interface ApplicationView {
  id: string;
  name: string;
  redirectUris: string[];
  isPrivate: boolean;
}

/** Scope categories in plain words (interface §5 "Scopes"); read and write fold into one line. */
/** What a grant lets an app do, in the consent screen's words (auth/scopes.ts), plus any scope it does not know. */
export function describeScopes(scopes: readonly string[]): string[] {
  const known = scopes.filter(isScope);
  const access = (category: string): string => {
    const read = scopes.includes(`${category}:read`);
    const write = scopes.includes(`${category}:write`);
    return read && write ? ' (read and change)' : read ? ' (read)' : write ? ' (change)' : '';
  };
  return [...consentLines(known).map((line) => `${line.title}${access(line.category)}`), ...scopes.filter((scope) => !isScope(scope))];
}

const DATE = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });

export function formatDate(epochMs: number): string {
  return DATE.format(new Date(epochMs));
}

function notices(notice: string | null | undefined, error?: string | null): Html {
  return html`${notice ? html`<p class="notice success" role="status">${notice}</p>` : null}${error ? html`<p class="notice error" role="alert">${error}</p>` : null}`;
}

function csrfField(token: string): Html {
  return html`<input type="hidden" name="csrf" value="${token}">`;
}

export function accountPage(view: {
  account: AccountView;
  connected: ConnectedApp[];
  owned: OwnedApp[];
  /** What must be typed to delete the account (its email). */
  deletionConfirmation: string;
  csrfToken: string;
  notice?: string | null;
  error?: string | null;
}): PageOptions {
  return {
    title: 'Your account',
    wide: true,
    body: html`<h1>Your account</h1>
${accountChip(view.account)}
${notices(view.notice, view.error)}
<p><a href="/training">Your training</a> <span class="muted">· activities, season best efforts and uploads</span></p>
<h2>Connected apps</h2>
${view.connected.length === 0
  ? html`<p class="muted">No app can use your data. Apps you allow will be listed here.</p>`
  : html`<p class="muted">These apps may use your Threshold data. Revoking one stops it at once; it can ask you again later.</p>
<div class="list">${view.connected.map((app) => html`<div class="item">
<div><strong>${app.name}</strong>
<p class="muted">${describeScopes(app.scopes).join(' · ')}</p>
<p class="muted">Connected ${formatDate(app.since)} · ${app.scopes.map((scope) => html`<code class="scope">${scope}</code> `)}</p></div>
<form method="post" action="/account/apps/${encodeURIComponent(app.applicationId)}/revoke" class="inline">${csrfField(view.csrfToken)}<button type="submit" class="secondary" title="${app.name} loses access at once">Revoke</button></form>
</div>`)}</div>`}
<h2>Your applications</h2>
${view.owned.length === 0
  ? html`<p class="muted">You have not registered an application.</p>`
  : html`<div class="list">${view.owned.map((app) => html`<div class="item">
<div><strong>${app.name}</strong><p class="muted">${app.isPrivate ? 'Private: only your account can connect' : 'Public'}</p></div>
<a href="/account/applications/${encodeURIComponent(app.id)}">Settings</a>
</div>`)}</div>
<p class="muted">Webhook deliveries of your applications: failing endpoints, the attempt log, redelivery. <a href="/account/webhooks">Webhooks</a></p>`}
<h2>Teams</h2>
<p class="muted">The teams you own or belong to, and the teams you let see your data. <a href="/account/teams">Manage teams</a></p>
<form method="post" action="/signout" class="actions">${csrfField(view.csrfToken)}<button type="submit" class="secondary">Sign out</button></form>
<h2>Delete your account</h2>
<details class="confirm"${view.error ? html` open` : null}><summary>Delete account</summary>
<p>This removes your account and everything in it at once and for good: activities and their files, traces, tests, dailies, markers and max efforts, your applications, and every app's access. It cannot be undone.</p>
<form method="post" action="/account/delete">${csrfField(view.csrfToken)}
<label for="confirm">Type <strong>${view.deletionConfirmation}</strong> to confirm</label>
<input id="confirm" type="text" name="confirm" maxlength="${FIELD_LIMITS.email}" autocomplete="off" required>
<button type="submit" class="danger">Delete my account for good</button>
</form>
</details>`,
  };
}

export function applicationPage(view: {
  application: ApplicationView;
  secrets: SecretView[];
  /** The settings form (pages/application-settings.ts) and its CSS. */
  settings?: { form: Html; style: string };
  csrfToken: string;
  notice?: string | null;
  error?: string | null;
}): PageOptions {
  const { application } = view;
  const base = `/account/applications/${encodeURIComponent(application.id)}`;
  return {
    title: `${application.name} settings`,
    wide: true,
    ...(view.settings && { extraStyle: view.settings.style }),
    body: html`<p class="muted"><a href="/account">Your account</a> / Applications</p>
<h1>${application.name}</h1>
${notices(view.notice, view.error)}
<table>
<tr><th scope="row">Client id</th><td><code>${application.id}</code></td></tr>
<tr><th scope="row">Redirect URIs</th><td>${application.redirectUris.length === 0 ? html`<span class="muted">None</span>` : application.redirectUris.map((uri) => html`<code>${uri}</code><br>`)}</td></tr>
<tr><th scope="row">Visibility</th><td>${application.isPrivate ? 'Private: only your account can connect until it has a description, website, image and privacy statement' : 'Public'}</td></tr>
</table>
${view.settings?.form ?? null}
<h2>Client secrets</h2>
<p class="muted">A server-side app proves it is ${application.name} with a client secret. Apps that cannot keep a secret (mobile, browser, desktop) use PKCE instead and need none.</p>
${view.secrets.length === 0
  ? html`<p class="muted">No client secrets yet.</p>`
  : html`<div class="list">${view.secrets.map((secret) => html`<div class="item">
<div><strong>${secret.label ?? 'Unlabelled secret'}</strong>
<p class="muted"><code>${secret.hint}…</code> · created ${formatDate(secret.createdAt)}</p></div>
<details class="confirm"><summary>Delete</summary>
<p>Deleting this secret ends every token issued under it: apps using it are signed out and stop working until they use another secret.</p>
<form method="post" action="${base}/secrets/${encodeURIComponent(secret.id)}/delete">${csrfField(view.csrfToken)}<button type="submit" class="danger">Delete secret</button></form>
</details>
</div>`)}</div>`}
<form method="post" action="${base}/secrets">
${csrfField(view.csrfToken)}
<label for="label">New secret label <span class="muted">(optional, e.g. "production")</span></label>
<input id="label" type="text" name="label" maxlength="100" autocomplete="off">
<button type="submit">Create a client secret</button>
</form>`,
  };
}

/** The answer to creating a secret: the only time it is ever shown. */
export function secretCreatedPage(view: { application: { id: string; name: string }; label: string | null; secret: string }): PageOptions {
  return {
    title: 'Client secret created',
    wide: true,
    body: html`<h1>Client secret created</h1>
<p>${view.label ? html`<strong>${view.label}</strong> for ` : 'For '}${view.application.name}.</p>
<p class="notice warn" role="alert"><strong>Copy it now: it will not be shown again.</strong> Threshold keeps only a fingerprint of it. If you lose it, create another and delete this one.</p>
<h2>Client secret</h2>
<code class="secret">${view.secret}</code>
<p class="muted">Client id: <code>${view.application.id}</code></p>
<a class="button" href="/account/applications/${encodeURIComponent(view.application.id)}">Done</a>`,
  };
}
