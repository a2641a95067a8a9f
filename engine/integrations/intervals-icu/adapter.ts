/**
 * intervals.icu (shared/spec/providers.md §2): OAuth code flow without PKCE or refresh (tokens last until
 * revoked), the athlete's activity list paged newest first by moving `newest` back, the original file
 * (gzip sniffed by its magic bytes), the `secret` webhook envelope, wellness as dailies, and
 * `disconnect-app` to revoke. Athlete id `0` means the token's owner. HTTP goes through provider-http.ts
 * like every provider's (a 429 without `Retry-After` names no time: the framework backs off, the limit
 * being per second); its ProviderCallErrors become the framework's errors at this edge (`translated`).
 *
 * Facts marked [unverified] in providers.md are repeated where they are relied on. Kept honest by
 * test/engine/integrations/intervals-icu.test.ts against test/support/standins/intervals-icu.ts.
 */
import { timingSafeEqual } from 'node:crypto';
import type { ProviderTokens } from '../credentials.js';
import { ProviderCallError, translated } from '../provider-call-error.js';
import type { SpendBudget } from '../provider-budget.js';
import { failure, formBody, maybeGunzip, PROVIDER_FILE_MAX_BYTES, PROVIDER_TIMEOUT_MS, readBody, readJson, send, TOKEN_ANSWER_MAX_BYTES, type HttpContext } from '../provider-http.js';
import {
  PushRejected, type AuthorizationStart, type HistoryPage, type ProviderAdapter, type ProviderSettings,
  type PushItem, type PushRequest, type RemoteActivity, type RemoteDaily,
} from '../provider.js';

const PROVIDER = 'intervals_icu' as const;
/** What we ask for: activities and wellness to read, the calendar to write planned workouts into. The user may untick some. */
export const INTERVALS_SCOPE = 'ACTIVITY:READ,WELLNESS:READ,CALENDAR:WRITE';
/** Activities per listing page: the listing is cheap and one request, so a page carries many. */
export const LIST_LIMIT = 200;

interface ListedActivity {
  id?: string | number;
  start_date?: string | null;
  start_date_local?: string | null;
  source?: string | null;
  type?: string | null;
}

/** The resumable place in the list: the window's `newest` (local ISO date-time) and the ids already seen at it. */
interface Cursor {
  newest: string;
  seen: string[];
}

