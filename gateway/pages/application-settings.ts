/**
 * The settings form of an application on its account page (interface §4 "Applications": "The account page
 * edits all of this"): name, description, website, image, privacy statement, redirect URIs, webhook
 * endpoints, a write-only webhook secret (shown only as set or not set), the declared capabilities and
 * one purpose sentence per data category, in one CSRF-protected form whose problems are shown beside
 * their fields; and the one-click page path's form. Pure renderer for
 * routes/account.ts; kept honest by test/gateway/application-settings.test.ts.
 */
import { html, type Html } from './html.js';
import { PURPOSE_CATEGORIES, categoryTitle } from '../auth/scopes.js';

/** Capabilities an application may declare (interface §2 "Account status"; the key set is open, these are the known ones). */
export const KNOWN_CAPABILITIES = [
  { key: 'activities', label: 'Activities', hint: 'new activities arrive' },
  { key: 'activity_history', label: 'Activity history', hint: 'past activities are loaded' },
  { key: 'dailies', label: 'Dailies', hint: 'body mass, resting heart rate, sleep …' },
  { key: 'workouts', label: 'Workouts', hint: 'scheduled workouts reach devices' },
] as const;

export interface SettingsValues {
  name: string;
  description: string;
  url: string;
  image: string;
  privacy_statement: string;
  redirect_uris: string;
  webhook_endpoints: string;
  capabilities: string[];
  /** Category → purpose sentence as typed (interface §5 "Consent"). */
  purposes: Record<string, string>;
}

export interface SettingsFormView {
  action: string;
  csrfToken: string;
  values: SettingsValues;
  webhookSecretSet: boolean;
  /** Field name → what is wrong with it. */
  errors: Record<string, string[]>;
  /** The page URL, when the application has a page (it sits among the redirect URIs by itself). */
  pageUrl: string | null;
}

function fieldErrors(errors: Record<string, string[]>, field: string): Html | null {
  const messages = errors[field];
  return messages?.length ? html`<p class="field-error" id="${field}-error" role="alert">${messages.join(' ')}</p>` : null;
}

function described(errors: Record<string, string[]>, field: string): Html | null {
  return errors[field]?.length ? html` aria-invalid="true" aria-describedby="${field}-error"` : null;
}

export function settingsForm(view: SettingsFormView): Html {
  const { values, errors } = view;
  const text = (field: 'name' | 'url' | 'image' | 'privacy_statement', label: string, hint: string | null, type = 'url') => html`
<label for="${field}">${label}${hint ? html` <span class="muted">${hint}</span>` : null}</label>
<input id="${field}" type="${type}" name="${field}" value="${values[field]}" maxlength="${field === 'name' ? 100 : 2048}"${field === 'name' ? html` required` : null}${described(errors, field)}>
${fieldErrors(errors, field)}`;
  return html`<h2 id="settings">Settings</h2>
<p class="muted">An application stays private, and only your account can connect it, until it has a description, website, image and privacy statement.</p>
<form method="post" action="${view.action}" class="settings" novalidate>
<input type="hidden" name="csrf" value="${view.csrfToken}">
${text('name', 'Name', null, 'text')}
<label for="description">Description <span class="muted">(up to 500 characters)</span></label>
<textarea id="description" name="description" rows="3" maxlength="500"${described(errors, 'description')}>${values.description}</textarea>
${fieldErrors(errors, 'description')}
${text('url', 'Website', '(https)')}
${text('image', 'Image', '(https, square)')}
${text('privacy_statement', 'Privacy statement', '(https)')}
<label for="redirect_uris">Redirect URIs <span class="muted">(one per line)</span></label>
<textarea id="redirect_uris" name="redirect_uris" rows="3" spellcheck="false"${described(errors, 'redirect_uris')}>${values.redirect_uris}</textarea>
${view.pageUrl ? html`<p class="muted">Your page <code>${view.pageUrl}</code> is registered for you.</p>` : null}
${fieldErrors(errors, 'redirect_uris')}
<label for="webhook_endpoints">Webhook endpoints <span class="muted">(https, one per line)</span></label>
<textarea id="webhook_endpoints" name="webhook_endpoints" rows="2" spellcheck="false"${described(errors, 'webhook_endpoints')}>${values.webhook_endpoints}</textarea>
${fieldErrors(errors, 'webhook_endpoints')}
<label for="webhook_secret">Webhook secret <span class="muted">${view.webhookSecretSet ? '(set; leave empty to keep it)' : '(not set)'}</span></label>
<input id="webhook_secret" type="password" name="webhook_secret" value="" autocomplete="new-password" maxlength="256"${described(errors, 'webhook_secret')}>
${fieldErrors(errors, 'webhook_secret')}
${view.webhookSecretSet ? html`<label class="check"><input type="checkbox" name="clear_webhook_secret" value="1"> Remove the webhook secret</label>` : null}
<fieldset${described(errors, 'capabilities')}><legend>Capabilities <span class="muted">(what account status reports to this app)</span></legend>
${KNOWN_CAPABILITIES.map((capability) => html`<label class="check"><input type="checkbox" name="capabilities" value="${capability.key}"${values.capabilities.includes(capability.key) ? html` checked` : null}> ${capability.label} <span class="muted">— ${capability.hint}</span></label>`)}
</fieldset>
${fieldErrors(errors, 'capabilities')}
${purposeFields(values.purposes, errors)}
<button type="submit">Save settings</button>
</form>`;
}

