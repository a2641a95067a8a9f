/**
 * The webhook page for application owners (issue 15):
 *
 *   GET  /account/webhooks              per owned application: endpoint health and the attempt log
 *   POST /account/webhooks/redeliver    queues one event to one endpoint again → 303 /account/webhooks
 *
 * Same rules as the other account pages (routes/account.ts): 303 /signin without a session, every POST
 * carries the session's CSRF token (403 otherwise), another owner's application or an event the
 * application was never sent is a 404. A redelivery goes through the dispatcher like any delivery
 * (address checked again, signed, retried for 24 h from the request), so the button can only resend what
 * the application was entitled to receive. Kept honest by test/gateway/account-webhooks.test.ts.
 */
import type { ApplicationRecord, EventAttemptRecord, UserRecord } from '../../storage/store.js';
import { redelivery } from '../../storage/event-deliveries.js';
import type { RouteTable } from '../route-table.js';
import type { GatewayDeps } from '../deps.js';
import { sendPage } from '../pages/layout.js';
import { csrfSession, formBody, seeOther, stringField } from '../pages/forms.js';
import { forbiddenPage, notFoundPage } from '../pages/messages.js';
import { webhooksPage, type ApplicationWebhooks, type EndpointHealth } from '../pages/webhooks.js';

/** Attempts read per application: the log shows the newest LOG_ROWS, health is judged over all of them. */
const HEALTH_WINDOW = 200;
const LOG_ROWS = 25;

export function webhookPageRoutes(table: RouteTable, deps: GatewayDeps): void {
  const { store } = deps;

  table.page({ method: 'get', path: '/account/webhooks', name: 'accountWebhooks' }, async function showWebhooks(ctx) {
    const found = await deps.sessions.signedInUser(ctx);
    if (!found) return seeOther(ctx, '/signin');
    const owned = await store.applications.find({ user_id: found.user.id }, { sort: { created_at: 1 } });
    const applications = await Promise.all(owned.map(applicationWebhooks));
    const notice = ctx.query.notice === 'redelivered' ? 'Queued again: the event goes out within a second.' : null;
    sendPage(ctx, 200, webhooksPage({ applications, csrfToken: found.session.csrf_token, notice }));
  });

  table.page({ method: 'post', path: '/account/webhooks/redeliver', name: 'redeliverEvent' }, async function redeliver(ctx) {
    const body = formBody(ctx);
    if (!(await csrfSession(ctx, deps.sessions, body))) return sendPage(ctx, 403, forbiddenPage());
    const found = await deps.sessions.signedInUser(ctx);
    if (!found) return seeOther(ctx, '/signin');
    const application = await ownedApplication(found.user, stringField(body, 'application_id'));
    const eventId = stringField(body, 'event_id') ?? '';
    const endpoint = stringField(body, 'endpoint') ?? '';
    const event = eventId.length <= 64 ? await store.events.get(eventId) : null;
    // Only an event this application was sent, to an endpoint it still has.
    const sent = application && event && application.webhook_endpoints.includes(endpoint)
      ? await store.event_deliveries.findOne({ event_id: event.id, application_id: application.id })
      : null;
    if (!application || !event || event.seq === undefined || !sent) return sendPage(ctx, 404, notFoundPage());
    await store.event_deliveries.insert(redelivery({ ...event, seq: event.seq }, application.id, endpoint, Date.now()));
    deps.wakeEvents?.();
    seeOther(ctx, '/account/webhooks?notice=redelivered');
  });

  async function ownedApplication(user: UserRecord, id: string | null): Promise<ApplicationRecord | null> {
    const application = id && id.length <= 64 ? await store.applications.get(id) : null;
    return application && application.user_id === user.id ? application : null;
  }

  async function applicationWebhooks(application: ApplicationRecord): Promise<ApplicationWebhooks> {
    const attempts = await store.event_attempts.find({ application_id: application.id }, { sort: { at: -1 }, limit: HEALTH_WINDOW });
    const shown = attempts.slice(0, LOG_ROWS);
    const events = new Map((await Promise.all([...new Set(shown.map((attempt) => attempt.event_id))].map((id) => store.events.get(id))))
      .flatMap((event) => (event ? [[event.id, event.event_type] as const] : [])));
    const endpoints = await Promise.all(application.webhook_endpoints.map((endpoint) => endpointHealth(application.id, endpoint, attempts)));
    return {
      id: application.id, name: application.name, hasSecret: application.webhook_secret !== null, endpoints,
      attempts: shown.map((attempt) => ({
        at: attempt.at, eventId: attempt.event_id, eventType: events.get(attempt.event_id) ?? null, endpoint: attempt.endpoint,
        statusCode: attempt.status_code, error: attempt.error, durationMs: attempt.duration_ms,
      })),
    };
  }

  async function endpointHealth(applicationId: string, endpoint: string, attempts: EventAttemptRecord[]): Promise<EndpointHealth> {
    const own = attempts.filter((attempt) => attempt.endpoint === endpoint);
    const firstSuccess = own.findIndex((attempt) => attempt.error === null);
    const consecutiveFailures = firstSuccess === -1 ? own.length : firstSuccess;
    const waiting = await store.event_deliveries.count({ application_id: applicationId, status: 'pending', endpoint });
    return {
      endpoint, consecutiveFailures, more: firstSuccess === -1 && attempts.length >= HEALTH_WINDOW,
      lastError: own[0]?.error ?? null, lastAttemptAt: own[0]?.at ?? null, waiting,
    };
  }
}