export function intervalsIcuAdapter(settings: ProviderSettings, options: { listLimit?: number; spend?: SpendBudget } = {}): ProviderAdapter {
  const api = settings.apiBaseUrl;
  const listLimit = options.listLimit ?? LIST_LIMIT;
  const bearer = (tokens: ProviderTokens) => ({ authorization: `Bearer ${tokens.access_token}` });
  // No floor: a 429 without Retry-After leaves the wait to the framework's back-off (10 requests/s per IP [ICU-rl]).
  // fetch is looked up per call, as before: a test may stub the global after the adapter is built.
  const context: HttpContext = { provider: PROVIDER, fetch: (input, init) => globalThis.fetch(input, init), now: Date.now, timeoutMs: PROVIDER_TIMEOUT_MS, rateLimitFloorMs: null, ...(options.spend && { spend: options.spend }) };
  /** A call whose answer must be JSON (`what` names it in errors); other answers fail as provider-http.ts maps them. */
  const getJson = async (url: string, what: string, init: RequestInit, maxBytes?: number): Promise<unknown> => {
    const response = await send(context, url, init);
    if (!response.ok) throw await failure(context, response, what);
    return readJson(context, response, what, { ...(maxBytes !== undefined && { maxBytes }) });
  };

  return {
    provider: PROVIDER,

    authorizationUrl({ redirectUri, state }): AuthorizationStart {
      const url = new URL('/oauth/authorize', settings.authorizeBaseUrl);
      url.search = new URLSearchParams({ client_id: settings.clientId, redirect_uri: redirectUri, scope: INTERVALS_SCOPE, state, response_type: 'code' }).toString();
      return { url: url.href, codeVerifier: null }; // no PKCE on intervals.icu
    },

    exchangeCode: ({ code, redirectUri }) => translated(async () => {
      // "Exchange within 2 minutes": the callback does it at once.
      const body = (await getJson(`${settings.tokenBaseUrl}/api/oauth/token`, 'intervals_icu code exchange', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: formBody({ client_id: settings.clientId, client_secret: settings.clientSecret, code, redirect_uri: redirectUri }),
      }, TOKEN_ANSWER_MAX_BYTES)) as { access_token?: string; scope?: string; athlete?: { id?: string | number; name?: unknown } } | null;
      if (typeof body?.access_token !== 'string') throw new ProviderCallError(PROVIDER, 'unavailable', 'intervals_icu: token answer without access_token');
      return {
        access_token: body.access_token, refresh_token: null, expires_at: null, refresh_expires_at: null,
        // The granted scope may be narrower than asked (the user can untick scopes).
        scope: body.scope ?? null,
        externalUserId: body.athlete?.id === undefined ? null : String(body.athlete.id),
        // The token answer names the athlete ({id, name} [ICU-oauth]); no email is documented for apps.
        profile: { email: null, firstName: typeof body.athlete?.name === 'string' && body.athlete.name.trim() ? body.athlete.name.trim() : null, lastName: null },
      };
    }),

    async refresh() {
      return null; // no expiry, no refresh token [unverified: tokens last until revoked]
    },

    identity: (tokens) => translated(async () => {
      const body = (await getJson(`${api}/api/v1/athlete/0`, 'intervals_icu GET athlete', { headers: bearer(tokens) })) as { id?: string | number } | null;
      if (body?.id === undefined) throw new ProviderCallError(PROVIDER, 'unavailable', 'intervals_icu: athlete without id');
      return String(body.id);
    }),

    listHistory: (tokens, { cursor, oldest, newest }) => translated(async (): Promise<HistoryPage> => {
      // The first window ends a day after `newest`: local times run up to 14 h ahead of UTC.
      const place: Cursor = cursor ? (JSON.parse(cursor) as Cursor) : { newest: localIso(newest + 86_400_000), seen: [] };
      const url = new URL(`${api}/api/v1/athlete/0/activities`);
      // `oldest` is required; the list is newest first and has no cursor: page by moving `newest` back.
      url.search = new URLSearchParams({ oldest: localIso(oldest).slice(0, 10), newest: place.newest, limit: String(listLimit) }).toString();
      const listed = (await getJson(url.href, 'intervals_icu GET activities', { headers: bearer(tokens) })) as ListedActivity[];
      if (!Array.isArray(listed)) throw new ProviderCallError(PROVIDER, 'unavailable', 'intervals_icu: activity list is not an array');
      const seen = new Set(place.seen);
      const activities: RemoteActivity[] = [];
      for (const item of listed) {
        if (item.id === undefined || !item.start_date_local) continue;
        const id = String(item.id);
        if (seen.has(id)) continue;
        const start = Date.parse(item.start_date ?? `${item.start_date_local}Z`);
        // Strava-synced activities are empty stubs without a file.
        activities.push({ id, start, file: item.source === 'STRAVA' ? null : id });
      }
      if (listed.length < listLimit) return { activities, next: null };
      // The next window ends at the oldest start on this page, inclusive; its ids there are skipped next time.
      const last = listed[listed.length - 1]!.start_date_local!;
      const atLast = listed.filter((item) => item.start_date_local === last).map((item) => String(item.id));
      const next: Cursor = activities.length === 0 && last === place.newest
        ? { newest: localIso(Date.parse(`${last}Z`) - 1000), seen: [] } // a full page at one instant: step past it
        : { newest: last, seen: atLast };
      return { activities, next: JSON.stringify(next) };
    }),

    download: (tokens, activity) => translated(async () => {
      if (activity.file === null) return null;
      const response = await send(context, `${api}/api/v1/activity/${encodeURIComponent(activity.file)}/file`, { headers: bearer(tokens) });
      if (response.status === 404 || response.status === 410) {
        await response.body?.cancel();
        return null; // gone: not an error of the connection
      }
      if (!response.ok) throw await failure(context, response, 'intervals_icu GET activity file');
      // The original file, reportedly gzip-compressed [unverified]: sniff the magic bytes.
      const what = 'intervals_icu GET activity file';
      return maybeGunzip(context, new Uint8Array(await readBody(context, response, what, PROVIDER_FILE_MAX_BYTES)), what);
    }),

    parsePush(request: PushRequest): PushItem[] {
      let envelope: { secret?: unknown; events?: unknown };
      try {
        envelope = JSON.parse(Buffer.from(request.body).toString('utf8')) as typeof envelope;
      } catch {
        throw new PushRejected(PROVIDER, 'body is not JSON');
      }
      // The envelope carries the app's webhook secret; no HMAC [unverified shape].
      if (typeof envelope !== 'object' || envelope === null) throw new PushRejected(PROVIDER, 'body is not a JSON object');
      if (settings.pushSecret === null || typeof envelope.secret !== 'string' || !sameSecret(envelope.secret, settings.pushSecret)) {
        throw new PushRejected(PROVIDER, 'secret does not match');
      }
      if (!Array.isArray(envelope.events)) return [];
      // Every element is checked: a push is input from outside, whatever its secret says.
      return (envelope.events as unknown[]).map((event) => (isObject(event) ? pushItemOf(event as IntervalsEvent) : { kind: 'ignored', reason: 'an event that is not an object' }));
    },

    dailies: (tokens, { oldest, newest }) => translated(async () => {
      const url = new URL(`${api}/api/v1/athlete/0/wellness`);
      url.search = new URLSearchParams({ oldest, newest }).toString();
      const records = (await getJson(url.href, 'intervals_icu GET wellness', { headers: bearer(tokens) })) as WellnessRecord[];
      return Array.isArray(records) ? records.flatMap(dailiesOf) : [];
    }),

    revoke: (tokens) => translated(async () => {
      const response = await send(context, `${api}/api/v1/disconnect-app`, { method: 'DELETE', headers: bearer(tokens) });
      // A token already refused (401/403) has nothing left to revoke. assume: 401 = re-authorize.
      if (!response.ok && response.status !== 401 && response.status !== 403) throw await failure(context, response, 'intervals_icu DELETE disconnect-app');
      await response.body?.cancel();
    }),
  };
}

