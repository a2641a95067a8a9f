/**
 * The settings form of an application on its account page (interface §4 "Applications": "The account page
 * edits all of this"): name, description, website, image, privacy statement, redirect URIs, webhook
 * endpoints, a write-only webhook secret (shown only as set or not set) and the declared capabilities,
 * in one CSRF-protected form whose problems are shown beside their fields. Pure renderer for
 * routes/account.ts; kept honest by test/gateway/application-settings.test.ts.
 */
import { html, type Html } from './html.js';

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
<button type="submit">Save settings</button>
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
