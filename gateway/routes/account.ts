/**
 * The signed-in account pages (interface §3 "Consent grant": "only the user revoking the app as a
 * whole removes the grant"; gaps.md: secrets "each with a label, shown once; deleting one ends every
 * token issued under it"):
 *
 *   GET  /account                                              who, connected apps, owned apps
 *   POST /account/apps/:application_id/revoke                   revokeGrant → 303 /account
 *   GET  /account/applications/:id                              client id, redirect URIs, secrets
 *   POST /account/applications/:id/settings                     updateApplicationSettings → 303, or 422 with inline errors
 *   POST /account/applications/:id/secrets                      addClientSecret → the secret, once
 *   POST /account/applications/:id/secrets/:secret_id/delete    deleteClientSecret → 303
 *   POST /account/delete                                        Store.deleteUser → "account deleted" page
 *
 * Pages answer 303 /signin without a signed-in session; another account's application is a 404 (its
 * existence is not confirmed). Every POST carries the session's CSRF token. Notices travel as fixed
 * codes in the query, never as text. Deleting the account asks for the account's email typed out (or
 * DELETE for an account without one), removes every record the user owns at once (Store.deleteUser)
 * and signs the browser out. Kept honest by test/gateway/account-pages.test.ts.
 */
import { displayName } from '../presenters/user.js';
import type { Context } from 'koa';
import type { ApplicationRecord, ClientSecretRecord, SessionRecord, UserRecord } from '../../storage/store.js';
import type { RouteTable } from '../route-table.js';
import type { GatewayDeps } from '../deps.js';
import { addClientSecret } from '../services/accounts.js';
import { deleteClientSecret, revokeGrant } from '../services/grants.js';
import { isPrivate } from '../presenters/application.js';
import { sendPage } from '../pages/layout.js';
import { csrfSession, FIELD_LIMITS, formBody, seeOther, stringField } from '../pages/forms.js';
import { forbiddenPage, messagePage, notFoundPage } from '../pages/messages.js';
import { accountPage, applicationPage, secretCreatedPage, type SecretView } from '../pages/account.js';
import type { AccountView } from '../pages/oauth.js';
import { settingsForm, SETTINGS_STYLE, type SettingsValues } from '../pages/application-settings.js';
import { updateApplicationSettings } from '../services/applications.js';
import { ValidationError } from '../errors.js';
import { pageUrl } from '../hosted-pages/page-urls.js';

/** More would be a mistake; each secret is a way in. */
const MAX_SECRETS = 20;

const NOTICES = new Map([
  ['revoked', 'Access revoked. The app can no longer use your data.'],
  ['secret_deleted', 'Client secret deleted. Every token issued under it has stopped working.'],
  ['secret_missing', 'That client secret no longer exists.'],
  ['settings_saved', 'Settings saved.'],
]);

