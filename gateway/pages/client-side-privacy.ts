/**
 * The instance's standard privacy policy for client-side apps (interface §2 "Application":
 * "is_clientside_app … true when privacy_statement is the standard client-side privacy policy URL, set
 * when the app went live through the one-click page path"). An app taken live that way
 * (services/clientside-apps.ts) runs as a page hosted by this service and talks to this service from the
 * visitor's browser only; this page says what that means for the person connecting it. It is the
 * client-side policy only: the instance's general privacy statement lives elsewhere (/legal/privacy).
 * Kept honest by test/gateway/clientside-apps.test.ts.
 */
import { html } from './html.js';
import type { PageOptions } from './layout.js';

export const CLIENTSIDE_PRIVACY_PATH = '/legal/client-side-privacy';

/** The standard client-side privacy policy URL of the instance at `baseUrl`. */
export function clientsidePrivacyUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${CLIENTSIDE_PRIVACY_PATH}`;
}

export function clientsidePrivacyPage(): PageOptions {
  return {
    title: 'Privacy policy for client-side apps',
    body: html`<h1>Privacy policy for client-side apps</h1>
<p>An app that links here is a <strong>client-side app</strong>: a page hosted by this Threshold service whose code runs in your browser. Its developer chose this policy when taking it live, and states with it that:</p>
<ul>
<li>The app reads and changes only what you allow on the consent screen, and only from your browser, directly with this Threshold service.</li>
<li>The app has no server of its own: your training data, your email address and the app's access to your account (its tokens) are not sent to the developer or to anyone else.</li>
<li>Whatever the app keeps, it keeps in your browser's storage for this app's page. Clearing your browser's site data for the page removes it.</li>
</ul>
<p>This Threshold service stores your data and what you allowed each app, as its own <a href="/legal/privacy">privacy statement</a> describes. The app's page is served by this service from its own address, apart from your account's pages.</p>
<p>You can remove any app's access at any time under <a href="/account">your account</a>; the app then can no longer read or change anything.</p>
<p class="muted">If an app that links here does send your data elsewhere, it breaks this policy: tell the people who run this Threshold service.</p>`,
  };
}