interface IntervalsEvent {
  athlete_id?: string | number;
  type?: string;
  activity?: ListedActivity;
  records?: WellnessRecord[];
  deauthorized?: boolean;
}

interface WellnessRecord {
  id?: string;
  weight?: number | null;
  restingHR?: number | null;
  hrv?: number | null;
  sleepSecs?: number | null;
  bodyFat?: number | null;
}

function isObject(value: unknown): value is Record<string, any> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function pushItemOf(event: IntervalsEvent): PushItem {
  const externalUserId = String(event.athlete_id ?? '');
  switch (event.type) {
    case 'ACTIVITY_UPLOADED':
    case 'ACTIVITY_ANALYZED':
    case 'ACTIVITY_UPDATED': {
      const activity = event.activity;
      if (!isObject(activity) || activity.id === undefined || typeof activity.start_date_local !== 'string') return { kind: 'ignored', reason: `${event.type} without an activity` };
      const id = String(activity.id);
      const start = Date.parse(typeof activity.start_date === 'string' ? activity.start_date : `${activity.start_date_local}Z`);
      if (!Number.isFinite(start)) return { kind: 'ignored', reason: `${event.type} with an unreadable start` };
      return { kind: 'activity', externalUserId, activity: { id, start, file: activity.source === 'STRAVA' ? null : id } };
    }
    case 'ACTIVITY_DELETED':
      return !isObject(event.activity) || event.activity.id === undefined ? { kind: 'ignored', reason: 'deletion without an id' } : { kind: 'activity_deleted', externalUserId, activityId: String(event.activity.id) };
    case 'APP_SCOPE_CHANGED':
      // `deauthorized: true` with `scope: ""` when the athlete removed the app [unverified].
      return event.deauthorized ? { kind: 'deauthorized', externalUserId } : { kind: 'ignored', reason: 'scope changed' };
    case 'WELLNESS_UPDATED':
      return { kind: 'dailies', externalUserId, dailies: (Array.isArray(event.records) ? event.records : []).filter(isObject).flatMap(dailiesOf) };
    default:
      return { kind: 'ignored', reason: `event type ${String(event.type)}` };
  }
}

/** Wellness fields → daily measures (domain/daily-measures.ts names and units). */
function dailiesOf(record: WellnessRecord): RemoteDaily[] {
  const date = record.id;
  if (typeof date !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(date)) return [];
  const pairs: [string, number | null | undefined][] = [
    ['body_mass', record.weight], ['resting_hr', record.restingHR], ['hrv', record.hrv], ['sleep_duration', record.sleepSecs], ['body_fat_pct', record.bodyFat],
  ];
  return pairs.filter((pair): pair is [string, number] => typeof pair[1] === 'number' && Number.isFinite(pair[1]) && pair[1] >= 0)
    .map(([measure, value]) => ({ date, measure, value }));
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * A local ISO date-time without offset (`2024-05-01T07:30:00`). The list is in the athlete's local time,
 * which we do not know before listing: UTC stands in, and the window's edges overlap by the ids skipped.
 */
function localIso(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19);
}
