/**
 * The front door (issue 26 item 6): what a person meets who opens the service's address in a browser.
 * What Threshold is, the way in (sign in, create an account), the athlete's pages, and the API reference
 * for developers; a signed-in person sees links to their own training instead of the way in. A pure
 * renderer for routes/front-door.ts; every link stays on this server. Kept honest by
 * test/gateway/front-door.test.ts and test/browser/front-door.test.ts.
 */
import { html } from './html.js';
import type { PageOptions } from './layout.js';

export interface FrontDoorView {
  /** The signed-in person's name or email, or null for a visitor. */
  signedInAs: string | null;
}

const EXTRA_STYLE = `
ul.doors{list-style:none;padding:0;margin:1rem 0 0}
ul.doors li{padding:.8rem 0;border-top:1px solid var(--line)}
ul.doors li:last-child{border-bottom:1px solid var(--line)}
ul.doors a{font-weight:600}
ul.doors span{display:block;color:var(--muted);font-size:.925rem}
`;

export function frontDoorPage(view: FrontDoorView): PageOptions {
  const training = html`<ul class="doors" aria-label="Your training">
<li><a href="/training">Your activities</a><span>Every activity, newest first, with its charts and laps.</span></li>
<li><a href="/training/upload">Upload files</a><span>FIT and CSV files from your device or another app.</span></li>
<li><a href="/training/season">Your season</a><span>Best efforts over the season, your model and metabolic map.</span></li>
<li><a href="/account">Your account</a><span>Connected apps, teams, providers and sign-out.</span></li>
</ul>`;
  const wayIn = html`<a class="button" href="/signin">Sign in</a>
<a class="button secondary" href="/signup">Create an account</a>
<h2>Once you are signed in</h2>
<p class="muted">Your activities, uploads and season live under <a href="/training">/training</a>; apps you connect and teams you share with under <a href="/account">/account</a>.</p>`;
  return {
    title: 'Your training data, in one place',
    wide: true,
    extraStyle: EXTRA_STYLE,
    body: html`<h1>Your training data, in one place</h1>
<p class="lead">Threshold keeps your activities, tests and daily measures, works out your best efforts, zones and thresholds, and lets the apps you choose read them.</p>
${view.signedInAs
  ? html`<p class="notice success">Signed in as <strong>${view.signedInAs}</strong>.</p>
<a class="button" href="/training">Go to your training</a>
${training}`
  : wayIn}
<h2>For developers</h2>
<p class="muted">Threshold is an OAuth 2.0 and OpenID Connect provider with a JSON API under <code class="nowrap">/api/v1</code>. The <a href="/docs">API reference</a> documents every endpoint (<a href="/openapi.json">OpenAPI document</a>); register applications from <a href="/account">your account</a>.</p>`,
  };
}
