/**
 * The screens of the authorization flow (interface §5 "Consent"; AUTH.md "consent"): consent, the
 * error page for an unusable client or redirect URI, the still-private and not-ready pages, and the
 * unconfigured-provider page. Pure renderers: routes/authorize.ts decides which one to show and sends it
 * with sendPage (which adds no-store, no-referrer and frame-ancestors 'none').
 *
 * Deliberately: the consent form is POST only with the session's CSRF token; no page here ever links
 * back to the client (an unverified redirect would make us an open redirector); the loopback warning
 * is shown whenever the redirect goes to this computer. Kept honest by test/gateway/pages.test.ts.
 */
import { html, type Html } from './html.js';
import { appHeader, type Brand, type PageOptions } from './layout.js';

export interface AccountView {
  email: string | null;
  name: string;
}

export interface ConsentLine {
  title: string;
  detail: string;
  purpose: string | null;
}

/** "Signed in as …" with the account's initial. */
export function accountChip(account: AccountView): Html {
  const initial = account.name.trim().slice(0, 1).toUpperCase() || '?';
  return html`<div class="who"><span class="avatar" aria-hidden="true">${initial}</span><span>Signed in as <strong>${account.name}</strong>${account.email && account.email !== account.name ? html` <span class="muted">(${account.email})</span>` : null}</span></div>`;
}

/** The consent screen: one line per newly requested category, Allow / Cancel, "Not you?". */
export function consentPage(view: {
  brand: Brand;
  account: AccountView;
  lines: ConsentLine[];
  alreadyGranted: string[];
  loopback: boolean;
  redirectOrigin: string;
  interactionId: string;
  csrfToken: string;
  /** The team variant: the team the user also lets see their data, and what it will see. */
  team?: TeamConsentView | null;
  /** Shown to the owner of a public app: the requested categories others would see the not-ready page for. */
  missingPurposes?: MissingPurposesView | null;
}): PageOptions {
  const { brand } = view;
  const action = `/oauth/interaction/${encodeURIComponent(view.interactionId)}/decision`;
  const requested = view.lines.length > 0
    ? html`<p>${brand.name} is asking to:</p>
<ul class="scopes">${view.lines.map((line) => html`<li><strong>${line.title}</strong><span>${line.detail}</span>${line.purpose ? html`<q>${line.purpose}</q>` : null}</li>`)}</ul>`
    : html`<p>${brand.name} is asking to continue with the access you already gave it. Nothing new is requested.</p>`;
  return {
    title: `Allow ${brand.name}?`,
    brand,
    body: html`${appHeader(brand)}
<h1>${brand.name} wants to use your Threshold account</h1>
${accountChip(view.account)}
${view.loopback ? html`<p class="notice warn" role="alert"><strong>This app runs on this device.</strong> Your answer is sent to a program on this computer (${view.redirectOrigin}). Continue only if you started ${brand.name} yourself.</p>` : null}
${view.missingPurposes ? ownerPurposesNotice(view.missingPurposes) : null}
${requested}
${view.alreadyGranted.length > 0 ? html`<p class="muted">Already allowed: ${view.alreadyGranted.join(', ')}.</p>` : null}
${view.team ? teamConsent(view.team) : null}
<form method="post" action="${action}">
<input type="hidden" name="csrf" value="${view.csrfToken}">
<div class="row">
<button type="submit" name="decision" value="deny" class="secondary">Cancel</button>
<button type="submit" name="decision" value="approve">Allow</button>
</div>
</form>
<p class="muted">You will then be sent to <code>${view.redirectOrigin}</code>. You can remove ${brand.name}'s access at any time from your <a href="/account">Threshold account</a>.</p>
<form method="post" action="/signout" class="center">
<input type="hidden" name="csrf" value="${view.csrfToken}">
<input type="hidden" name="interaction" value="${view.interactionId}">
<p class="muted">Not you? <button type="submit" class="link">Use another account</button></p>
</form>`,
  };
}

export interface MissingPurposesView {
  titles: string[];
  /** The app's settings page, where its owner writes the purposes. */
  settingsHref: string;
}

