/**
 * The instance's privacy statement (served at /legal/privacy by routes/legal.ts): what this
 * service keeps, who sees it, and how a person takes it back. It is also the privacy statement a team
 * stored without its own answers with (services/team-links.ts). Plain facts of this codebase, not
 * legal advice: an operator who needs more links their own statement from their sign-in pages.
 * Kept honest by test/gateway/team-links.test.ts.
 */
import { html } from './html.js';
import type { PageOptions } from './layout.js';

export function privacyStatementPage(view: { host: string }): PageOptions {
  return {
    title: 'Privacy statement',
    body: html`<h1>Privacy statement</h1>
<p class="lead">This Threshold service, at ${view.host}, keeps training data for the people who use it. Its operator runs it; nobody else does.</p>
<h2>What it keeps</h2>
<ul class="plain">
<li>Your account: your email address, your name if you give one, and a hash of your password if you set one.</li>
<li>The training data you upload or connect from a training platform: activities, daily measures, tests, traces, markers and scheduled workouts, and the access the platform gave this service.</li>
<li>Which applications and teams you allowed to see your data, and what each may see.</li>
<li>A session cookie while you are signed in, and the technical logs the operator needs to run the service.</li>
</ul>
<h2>Who sees it</h2>
<p>You. An application or a team sees only what you allowed it on the consent screen, and stops at once when you revoke it. Each application and team has its own privacy statement for what it does with your data. This service shares nothing beyond what you allow: it shows no advertising and loads no third-party trackers.</p>
<h2>Taking it back</h2>
<p>On <a href="/account">Your account</a> you revoke an application or a team, disconnect a training platform, and delete your account: deleting it removes your data from this service, irreversibly.</p>
<h2>Questions</h2>
<p>Ask the operator of this service: they keep your data and answer for it.</p>`,
  };
}