/**
 * "For each requested category except openid, profile and offline_access, the app writes one purpose
 * sentence in its settings: 20 to 160 characters, plain text, no links. It is shown as the purpose line
 * on the consent screen." One field per category, `purpose_<category>`; its problems beside it.
 */
function purposeFields(purposes: Record<string, string>, errors: Record<string, string[]>): Html {
  return html`<fieldset id="purposes"${described(errors, 'purposes')}><legend>Purposes <span class="muted">(why the app asks for each kind of data, shown on the consent screen; 20 to 160 characters, plain text, no links)</span></legend>
<p class="muted">Once the app is public, people asked for a kind of data without a purpose see a "not ready" page instead of the consent screen. Leave a field empty for data the app never asks for.</p>
${PURPOSE_CATEGORIES.map((category) => {
    const field = purposeField(category);
    return html`<label for="${field}">${categoryTitle(category)}</label>
<input id="${field}" type="text" name="${field}" value="${purposes[category] ?? ''}" maxlength="400"${described(errors, field)}>
${fieldErrors(errors, field)}`;
  })}
</fieldset>
${fieldErrors(errors, 'purposes')}`;
}

/** The form field of a category's purpose. */
export function purposeField(category: string): string {
  return `purpose_${category}`;
}

export interface GoLiveFormView {
  action: string;
  csrfToken: string;
  /** The page URL when the application has a page (then no slug is asked for). */
  pageUrl: string | null;
  /** Whether the application is already live as a client-side app. */
  isClientside: boolean;
  /** Which of the fields the path cannot fill the owner must give. */
  needsDescription: boolean;
  needsImage: boolean;
  values: { slug: string; description: string; image: string };
  errors: Record<string, string[]>;
  privacyPolicyPath: string;
}

/**
 * The one-click page path (services/clientside-apps.ts): one form that creates the app's page and takes
 * the app live as a client-side app, asking only for what it cannot fill itself. Field ids carry a
 * `live_` prefix so they never clash with the settings form's.
 */
export function goLiveForm(view: GoLiveFormView): Html {
  const { values, errors } = view;
  if (view.isClientside) {
    return html`<h2 id="go-live">Client-side app</h2>
<p>This app is live as a client-side app${view.pageUrl ? html` on its page <code>${view.pageUrl}</code>` : null}. Its privacy statement is this service's <a href="${view.privacyPolicyPath}">privacy policy for client-side apps</a>.</p>`;
  }
  const field = (name: 'slug' | 'description' | 'image', label: string, hint: string, type: string) => html`
<label for="live_${name}">${label} <span class="muted">${hint}</span></label>
<input id="live_${name}" type="${type}" name="${name}" value="${values[name]}" maxlength="${name === 'slug' ? 63 : name === 'description' ? 500 : 2048}"${described(errors, `live_${name}`)}>
${fieldErrors(errors, `live_${name}`)}`;
  return html`<h2 id="go-live">Go live as a client-side app</h2>
<p class="muted">For an app that runs entirely in the browser: one click ${view.pageUrl ? html`uses its page <code>${view.pageUrl}</code>` : 'gives it a page hosted here'}, adds the page to the redirect URIs, makes this service's <a href="${view.privacyPolicyPath}">privacy policy for client-side apps</a> its privacy statement and the page its website when it has none, and so makes it public. Deploy the page's files with <code>PUT /api/v1/pages/{slug}/deploy</code>.</p>
<form method="post" action="${view.action}" class="settings" novalidate>
<input type="hidden" name="csrf" value="${view.csrfToken}">
${view.pageUrl ? null : field('slug', 'Page address', '(3 to 63 letters, digits and hyphens)', 'text')}
${view.needsDescription ? field('description', 'Description', '(the app has none yet; up to 500 characters)', 'text') : null}
${view.needsImage ? field('image', 'Image', '(the app has none yet; https, square)', 'url') : null}
<button type="submit">Create the page and go live</button>
</form>`;
}

/** CSS the form adds to the page frame. */
export const SETTINGS_STYLE = `
textarea,input[type=url]{width:100%;padding:.7rem .8rem;border:1px solid #c5cbd5;border-radius:8px;font:inherit;background:#fff}
textarea{resize:vertical;font:.9rem/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
textarea#description{font:inherit}
[aria-invalid=true]{border-color:var(--danger)}
.field-error{color:var(--danger);font-size:.875rem;margin:.3rem 0 0}
fieldset{border:0;padding:0;margin:1rem 0 0}
legend{font-weight:600;font-size:.925rem;margin-bottom:.25rem}
label.check{display:block;font-weight:400;margin:.45rem 0;padding-left:1.6rem;text-indent:-1.6rem}
label.check input{width:1rem;margin:0 .5rem 0 0;vertical-align:-.1rem}
`;