export function accountRoutes(table: RouteTable, deps: GatewayDeps): void {
  const { store, sessions } = deps;

  table.page({ method: 'get', path: '/account', name: 'account' }, async function showAccount(ctx) {
    const found = await deps.sessions.signedInUser(ctx);
    if (!found) return seeOther(ctx, '/signin');
    await sendAccountPage(ctx, 200, found.user, found.session, { notice: noticeOf(ctx) });
  });

  table.page({ method: 'post', path: '/account/delete', name: 'deleteAccount' }, async function deleteAccount(ctx) {
    const acting = await actingUser(ctx);
    if (!acting) return;
    const expected = deletionConfirmation(acting.user);
    const typed = (stringField(acting.body, 'confirm') ?? '').trim();
    if (typed.toLowerCase() !== expected.toLowerCase()) {
      return sendAccountPage(ctx, 422, acting.user, acting.session, { error: `Nothing was deleted: type ${expected} to confirm.` });
    }
    await store.deleteUser(acting.user.id);
    await sessions.signOut(ctx);
    sendPage(ctx, 200, messagePage({
      title: 'Your account is deleted',
      message: 'Your account and everything in it are gone for good, and every app you had connected has lost access.',
      next: { href: '/signup', label: 'Create an account' },
    }));
  });

  table.page({ method: 'post', path: '/account/apps/:application_id/revoke', name: 'revokeApp' }, async function revokeApp(ctx) {
    const acting = await actingUser(ctx);
    if (!acting) return;
    await revokeGrant(store, acting.user.id, String(ctx.params.application_id));
    seeOther(ctx, '/account?notice=revoked');
  });

  table.page({ method: 'get', path: '/account/applications/:id', name: 'applicationSettings' }, async function showApplication(ctx) {
    const found = await deps.sessions.signedInUser(ctx);
    if (!found) return seeOther(ctx, '/signin');
    const application = await ownedApplication(ctx, found.user);
    if (!application) return;
    await sendApplicationPage(ctx, 200, application, found.session, { notice: noticeOf(ctx) });
  });

  table.page({ method: 'post', path: '/account/applications/:id/settings', name: 'saveApplicationSettings' }, async function saveSettings(ctx) {
    const acting = await actingUser(ctx);
    if (!acting) return;
    const application = await ownedApplication(ctx, acting.user);
    if (!application) return;
    const field = (name: string) => (stringField(acting.body, name) ?? '').slice(0, 20_000);
    const lines = (name: string) => field(name).split(/\r?\n/).map((line) => line.trim()).filter(Boolean);
    const posted = acting.body.capabilities;
    const capabilities = (Array.isArray(posted) ? posted : [posted]).filter((value): value is string => typeof value === 'string').slice(0, 20);
    const values: SettingsValues = {
      name: field('name'), description: field('description'), url: field('url'), image: field('image'), privacy_statement: field('privacy_statement'),
      redirect_uris: field('redirect_uris'), webhook_endpoints: field('webhook_endpoints'), capabilities,
    };
    try {
      await updateApplicationSettings(store, application, {
        ...values, redirect_uris: lines('redirect_uris'), webhook_endpoints: lines('webhook_endpoints'),
        webhook_secret: field('webhook_secret'), clear_webhook_secret: field('clear_webhook_secret') === '1',
      }, { pagesBase: deps.config.pagesBase, webhookAllowedHosts: deps.config.webhookAllowedHosts });
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      const errors: Record<string, string[]> = {};
      for (const issue of error.issues) (errors[String(issue.loc[1])] ??= []).push(issue.msg);
      return sendApplicationPage(ctx, 422, application, acting.session, { error: 'Nothing was saved: fix the fields marked below.' }, { values, errors });
    }
    seeOther(ctx, `/account/applications/${encodeURIComponent(application.id)}?notice=settings_saved`);
  });

  table.page({ method: 'post', path: '/account/applications/:id/secrets', name: 'createClientSecret' }, async function createSecret(ctx) {
    const acting = await actingUser(ctx);
    if (!acting) return;
    const application = await ownedApplication(ctx, acting.user);
    if (!application) return;
    const label = (stringField(acting.body, 'label') ?? '').trim();
    if (label.length > FIELD_LIMITS.label) {
      return sendApplicationPage(ctx, 422, application, acting.session, { error: `A label can have at most ${FIELD_LIMITS.label} characters.` });
    }
    if ((await store.client_secrets.count({ application_id: application.id })) >= MAX_SECRETS) {
      return sendApplicationPage(ctx, 409, application, acting.session, { error: `An application can have at most ${MAX_SECRETS} client secrets. Delete one first.` });
    }
    const { secret } = await addClientSecret(store, application, label || null);
    sendPage(ctx, 201, secretCreatedPage({ application: { id: application.id, name: application.name }, label: label || null, secret }));
  });

  table.page({ method: 'post', path: '/account/applications/:id/secrets/:secret_id/delete', name: 'deleteClientSecret' }, async function deleteSecret(ctx) {
    const acting = await actingUser(ctx);
    if (!acting) return;
    const application = await ownedApplication(ctx, acting.user);
    if (!application) return;
    const deleted = await deleteClientSecret(store, application.id, String(ctx.params.secret_id));
    seeOther(ctx, `/account/applications/${encodeURIComponent(application.id)}?notice=${deleted ? 'secret_deleted' : 'secret_missing'}`);
  });

  async function sendAccountPage(
    ctx: Context, status: number, user: UserRecord, session: SessionRecord, messages: { notice?: string | null; error?: string | null },
  ): Promise<void> {
    const [grants, owned] = await Promise.all([
      store.grants.find({ user_id: user.id }, { sort: { created_at: 1 } }),
      store.applications.find({ user_id: user.id }, { sort: { created_at: 1 } }),
    ]);
    const applications = await Promise.all(grants.map((grant) => store.applications.get(grant.application_id)));
    const connected = grants.flatMap((grant, index) => {
      const application = applications[index];
      return application ? [{ applicationId: application.id, name: application.name, scopes: grant.scopes, since: grant.created_at }] : [];
    });
    sendPage(ctx, status, accountPage({
      account: accountView(user),
      connected,
      owned: owned.map((application) => ({ id: application.id, name: application.name, isPrivate: isPrivate(application) })),
      deletionConfirmation: deletionConfirmation(user),
      csrfToken: session.csrf_token,
      ...messages,
    }));
  }

  /** For a POST: the CSRF-checked, signed-in user; otherwise the 403 page or 303 /signin was sent. */
  async function actingUser(ctx: Context): Promise<{ user: UserRecord; session: SessionRecord; body: Record<string, unknown> } | null> {
    const body = formBody(ctx);
    if (!(await csrfSession(ctx, sessions, body))) {
      sendPage(ctx, 403, forbiddenPage());
      return null;
    }
    const found = await deps.sessions.signedInUser(ctx);
    if (!found) {
      seeOther(ctx, '/signin');
      return null;
    }
    return { ...found, body };
  }

  /** The application in the path when this user owns it; otherwise the 404 page was sent. */
  async function ownedApplication(ctx: Context, user: UserRecord): Promise<ApplicationRecord | null> {
    const id = String(ctx.params.id ?? '');
    const application = id.length <= 64 ? await store.applications.get(id) : null;
    if (application && application.user_id === user.id) return application;
    sendPage(ctx, 404, notFoundPage());
    return null;
  }

  async function sendApplicationPage(
    ctx: Context, status: number, application: ApplicationRecord, session: SessionRecord, messages: { notice?: string | null; error?: string | null },
    form?: { values: SettingsValues; errors: Record<string, string[]> },
  ): Promise<void> {
    const secrets = await store.client_secrets.find({ application_id: application.id }, { sort: { created_at: 1 } });
    const values: SettingsValues = form?.values ?? {
      name: application.name, description: application.description ?? '', url: application.url ?? '', image: application.image ?? '',
      privacy_statement: application.privacy_statement ?? '', redirect_uris: application.redirect_uris.join('\n'),
      webhook_endpoints: application.webhook_endpoints.join('\n'), capabilities: application.capabilities,
    };
    sendPage(ctx, status, applicationPage({
      application: { id: application.id, name: application.name, redirectUris: application.redirect_uris, isPrivate: isPrivate(application) },
      secrets: secrets.map(secretView),
      settings: {
        form: settingsForm({
          action: `/account/applications/${encodeURIComponent(application.id)}/settings`, csrfToken: session.csrf_token, values,
          webhookSecretSet: application.webhook_secret !== null, errors: form?.errors ?? {},
          pageUrl: application.page_slug ? pageUrl(deps.config.pagesBase, application.page_slug) : null,
        }),
        style: SETTINGS_STYLE,
      },
      csrfToken: session.csrf_token,
      ...messages,
    }));
  }
}

function secretView(secret: ClientSecretRecord): SecretView {
  return { id: secret.id, label: secret.label, hint: secret.hint, createdAt: secret.created_at };
}

function accountView(user: UserRecord): AccountView {
  return { email: user.email, name: displayName(user, { revealEmail: true }) };
}

/** What the person types to delete their account: their email, or DELETE when the account has none. */
function deletionConfirmation(user: UserRecord): string {
  return user.email ?? 'DELETE';
}

function noticeOf(ctx: Context): string | null {
  const code = ctx.query.notice;
  return typeof code === 'string' ? NOTICES.get(code) ?? null : null;
}
