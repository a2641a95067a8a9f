/**
 * The webhook page of an application's owner (issue 15): per owned application, each registered endpoint
 * with its health (consecutive failed attempts, the last error, deliveries waiting), and the attempt log,
 * newest first, each row with a Redeliver button (a CSRF-checked form) that queues that event to that
 * endpoint again. Pure renderer for routes/account-webhooks.ts; kept honest by
 * test/gateway/account-webhooks.test.ts and test/browser/account-webhooks.test.ts.
 */
import { html, type Html } from './html.js';
import type { PageOptions } from './layout.js';
import { formatDate } from './account.js';

export interface EndpointHealth {
  endpoint: string;
  /** Failed attempts since the last success (a lower bound when `more`). */
  consecutiveFailures: number;
  more: boolean;
  lastError: string | null;
  lastAttemptAt: number | null;
  /** Deliveries not yet delivered or expired. */
  waiting: number;
}

export interface AttemptRow {
  at: number;
  eventId: string;
  eventType: string | null;
  endpoint: string;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

export interface ApplicationWebhooks {
  id: string;
  name: string;
  hasSecret: boolean;
  endpoints: EndpointHealth[];
  attempts: AttemptRow[];
}

/** An endpoint counts as failing from this many failed attempts in a row. */
export const FAILING_AFTER = 3;

const STYLE = `
.badge{display:inline-block;padding:.05rem .45rem;border-radius:999px;font-size:.8rem;font-weight:600}
.badge.ok{background:#ecfdf3;color:#067647}.badge.bad{background:#fef3f2;color:var(--danger)}.badge.idle{background:#f1f3f7;color:var(--muted)}
.attempts .item form.inline button{padding:.3rem .7rem;font-size:.85rem}
`;

const TIME = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false, timeZone: 'UTC' });

function when(epochMs: number): string {
  return `${formatDate(epochMs)} ${TIME.format(new Date(epochMs))} UTC`;
}

function health(endpoint: EndpointHealth): Html {
  const badge = endpoint.lastAttemptAt === null
    ? html`<span class="badge idle">no attempt yet</span>`
    : endpoint.consecutiveFailures >= FAILING_AFTER
      ? html`<span class="badge bad">failing: ${endpoint.consecutiveFailures}${endpoint.more ? '+' : ''} attempts in a row</span>`
      : endpoint.consecutiveFailures > 0
        ? html`<span class="badge bad">${endpoint.consecutiveFailures} failed</span>`
        : html`<span class="badge ok">delivering</span>`;
  return html`<div class="item"><div><code>${endpoint.endpoint}</code>
<p class="muted">${badge}${endpoint.waiting > 0 ? ` · ${endpoint.waiting} waiting` : ''}${endpoint.lastAttemptAt !== null ? ` · last attempt ${when(endpoint.lastAttemptAt)}` : ''}</p>
${endpoint.lastError && endpoint.consecutiveFailures > 0 ? html`<p class="muted">Last error: ${endpoint.lastError}</p>` : null}</div></div>`;
}

export function webhooksPage(view: { applications: ApplicationWebhooks[]; csrfToken: string; notice?: string | null }): PageOptions {
  return {
    title: 'Webhook deliveries',
    wide: true,
    extraStyle: STYLE,
    body: html`<p class="muted"><a href="/account">Your account</a> / Webhooks</p>
<h1>Webhook deliveries</h1>
${view.notice ? html`<p class="notice success" role="status">${view.notice}</p>` : null}
<p class="muted">Every event of a user who connected your app goes to each endpoint, signed with <code class="scope">X-Sweatstack-Signature</code>, and is retried with backoff for 24 hours. A receiver that missed some can read them again from <code class="scope">GET /api/v1/events</code>.</p>
${view.applications.length === 0 ? html`<p class="muted">You have not registered an application.</p>` : view.applications.map((app) => html`<h2>${app.name}</h2>
${!app.hasSecret && app.endpoints.length > 0 ? html`<p class="notice warn">No webhook secret is set, so nothing is sent: set one in <a href="/account/applications/${encodeURIComponent(app.id)}">the settings</a>.</p>` : null}
${app.endpoints.length === 0
  ? html`<p class="muted">No webhook endpoint. Add one in <a href="/account/applications/${encodeURIComponent(app.id)}">the settings</a>.</p>`
  : html`<div class="list">${app.endpoints.map(health)}</div>`}
${app.attempts.length === 0 ? html`<p class="muted">No delivery attempt yet.</p>` : html`<p class="muted"><strong>Recent attempts</strong>, newest first</p><div class="list attempts">${app.attempts.map((attempt) => html`<div class="item">
<div><strong>${attempt.eventType ?? 'event'}</strong> <code>${attempt.eventId}</code>
<p class="muted">${attempt.error === null ? html`<span class="badge ok">${attempt.statusCode}</span>` : html`<span class="badge bad">${attempt.statusCode ?? 'no answer'}</span> ${attempt.error}`} · ${attempt.durationMs} ms</p>
<p class="muted">${when(attempt.at)} · ${attempt.endpoint}</p></div>
<form method="post" action="/account/webhooks/redeliver" class="inline"><input type="hidden" name="csrf" value="${view.csrfToken}"><input type="hidden" name="application_id" value="${app.id}"><input type="hidden" name="event_id" value="${attempt.eventId}"><input type="hidden" name="endpoint" value="${attempt.endpoint}"><button type="submit" class="secondary" title="Send this event to ${attempt.endpoint} again">Redeliver</button></form>
</div>`)}</div>`}`)}`,
  };
}
