/**
 * Wahoo behind the framework's ProviderAdapter (provider.ts), wrapping the protocol client:
 *
 * - Connect: consent URL with PKCE S256 (sent by a confidential app too: harmless, and required of a
 *   public one), code exchange with the parameters in the query string, the Wahoo user id as external id.
 * - Refresh: one call, whose pair the framework stores before using it — Wahoo revokes the old pair only
 *   when the new access token is first used, and allows 10 unrevoked tokens per user, so two refreshes of
 *   one connection must never run at once (the framework's tokensFor must serialize them per connection).
 * - History: `/v1/workouts` pages (cursor = the page number), newest first, until `total` or `oldest`;
 *   workouts whose summary is still null are left out (the webhook brings them when done). The file is the
 *   summary's CDN URL, fetched without our token; 403/404 → null (gone).
 * - Pushes: `workout_summary` webhooks carrying our `webhook_token` (WAHOO_WEBHOOK_TOKEN); the activity id
 *   is the workout id, as in the listing, so a webhook and a backfill page never import it twice.
 * - Dailies: `GET /v1/user` weight as today's body_mass (Wahoo keeps no history). Revoke: `DELETE /v1/permissions`.
 * - Rate limits: one gauge for the app reads every answer's X-RateLimit-* headers and stops calls before a
 *   limit is hit; a spent day window is reported as a daily quota (RateLimited.daily).
 *
 * Kept honest by test/engine/integrations/wahoo-adapter.test.ts.
 */
import type { ProviderTokens } from '../credentials.js';
import { inRange } from '../daily-import.js';
import { newPkcePair } from '../pkce.js';
import { ProviderCallError, translated } from '../provider-call-error.js';
import type { Fetch, HttpContext } from '../provider-http.js';
import type { SpendBudget } from '../provider-budget.js';
import { PushRejected, type HistoryPage, type ProviderAdapter, type ProviderSettings, type PushItem, type PushRequest, type RemoteActivity } from '../provider.js';
import { memoryKeeper, Serializer } from '../token-keeper.js';
import { WahooClient } from './client.js';
import { wahooDailiesOf } from './dailies.js';
import { WAHOO_DEFAULT_SCOPES, type WahooApp } from './endpoints.js';
import { exchangeWahooCode, refreshWahooTokens, wahooAuthorizeUrl } from './oauth.js';
import { WahooRateGauge } from './rate-gauge.js';
import { parseWahooWebhook } from './webhook.js';

const PROVIDER = 'wahoo' as const;
/** Workouts per listing page: Wahoo's documented default. */
export const WAHOO_PAGE_SIZE = 30;

export interface AdapterOptions {
  fetch?: Fetch;
  now?: () => number;
  timeoutMs?: number;
  pageSize?: number;
  scopes?: string;
  spend?: SpendBudget;
}

