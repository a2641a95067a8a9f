/**
 * The signed-in account pages (interface §3 "Consent grant": "only the user revoking the app as a
 * whole removes the grant"; gaps.md: secrets "each with a label, shown once; deleting one ends every
 * token issued under it"):
 *
 *   GET  /account                                              who, connected apps, owned apps
 *   POST /account/apps/:application_id/revoke                   revokeGrant → 303 /account
 *   GET  /account/applications/:id                              client id, redirect URIs, secrets
 *   POST /account/applications/:id/settings                     updateApplicationSettings → 303, or 422 with inline errors
 *   POST /account/applications/:id/go-live                      goLiveAsClientside (the one-click page path) → 303, or 422
 *   POST /account/applications/:id/secrets                      addClientSecret → the secret, once
 *   POST /account/applications/:id/secrets/:secret_id/delete    deleteClientSecret → 303
 *   POST /account/delete                                        beginUserDeletion → "account deleted" page
 *
 * Pages answer 303 /signin without a signed-in session; another account's application is a 404 (its
 * existence is not confirmed). Every POST carries the session's CSRF token. Notices travel as fixed
 * codes in the query, never as text. Deleting the account asks for the account's email typed out (or
 * DELETE for an account without one), makes the account gone at once and queues the removal of every record
 * it owns (storage/user-deletion.ts), and signs the browser out. Kept honest by test/gateway/account-pages.test.ts.
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
import { csrfSession, FIELD_LIMITS, formBody, seeOther, signInFirst, stringField } from '../pages/forms.js';
import { forbiddenPage, messagePage, notFoundPage } from '../pages/messages.js';
import { accountPage, applicationPage, secretCreatedPage, type SecretView } from '../pages/account.js';
import type { AccountView } from '../pages/oauth.js';
import { goLiveForm, purposeField, settingsForm, SETTINGS_STYLE, type GoLiveFormView, type SettingsValues } from '../pages/application-settings.js';
import { updateApplicationSettings } from '../services/applications.js';
import { goLiveAsClientside } from '../services/clientside-apps.js';
import { CLIENTSIDE_PRIVACY_PATH, clientsidePrivacyUrl } from '../pages/client-side-privacy.js';
import { PURPOSE_CATEGORIES } from '../auth/scopes.js';
import { html } from '../pages/html.js';
import { ValidationError } from '../errors.js';
import { pageUrl } from '../hosted-pages/page-urls.js';
import { beginUserDeletion } from '../../storage/user-deletion.js';

/** More would be a mistake; each secret is a way in. */
const MAX_SECRETS = 20;

const NOTICES = new Map([
  ['revoked', 'Access revoked. The app can no longer use your data.'],
  ['secret_deleted', 'Client secret deleted. Every token issued under it has stopped working.'],
  ['secret_missing', 'That client secret no longer exists.'],
  ['settings_saved', 'Settings saved.'],
  ['went_live', 'Your app is live as a client-side app. Deploy its page, and write a purpose for each kind of data it asks for.'],
]);

