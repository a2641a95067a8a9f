/**
 * Garmin Connect behind the framework's ProviderAdapter (provider.ts), wrapping the protocol client:
 *
 * - Connect: PKCE S256 consent URL, code exchange, the Garmin `userId` as the external id and the
 *   user's permissions (`user/permissions`) as the granted scope (Garmin's `scope` is a fixed app string).
 * - History: Garmin delivers history asynchronously. Each page is one ≤ 30-day window, newest first,
 *   requested for activities and the Health API types we map (dailies, sleeps, bodyComps, hrv); 202 and
 *   409 (already requested) both count as loaded (`deferred`). The data then arrives as pushes and
 *   activityFiles pings. Without HISTORICAL_DATA_EXPORT (403) the page says history is `withheld` (the
 *   framework keeps its place and resumes once granted); when Garmin refuses an old window (400: assume
 *   Garmin backfills only about 30 days, providers.md §1 "assume 30 days"), the walk ends.
 * - Pushes: checked by the `garmin-client-id` header (no signature). activityFiles pings become activities
 *   whose file is the callback URL (one download; a repeat 410 → null, and the framework's id check
 *   already skips a stored one); Health records become dailies; deregistrations deauthorize;
 *   `userPermissionsChange` becomes a permissions item: the cue to read `user/permissions` again, because Garmin
 *   signs no push (push-job.ts; a stale change is ignored). Activity
 *   summaries without a file and pings for summary types are ignored: configure Garmin to PUSH Health
 *   types (parsePush has no token to pull a ping with).
 * - Revoke: `DELETE user/registration` (204).
 *
 * Tokens are refreshed by the framework (connections.ts, 10 min before expiry ≥ Garmin's 600 s), so the
 * client here never refreshes. Kept honest by test/engine/integrations/garmin-adapter.test.ts.
 */
import type { ProviderTokens } from '../credentials.js';
import { inRange } from '../daily-import.js';
import { newPkcePair } from '../pkce.js';
import { ProviderCallError, translated } from '../provider-call-error.js';
import type { Fetch, HttpContext } from '../provider-http.js';
import type { SpendBudget } from '../provider-budget.js';
import { PushRejected, type HistoryPage, type ProviderAdapter, type ProviderSettings, type PushItem, type PushRequest } from '../provider.js';
import { memoryKeeper, Serializer } from '../token-keeper.js';
import { GARMIN_RATE_LIMIT_FLOOR_MS, GarminClient, type GarminBackfillType } from './client.js';
import { garminDailiesOf } from './dailies.js';
import { onWellnessApi, type GarminApp, type GarminEndpoints } from './endpoints.js';
import { isFromGarmin, parseGarminNotifications, type GarminNotice } from './notifications.js';
import { exchangeGarminCode, garminAuthorizeUrl, refreshGarminTokens } from './oauth.js';
import { ACTIVITY_BACKFILL_WINDOW_SECONDS, toUnixSeconds } from './windows.js';

const PROVIDER = 'garmin_connect' as const;
/** History types requested per window: activities (files come as pings) and the Health types dailies.ts maps. */
const BACKFILL_TYPES: readonly GarminBackfillType[] = ['activities', 'dailies', 'sleeps', 'bodyComps', 'hrv'];

export interface AdapterOptions {
  fetch?: Fetch;
  now?: () => number;
  timeoutMs?: number;
  spend?: SpendBudget;
}