/** To the owner: where to write the purposes that others need before they see this screen. */
function ownerPurposesNotice(view: MissingPurposesView): Html {
  return html`<div class="notice warn" role="status"><p><strong>You own this app.</strong> Other people asked for this see a &ldquo;not ready&rdquo; page until it explains why it needs: ${view.titles.join(', ')}.</p>
<p><a href="${view.settingsHref}#purposes">Write the purposes in the app's settings</a></p></div>`;
}

export interface TeamConsentView {
  name: string;
  description: string;
  url: string;
  /** What the team will see, in the consent screen's words. */
  lines: string[];
}

/** The team variant's part of the consent screen: which team, what it sees, where to revoke it. */
function teamConsent(team: TeamConsentView): Html {
  return html`<div class="notice team" role="group" aria-label="Team access">
<p><strong>Also share with the team &ldquo;${team.name}&rdquo;</strong></p>
${team.description ? html`<p class="muted">${team.description}</p>` : null}
${team.url ? html`<p class="muted"><a href="${team.url}" rel="noopener noreferrer">${team.url}</a></p>` : null}
<p>Its members (a coach or a club) will be able to see, for as long as you allow it:</p>
<ul class="plain">${team.lines.map((line) => html`<li>${line}</li>`)}</ul>
<p class="muted">Revoke the team's access at any time under Teams in your Threshold account.</p>
</div>`;
}

/** The client or its redirect URI is unusable: explain, and never link back to the client. */
export function authorizationErrorPage(view: { title: string; message: string }): PageOptions {
  return {
    title: view.title,
    body: html`<h1>${view.title}</h1>
<p class="notice error" role="alert">${view.message}</p>
<p class="muted">Nothing was shared. You can close this page. If this keeps happening, tell the developer of the app that sent you here.</p>`,
  };
}

/** "<app> is still private": only its developer's account can connect until the public fields exist. */
export function privateAppPage(view: { brand: Brand; account: AccountView; missing: string[] }): PageOptions {
  const { brand } = view;
  return {
    title: `${brand.name} is still private`,
    brand,
    body: html`${appHeader(brand)}
<h1>${brand.name} is still private</h1>
<p>While an app is being built, only its developer's account can connect to it. You are signed in with another account:</p>
${accountChip(view.account)}
${view.missing.length > 0 ? html`<p>Before anyone else can connect, its developer needs to add:</p>
<ul class="plain">${view.missing.map((field) => html`<li>${field}</li>`)}</ul>` : null}
<p class="muted">Nothing was shared. If you are the developer, sign in with the account that owns the app.</p>`,
  };
}

/** The app is public but has not written a purpose for every requested category. */
export function notReadyPage(view: { brand: Brand; missingPurposes: string[] }): PageOptions {
  const { brand } = view;
  return {
    title: `${brand.name} is not ready yet`,
    brand,
    body: html`${appHeader(brand)}
<h1>${brand.name} is not ready yet</h1>
<p>Apps must explain why they need each kind of data before they can ask for it. ${brand.name} has not yet explained why it needs:</p>
<ul class="plain">${view.missingPurposes.map((title) => html`<li>${title}</li>`)}</ul>
<p class="muted">Nothing was shared. Try again later, or let the app's developer know.</p>
<p class="muted">If you develop ${brand.name}: its owner's account writes a purpose for each of these under Purposes in the app's settings (<a href="/account">your account</a>, then the app).</p>`,
  };
}

/** The request named a provider sign-in (`integration`) this server has not configured. */
export function integrationNotConfiguredPage(view: { brand: Brand | null; provider: string }): PageOptions {
  return {
    title: `${view.provider} sign-in is not available`,
    brand: view.brand,
    body: html`${view.brand ? appHeader(view.brand) : null}
<h1>${view.provider} sign-in is not available</h1>
<p>${view.provider} sign-in is not configured on this Threshold server.</p>
<p class="muted">Nothing was shared. Ask the person who runs this server to set it up${view.brand ? html`, or go back to ${view.brand.name} and choose another way to sign in` : null}.</p>`,
  };
}