export function accountRoutes(table: RouteTable, deps: GatewayDeps): void {
  const { store, sessions } = deps;

  table.page({ method: 'get', path: '/account', name: 'account' }, async function showAccount(ctx) {
    const found = await deps.sessions.signedInUser(ctx);
    if (!found) return signInFirst(ctx);
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
    await beginUserDeletion(store, acting.user.id);
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
    const owning = await actingOwner(ctx);
    if (!owning) return;
    const { acting, application } = owning;
    const field = (name: string) => (stringField(acting.body, name) ?? '').slice(0, 20_000);
    const lines = (name: string) => field(name).split(/\r?\n/).map((line) => line.trim()).filter(Boolean);
    const posted = acting.body.capabilities;
    const capabilities = (Array.isArray(posted) ? posted : [posted]).filter((value): value is string => typeof value === 'string').slice(0, 20);
    const values: SettingsValues = {
      name: field('name'), description: field('description'), url: field('url'), image: field('image'), privacy_statement: field('privacy_statement'),
      redirect_uris: field('redirect_uris'), webhook_endpoints: field('webhook_endpoints'), capabilities, purposes: postedPurposes(acting.body),
    };
    try {
      await updateApplicationSettings(store, application, {
        ...values, redirect_uris: lines('redirect_uris'), webhook_endpoints: lines('webhook_endpoints'),
        webhook_secret: field('webhook_secret'), clear_webhook_secret: field('clear_webhook_secret') === '1',
      }, { pagesBase: deps.config.pagesBase, webhookAllowedHosts: deps.config.webhookAllowedHosts });
    } catch (error) {
      const errors = messagesByField(error, settingsFieldOf);
      return sendApplicationPage(ctx, 422, application, acting.session, { error: 'Nothing was saved: fix the fields marked below.' }, { values, errors });
    }
    seeOther(ctx, `/account/applications/${encodeURIComponent(application.id)}?notice=settings_saved`);
  });

  table.page({ method: 'post', path: '/account/applications/:id/go-live', name: 'goLiveAsClientside' }, async function goLive(ctx) {
    const owning = await actingOwner(ctx);
    if (!owning) return;
    const { acting, application } = owning;
    const field = (name: string) => (stringField(acting.body, name) ?? '').slice(0, 4096);
    const typed = { slug: field('slug'), description: field('description'), image: field('image') };
    try {
      await goLiveAsClientside(store, application, typed, { pagesBase: deps.config.pagesBase, baseUrl: deps.config.baseUrl });
    } catch (error) {
      const errors = messagesByField(error, (loc) => `live_${String(loc[1])}`);
      return sendApplicationPage(ctx, 422, application, acting.session, { error: 'The app did not go live: fix the fields marked below.' }, undefined, { values: typed, errors });
    }
    seeOther(ctx, `/account/applications/${encodeURIComponent(application.id)}?notice=went_live`);
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

  /** For a POST on an application: the acting user (actingUser) and their application in the path, or null when a page was sent. */
  async function actingOwner(ctx: Context): Promise<{ acting: NonNullable<Awaited<ReturnType<typeof actingUser>>>; application: ApplicationRecord } | null> {
    const acting = await actingUser(ctx);
    const application = acting ? await ownedApplication(ctx, acting.user) : null;
    return acting && application ? { acting, application } : null;
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
    live?: { values: GoLiveFormView['values']; errors: Record<string, string[]> },
  ): Promise<void> {
    const secrets = await store.client_secrets.find({ application_id: application.id }, { sort: { created_at: 1 } });
    const values: SettingsValues = form?.values ?? {
      name: application.name, description: application.description ?? '', url: application.url ?? '', image: application.image ?? '',
      privacy_statement: application.privacy_statement ?? '', redirect_uris: application.redirect_uris.join('\n'),
      webhook_endpoints: application.webhook_endpoints.join('\n'), capabilities: application.capabilities, purposes: application.purposes,
    };
    const ownPage = application.page_slug ? pageUrl(deps.config.pagesBase, application.page_slug) : null;
    const path = `/account/applications/${encodeURIComponent(application.id)}`;
    sendPage(ctx, status, applicationPage({
      application: { id: application.id, name: application.name, redirectUris: application.redirect_uris, isPrivate: isPrivate(application) },
      secrets: secrets.map(secretView),
      settings: {
        form: html`${settingsForm({
          action: `${path}/settings`, csrfToken: session.csrf_token, values,
          webhookSecretSet: application.webhook_secret !== null, errors: form?.errors ?? {}, pageUrl: ownPage,
        })}
${goLiveForm({
          action: `${path}/go-live`, csrfToken: session.csrf_token, pageUrl: ownPage,
          isClientside: application.privacy_statement === clientsidePrivacyUrl(deps.config.baseUrl),
          needsDescription: !application.description, needsImage: !application.image,
          values: live?.values ?? { slug: '', description: '', image: '' }, errors: live?.errors ?? {}, privacyPolicyPath: CLIENTSIDE_PRIVACY_PATH,
        })}`,
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

/** The posted `purpose_<category>` fields (a hostile form may name any category: they are all checked). */
function postedPurposes(body: Record<string, unknown>): Record<string, string> {
  const fields = Object.entries(body).filter(([name, value]) => name.startsWith('purpose_') && typeof value === 'string').slice(0, 20);
  return Object.fromEntries(fields.map(([name, value]) => [name.slice('purpose_'.length).slice(0, 64), (value as string).slice(0, 2000)]));
}

/** A form's validation problems by the field they are shown beside; anything else is thrown on. */
function messagesByField(error: unknown, fieldOf: (loc: readonly (string | number)[]) => string): Record<string, string[]> {
  if (!(error instanceof ValidationError)) throw error;
  const errors: Record<string, string[]> = {};
  for (const issue of error.issues) (errors[fieldOf(issue.loc)] ??= []).push(issue.msg);
  return errors;
}

/** The settings form field a validation issue belongs beside; a purpose of no known category goes beside all of them. */
function settingsFieldOf(loc: readonly (string | number)[]): string {
  if (loc[1] !== 'purposes') return String(loc[1]);
  return (PURPOSE_CATEGORIES as readonly unknown[]).includes(loc[2]) ? purposeField(String(loc[2])) : 'purposes';
}

function noticeOf(ctx: Context): string | null {
  const code = ctx.query.notice;
  return typeof code === 'string' ? NOTICES.get(code) ?? null : null;
}