export function garminAdapter(settings: ProviderSettings, options: AdapterOptions = {}): ProviderAdapter {
  const app: GarminApp = {
    clientId: settings.clientId,
    clientSecret: settings.clientSecret,
    endpoints: { connectBase: settings.authorizeBaseUrl, authBase: settings.tokenBaseUrl, apiBase: settings.apiBaseUrl },
  };
  const context: HttpContext = {
    provider: PROVIDER, fetch: options.fetch ?? globalThis.fetch, now: options.now ?? Date.now,
    timeoutMs: options.timeoutMs ?? 30_000, rateLimitFloorMs: GARMIN_RATE_LIMIT_FLOOR_MS, ...(options.spend && { spend: options.spend }),
  };
  const refreshes = new Serializer();
  const clientFor = (tokens: ProviderTokens) => new GarminClient(context, app, { key: tokens.access_token, keeper: memoryKeeper(tokens), refresh: false }, refreshes);

  return {
    provider: PROVIDER,

    authorizationUrl({ redirectUri, state }) {
      const pkce = newPkcePair();
      return { url: garminAuthorizeUrl(app, { challenge: pkce.challenge, state, redirectUri }), codeVerifier: pkce.verifier };
    },

    exchangeCode: ({ code, redirectUri, codeVerifier }) => translated(async () => {
      if (codeVerifier === null) throw new ProviderCallError(PROVIDER, 'rejected', 'garmin: the code exchange needs the PKCE verifier');
      const tokens = await exchangeGarminCode(context, app, { code, verifier: codeVerifier, redirectUri });
      const client = clientFor(tokens);
      const [externalUserId, permissions] = await Promise.all([client.userId(), client.permissions()]);
      // No profile: the Wellness API documents only the user id (`user/id`, stable across reconnects
      // [GAR-pkce][RADAR][OW]), no name or email; a sign-in through Garmin creates an account without them.
      return { ...tokens, scope: permissions.join(' '), externalUserId };
    }),

    refresh: (tokens) => translated(async () => {
      if (!tokens.refresh_token) throw new ProviderCallError(PROVIDER, 'unauthorized', 'garmin: no refresh token stored');
      const fresh = await refreshGarminTokens(context, app, tokens.refresh_token);
      return { ...fresh, scope: tokens.scope }; // keep the user's permissions; Garmin's scope string is the app's
    }),

    identity: (tokens) => translated(() => clientFor(tokens).userId()),
    permissions: (tokens) => translated(() => clientFor(tokens).permissions()),

    listHistory: (tokens, { cursor, oldest, newest }) => translated(async (): Promise<HistoryPage> => {
      const oldestS = toUnixSeconds(oldest);
      const end = cursor === null ? toUnixSeconds(newest) : Number(cursor);
      if (!Number.isInteger(end) || end <= oldestS) return { activities: [], next: null, deferred: true };
      const window = { start: Math.max(oldestS, end - ACTIVITY_BACKFILL_WINDOW_SECONDS), end };
      const client = clientFor(tokens);
      for (const type of BACKFILL_TYPES) {
        try {
          await client.requestBackfill(type, window); // 'accepted' or 'already_requested': both mean on its way
        } catch (error) {
          // No HISTORICAL_DATA_EXPORT (403): history is withheld until the user grants it; the framework keeps its place.
          if (error instanceof ProviderCallError && error.kind === 'not_permitted') {
            return { activities: [], next: null, deferred: true, withheld: 'garmin: history older than the connection is not imported (HISTORICAL_DATA_EXPORT not granted)' };
          }
          // A window Garmin will not serve (400): history ends here.
          if (error instanceof ProviderCallError && error.kind === 'rejected') return { activities: [], next: null, deferred: true };
          throw error;
        }
      }
      return { activities: [], next: window.start > oldestS ? String(window.start) : null, deferred: true };
    }),

    download: (tokens, activity) => translated(async () => {
      if (activity.file === null) return null;
      const download = await clientFor(tokens).downloadActivityFile(activity.file);
      return download.kind === 'file' ? download.bytes : null; // 410: served once already, or older than 24 h
    }),

    parsePush(request: PushRequest): PushItem[] {
      if (!isFromGarmin(request.headers['garmin-client-id'], settings.clientId)) throw new PushRejected(PROVIDER, 'garmin-client-id does not name our app');
      let body: unknown;
      try {
        body = JSON.parse(Buffer.from(request.body).toString('utf8'));
      } catch {
        throw new PushRejected(PROVIDER, 'body is not JSON');
      }
      return parseGarminNotifications(body).notices.map((notice) => pushItemOf(notice, app.endpoints));
    },

    revoke: (tokens) => translated(() => clientFor(tokens).deregister()),
  };
}

function pushItemOf(notice: GarminNotice, endpoints: GarminEndpoints): PushItem {
  switch (notice.kind) {
    case 'activity_file':
      if (!onWellnessApi(endpoints, notice.callbackUrl)) return { kind: 'ignored', reason: `activityFiles ${notice.summaryId}: its callbackURL is not on Garmin's Wellness API` };
      return {
        kind: 'activity', externalUserId: notice.userId,
        activity: { id: notice.summaryId, start: (notice.startTimeInSeconds ?? 0) * 1000, file: notice.callbackUrl },
      };
    case 'push': {
      const dailies = garminDailiesOf(notice.type, notice.record).filter(inRange);
      if (dailies.length > 0) return { kind: 'dailies', externalUserId: notice.userId, dailies };
      return { kind: 'ignored', reason: `${notice.type} ${notice.summaryId}: nothing we import (an activity's file comes as an activityFiles ping)` };
    }
    case 'deregistration':
      return { kind: 'deauthorized', externalUserId: notice.userId };
    case 'permissions':
      return {
        kind: 'permissions', externalUserId: notice.userId,
        changedAt: notice.changeTimeInSeconds === null ? null : notice.changeTimeInSeconds * 1000,
      };
    case 'ping':
      return { kind: 'ignored', reason: `a ${notice.type} ping: configure Garmin to push this summary type` };
  }
}