export function wahooAdapter(settings: ProviderSettings, options: AdapterOptions = {}): ProviderAdapter {
  const scopes = options.scopes ?? WAHOO_DEFAULT_SCOPES;
  const app: WahooApp = { clientId: settings.clientId, clientSecret: settings.clientSecret, apiBase: settings.apiBaseUrl, scopes };
  const consentApp: WahooApp = { ...app, apiBase: settings.authorizeBaseUrl };
  const tokenApp: WahooApp = { ...app, apiBase: settings.tokenBaseUrl };
  const now = options.now ?? Date.now;
  const context: HttpContext = { provider: PROVIDER, fetch: options.fetch ?? globalThis.fetch, now, timeoutMs: options.timeoutMs ?? 30_000, rateLimitFloorMs: 60_000, ...(options.spend && { spend: options.spend }) };
  const pageSize = options.pageSize ?? WAHOO_PAGE_SIZE;
  const gauge = new WahooRateGauge();
  const refreshes = new Serializer();
  const clientFor = (tokens: ProviderTokens) => new WahooClient(context, app, { key: tokens.access_token, keeper: memoryKeeper(tokens), refresh: false }, refreshes, gauge);
  /** The day's budget is spent when the first of Wahoo's three remaining counts is 0. */
  const dailySpent = () => (gauge.last?.remaining[0] ?? 1) <= 0;
  const call = <T>(work: () => Promise<T>) => translated(work, dailySpent);

  return {
    provider: PROVIDER,

    authorizationUrl({ redirectUri, state, signIn }) {
      const pkce = newPkcePair();
      // A sign-in also asks for `email` (GET /v1/user then carries it): an account is created with it.
      const asked = signIn ? { ...consentApp, scopes: `${consentApp.scopes} email` } : consentApp;
      return { url: wahooAuthorizeUrl(asked, { redirectUri, state, challenge: pkce.challenge }), codeVerifier: pkce.verifier };
    },

    exchangeCode: ({ code, redirectUri, codeVerifier }) => call(async () => {
      gauge.check(now());
      const tokens = await exchangeWahooCode(context, tokenApp, { code, redirectUri, ...(codeVerifier !== null && { verifier: codeVerifier }) });
      const user = await clientFor(tokens).user();
      return { ...tokens, externalUserId: user.id || null, profile: { email: user.email, firstName: user.first, lastName: user.last } };
    }),

    refresh: (tokens) => call(async () => {
      if (!tokens.refresh_token) throw new ProviderCallError(PROVIDER, 'unauthorized', 'wahoo: no refresh token stored');
      gauge.check(now());
      return refreshWahooTokens(context, tokenApp, tokens.refresh_token);
    }),

    identity: (tokens) => call(async () => (await clientFor(tokens).user()).id),

    listHistory: (tokens, { cursor, oldest }) => call(async (): Promise<HistoryPage> => {
      const page = cursor === null ? 1 : Number(cursor);
      const result = await clientFor(tokens).workouts(page, pageSize);
      const activities: RemoteActivity[] = [];
      let reachedOldest = false;
      for (const workout of result.workouts) {
        const start = Date.parse(workout.starts);
        if (start < oldest) reachedOldest = true;
        if (workout.summary?.fileUrl) activities.push({ id: workout.id, start, file: workout.summary.fileUrl });
      }
      const exhausted = result.workouts.length === 0 || page * result.perPage >= result.total || reachedOldest;
      return { activities, next: exhausted ? null : String(page + 1) };
    }),

    download: (tokens, activity) => call(async () => {
      if (activity.file === null) return null;
      try {
        return await clientFor(tokens).downloadFile(activity.file);
      } catch (error) {
        if (error instanceof ProviderCallError && (error.status === 403 || error.status === 404)) return null; // the file is gone
        throw error;
      }
    }),

    parsePush(request: PushRequest): PushItem[] {
      let body: unknown;
      try {
        body = JSON.parse(Buffer.from(request.body).toString('utf8'));
      } catch {
        throw new PushRejected(PROVIDER, 'body is not JSON');
      }
      const parsed = parseWahooWebhook(body, settings.pushSecret ?? '');
      if (parsed.kind === 'ignored') {
        if (parsed.reason.startsWith('webhook_token')) throw new PushRejected(PROVIDER, parsed.reason);
        return [{ kind: 'ignored', reason: parsed.reason }];
      }
      if (parsed.summary.fileUrl === null) return [{ kind: 'ignored', reason: `workout summary ${parsed.summary.id} has no file` }];
      const workoutId = parsed.workout?.id ?? `summary-${parsed.summary.id}`;
      const start = parsed.workout ? Date.parse(parsed.workout.starts) : now();
      return [{ kind: 'activity', externalUserId: parsed.wahooUserId, activity: { id: workoutId, start, file: parsed.summary.fileUrl } }];
    },

    dailies: (tokens, { oldest, newest }) => call(async () => {
      const readAt = now();
      const today = new Date(readAt).toISOString().slice(0, 10);
      if (today < oldest || today > newest) return [];
      return wahooDailiesOf(await clientFor(tokens).user(), readAt).filter(inRange);
    }),

    revoke: (tokens) => call(() => clientFor(tokens).revoke()),
  };
}
