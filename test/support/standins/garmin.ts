/**
 * A Garmin Connect Developer Program stand-in speaking the documented protocol (shared/spec/providers.md
 * §1 and §4 "Garmin"), for tests of the integration that a real deployment runs:
 *
 * - OAuth 2.0 with PKCE: `GET /oauth2Confirm` (S256 only; the user set by `approveAs` consents at once and
 *   is redirected back with a code), `POST /di-oauth2-service/oauth/token` (form body; codes single-use,
 *   the verifier must match; access 24 h, refresh ≈ 90 d, a refresh rotates both and the old refresh
 *   token dies — assume: single use, Garmin does not say).
 * - Wellness API under `/wellness-api/rest/`: `user/id`, `user/permissions`, `DELETE user/registration`
 *   (204, then a `deregistrations` push and 403 for the token), backfill (202 then pushes/pings; ≤ 30 d
 *   for activities, ≤ 90 d for Health types, 409 on a repeat, 403 without HISTORICAL_DATA_EXPORT), pulls
 *   (≤ 24 h by upload time, Unix seconds — milliseconds → 400 `{errorMessage}`), `activityFile` (served
 *   once, then 410; 410 after 24 h too).
 * - Notifications queued and POSTed to `notificationUrl` by `deliver()` with the `garmin-client-id`
 *   header; a non-200, or no answer within `answerWithinMs` (Garmin: 30 s), keeps the body for the next
 *   `deliver()` (Garmin re-sends with back-off).
 * - Rate limits: partner calls per minute (evaluation 100, production 3,000; fixed windows here, Garmin's
 *   are rolling; Garmin publishes no numbers for pull endpoints — assume the Training API's partner
 *   figures apply to every call, as one integrator budgets 100/min [OW]), backfilled days per minute (100 / 10,000), Training API calls per user per day
 *   (200 / 1,000); excess → 429 with `{errorMessage}` and, only when `retryAfter` is set, `Retry-After`
 *   (Garmin documents none). 412 when a call needs a permission the user withdrew.
 *
 * Not here: the Training API's workout routes (mounted through `extraRoutes`; `userFor` authorizes them).
 */
import { randomBytes } from 'node:crypto';
import { s256 } from '../../../engine/integrations/pkce.js';
import { bearerOf, FakeClock, formOf, postJson, RateWindows, startStandin, type Reply, type Routes, type Standin, type StandinRequest } from './standin-core.js';

export interface GarminActivity {
  summaryId: string;
  activityId: string;
  activityType: string;
  startTimeInSeconds: number;
  durationInSeconds: number;
  /** When the device uploaded it, Unix s (pulls select by this). */
  uploadTimeInSeconds: number;
  fit: Uint8Array;
}

export interface GarminUser {
  userId: string;
  permissions: string[];
  activities: GarminActivity[];
  /** Health API records by type (dailies, sleeps, bodyComps, hrv), as Garmin sends them. */
  health: Record<string, Record<string, unknown>[]>;
  registered: boolean;
}

export interface GarminStandinOptions {
  clientId?: string;
  clientSecret?: string;
  clock?: FakeClock;
  quota?: 'evaluation' | 'production';
  /** Seconds to put in Retry-After on a 429 (Garmin documents none; default: no header). */
  retryAfter?: number;
  /** How long a notification receiver may take to answer before the delivery counts as failed; default 30 s. */
  answerWithinMs?: number;
  extraRoutes?: Routes;
}

interface TokenGrant {
  userId: string;
  expiresAt: number;
}

const DAY_S = 86_400;
const ACCESS_S = DAY_S;
const REFRESH_S = 7_776_000;
const ACTIVITY_TYPES = new Set(['activities', 'activityDetails', 'moveiq']);
const HEALTH_TYPES = new Set(['dailies', 'sleeps', 'bodyComps', 'hrv']);
const QUOTAS = {
  evaluation: { perMinute: 100, daysPerMinute: 100, trainingPerUserDay: 200 },
  production: { perMinute: 3000, daysPerMinute: 10_000, trainingPerUserDay: 1000 },
};

export type GarminStandin = Awaited<ReturnType<typeof startGarminStandin>>;

export async function startGarminStandin(options: GarminStandinOptions = {}) {
  const clientId = options.clientId ?? 'garmin-client';
  const clientSecret = options.clientSecret ?? 'garmin-secret';
  const clock = options.clock ?? new FakeClock();
  const quota = QUOTAS[options.quota ?? 'production'];
  const users = new Map<string, GarminUser>();
  const codes = new Map<string, { userId: string; challenge: string; redirectUri: string | null; expiresAt: number; used: boolean }>();
  const accessTokens = new Map<string, TokenGrant>();
  const refreshTokens = new Map<string, TokenGrant & { used: boolean }>();
  const backfills = new Set<string>();
  const files = new Map<string, { userId: string; summaryId: string; token: string; issuedAt: number; downloads: number }>();
  const pullTokens = new Set<string>();
  const pending: Record<string, unknown>[] = [];
  const partner = new RateWindows([{ name: 'minute', limit: quota.perMinute, ms: 60_000 }]);
  const backfillDays = new RateWindows([{ name: 'minute', limit: quota.daysPerMinute, ms: 60_000 }]);
  const training = new Map<string, RateWindows>();
  let consenting: string | null = null;
  let notificationUrl: string | null = null;

  const now = () => clock.now();
  const nowS = () => Math.floor(clock.now() / 1000);
  const token = (prefix: string) => `${prefix}-${randomBytes(12).toString('hex')}`;
  const error = (status: number, message: string, headers?: Record<string, string>): Reply => ({ status, body: { errorMessage: message }, ...(headers && { headers }) });
  const tooMany = (): Reply => error(429, 'Rate limit exceeded', options.retryAfter === undefined ? undefined : { 'retry-after': String(options.retryAfter) });

  function issue(userId: string) {
    const access = token('gat');
    const refresh = token('grt');
    accessTokens.set(access, { userId, expiresAt: now() + ACCESS_S * 1000 });
    refreshTokens.set(refresh, { userId, expiresAt: now() + REFRESH_S * 1000, used: false });
    return { access_token: access, token_type: 'bearer', expires_in: ACCESS_S, refresh_token: refresh, refresh_token_expires_in: REFRESH_S, scope: 'PARTNER_WRITE PARTNER_READ CONNECT_READ CONNECT_WRITE', jti: token('jti') };
  }

  /** The user behind a request's Bearer token, or the error answer (401 unknown/expired, 403 deregistered). */
  function userFor(request: StandinRequest): GarminUser | Reply {
    const grant = accessTokens.get(bearerOf(request) ?? '');
    if (!grant || grant.expiresAt <= now()) return error(401, 'Unauthorized: unknown or expired token');
    const user = users.get(grant.userId);
    if (!user || !user.registered) return error(403, 'Forbidden: user is not registered with this partner');
    return user;
  }
  const isReply = (value: GarminUser | Reply): value is Reply => 'status' in value;

  function secondsWindow(request: StandinRequest, startName: string, endName: string, maxSeconds: number): { start: number; end: number } | Reply {
    const start = Number(request.query.get(startName));
    const end = Number(request.query.get(endName));
    if (!Number.isInteger(start) || !Number.isInteger(end)) return error(400, `${startName} and ${endName} are required`);
    if (start > 10_000_000_000 || end > 10_000_000_000) return error(400, `${startName}/${endName} must be in seconds, not milliseconds`);
    if (end <= start || end - start > maxSeconds) return error(400, `time range must be at most ${maxSeconds} seconds`);
    return { start, end };
  }

  function queueActivityFiles(user: GarminUser, activities: GarminActivity[]): void {
    if (activities.length === 0) return;
    pending.push({
      activityFiles: activities.map((activity) => {
        const id = token('file');
        const fileToken = token('ft');
        files.set(id, { userId: user.userId, summaryId: activity.summaryId, token: fileToken, issuedAt: now(), downloads: 0 });
        return {
          userId: user.userId, summaryId: activity.summaryId, fileType: 'FIT', activityId: activity.activityId,
          startTimeInSeconds: activity.startTimeInSeconds, callbackURL: `${standin.baseUrl}/wellness-api/rest/activityFile?id=${id}&token=${fileToken}`,
        };
      }),
    });
  }

  const routes: Routes = {
    'GET /oauth2Confirm': (request) => {
      const q = request.query;
      if (q.get('client_id') !== clientId) return { status: 400, body: 'unknown client_id' };
      if (q.get('response_type') !== 'code') return { status: 400, body: 'response_type must be code' };
      if (q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge')) return { status: 400, body: 'PKCE with S256 is required' };
      const redirectUri = q.get('redirect_uri');
      if (!redirectUri) return { status: 400, body: 'stand-in: redirect_uri needed (the portal-registered one is not modelled)' };
      if (consenting === null) return { status: 400, body: 'stand-in: call approveAs(userId) first' };
      const code = token('code');
      codes.set(code, { userId: consenting, challenge: q.get('code_challenge')!, redirectUri, expiresAt: now() + 600_000, used: false });
      const back = new URL(redirectUri);
      back.searchParams.set('code', code);
      if (q.get('state')) back.searchParams.set('state', q.get('state')!);
      return { status: 302, headers: { location: back.toString() } };
    },

    'POST /di-oauth2-service/oauth/token': (request) => {
      const form = formOf(request);
      if (form.get('client_id') !== clientId || form.get('client_secret') !== clientSecret) return { status: 401, body: { error: 'invalid_client' } };
      if (form.get('grant_type') === 'authorization_code') {
        const code = codes.get(form.get('code') ?? '');
        if (!code || code.used || code.expiresAt <= now()) return { status: 400, body: { error: 'invalid_grant', error_description: 'code unknown, used or expired' } };
        code.used = true; // single use, even when the rest of the request is wrong
        if (s256(form.get('code_verifier') ?? '') !== code.challenge) return { status: 400, body: { error: 'invalid_grant', error_description: 'code_verifier does not match' } };
        if (code.redirectUri !== null && form.get('redirect_uri') !== code.redirectUri) return { status: 400, body: { error: 'invalid_grant', error_description: 'redirect_uri differs' } };
        return { status: 200, body: issue(code.userId) };
      }
      if (form.get('grant_type') === 'refresh_token') {
        const grant = refreshTokens.get(form.get('refresh_token') ?? '');
        if (!grant || grant.used || grant.expiresAt <= now() || !users.get(grant.userId)?.registered) return { status: 400, body: { error: 'invalid_grant' } };
        grant.used = true;
        return { status: 200, body: issue(grant.userId) };
      }
      return { status: 400, body: { error: 'unsupported_grant_type' } };
    },

    'GET /wellness-api/rest/user/id': (request) => {
      const user = userFor(request);
      return isReply(user) ? user : { status: 200, body: { userId: user.userId } };
    },

    'GET /wellness-api/rest/user/permissions': (request) => {
      const user = userFor(request);
      return isReply(user) ? user : { status: 200, body: user.permissions };
    },

    'DELETE /wellness-api/rest/user/registration': (request) => {
      const user = userFor(request);
      if (isReply(user)) return user;
      user.registered = false;
      pending.push({ deregistrations: [{ userId: user.userId }] });
      return { status: 204 };
    },

    'GET /wellness-api/rest/backfill/:type': (request) => {
      const user = userFor(request);
      if (isReply(user)) return user;
      const type = request.params.type!;
      const health = HEALTH_TYPES.has(type);
      if (!health && !ACTIVITY_TYPES.has(type)) return error(400, `unknown summary type ${type}`);
      const window = secondsWindow(request, 'summaryStartTimeInSeconds', 'summaryEndTimeInSeconds', (health ? 90 : 30) * DAY_S);
      if ('status' in window) return window;
      if (!user.permissions.includes('HISTORICAL_DATA_EXPORT')) return error(403, 'HISTORICAL_DATA_EXPORT permission is required');
      const key = `${user.userId}:${type}:${window.start}:${window.end}`;
      if (backfills.has(key)) return error(409, 'Duplicate backfill request');
      for (let day = 0; day < Math.ceil((window.end - window.start) / DAY_S); day++) {
        if (!backfillDays.take(now()).allowed) return tooMany();
      }
      backfills.add(key);
      if (type === 'activities') {
        queueActivityFiles(user, user.activities.filter((activity) => activity.startTimeInSeconds >= window.start && activity.startTimeInSeconds < window.end));
      } else if (health) {
        const records = (user.health[type] ?? []).filter((record) => inWindow(record, window));
        if (records.length > 0) pending.push({ [type]: records.map((record) => ({ userId: user.userId, ...record })) });
      }
      return { status: 202 };
    },

    'GET /wellness-api/rest/activityFile': (request) => {
      const user = userFor(request);
      if (isReply(user)) return user;
      const file = files.get(request.query.get('id') ?? '');
      if (!file || file.token !== request.query.get('token') || file.userId !== user.userId) return error(404, 'no such file');
      if (!user.permissions.includes('ACTIVITY_EXPORT')) return error(412, 'ACTIVITY_EXPORT permission is required');
      file.downloads += 1;
      if (file.downloads > 1 || now() - file.issuedAt > DAY_S * 1000) return error(410, 'Gone: the file was already downloaded or its URL expired');
      const activity = user.activities.find((candidate) => candidate.summaryId === file.summaryId)!;
      return { status: 200, body: Buffer.from(activity.fit), headers: { 'content-type': 'application/octet-stream' } };
    },

    'GET /wellness-api/rest/:type': (request) => {
      const user = userFor(request);
      if (isReply(user)) return user;
      const type = request.params.type!;
      if (type !== 'activities' && !HEALTH_TYPES.has(type)) return error(404, `unknown summary type ${type}`);
      const pullToken = request.query.get('token');
      if (pullToken !== null && !pullTokens.has(pullToken)) return error(400, 'invalid pull token');
      const window = secondsWindow(request, 'uploadStartTimeInSeconds', 'uploadEndTimeInSeconds', DAY_S);
      if ('status' in window) return window;
      const needs = type === 'activities' ? 'ACTIVITY_EXPORT' : 'HEALTH_EXPORT';
      if (!user.permissions.includes(needs)) return error(412, `${needs} permission is required`);
      if (type === 'activities') {
        const uploaded = user.activities.filter((activity) => activity.uploadTimeInSeconds >= window.start && activity.uploadTimeInSeconds < window.end);
        return { status: 200, body: uploaded.map(({ fit: _fit, uploadTimeInSeconds: _upload, ...summary }) => ({ userId: user.userId, ...summary })) };
      }
      return { status: 200, body: (user.health[type] ?? []).filter((record) => inWindow(record, window)).map((record) => ({ userId: user.userId, ...record })) };
    },
  };

  const standin: Standin = await startStandin({
    routes,
    clock,
    ...(options.extraRoutes && { extraRoutes: options.extraRoutes }),
    gate: (request) => {
      if (!partner.take(now()).allowed) return tooMany();
      if (/^\/(training-api|workoutportal)\//.test(request.path)) {
        const grant = accessTokens.get(bearerOf(request) ?? '');
        if (grant) {
          const perUser = training.get(grant.userId) ?? new RateWindows([{ name: 'day', limit: quota.trainingPerUserDay, ms: DAY_S * 1000 }]);
          training.set(grant.userId, perUser);
          if (!perUser.take(now()).allowed) return tooMany();
          if (!users.get(grant.userId)?.permissions.includes('WORKOUT_IMPORT')) return error(412, 'WORKOUT_IMPORT permission is required');
        }
      }
      return null;
    },
  });

  return {
    ...standin,
    clientId,
    clientSecret,
    /** The user who consents on the next authorize request. */
    approveAs(userId: string): void {
      consenting = userId;
    },
    addUser(userId: string, init: Partial<Omit<GarminUser, 'userId'>> = {}): GarminUser {
      const user: GarminUser = { userId, permissions: ['ACTIVITY_EXPORT', 'HEALTH_EXPORT', 'WORKOUT_IMPORT', 'HISTORICAL_DATA_EXPORT'], activities: [], health: {}, registered: true, ...init };
      users.set(userId, user);
      return user;
    },
    user(userId: string): GarminUser {
      const user = users.get(userId);
      if (!user) throw new Error(`garmin stand-in: no user ${userId}`);
      return user;
    },
    /** The user behind a request's token, for extra routes (Training API); an answer when refused. */
    userFor,
    setNotificationUrl(url: string): void {
      notificationUrl = url;
    },
    /** Queues a notification body as Garmin would send it (several users may share one). */
    queue(body: Record<string, unknown>): void {
      pending.push(body);
    },
    /** Queues an activityFiles ping for these activities of a user (as after an upload). */
    pingActivityFiles(userId: string, summaryIds: string[]): void {
      const user = users.get(userId)!;
      queueActivityFiles(user, user.activities.filter((activity) => summaryIds.includes(activity.summaryId)));
    },
    /** Queues a ping for a summary type: a callback URL over the last 24 h of uploads, with a pull token. */
    ping(userId: string, type: string): void {
      const pullToken = token('pull');
      pullTokens.add(pullToken);
      pending.push({ [type]: [{ userId, callbackURL: `${standin.baseUrl}/wellness-api/rest/${type}?uploadStartTimeInSeconds=${nowS() - DAY_S}&uploadEndTimeInSeconds=${nowS()}&token=${pullToken}` }] });
    },
    /** The user withdraws permissions in Garmin Connect: a `userPermissionsChange` push, then 412 where they are needed. */
    changePermissions(userId: string, permissions: string[]): void {
      users.get(userId)!.permissions = permissions;
      pending.push({ userPermissionsChange: [{ userId, permissions, changeTimeInSeconds: nowS() }] });
    },
    /**
     * Garmin re-sends an old `userPermissionsChange` (a delivery that failed earlier: re-sent for up to 7
     * days), dated `changeTimeInSeconds`; what the user grants now is left alone.
     */
    resendPermissionsChange(userId: string, permissions: string[], changeTimeInSeconds: number): void {
      pending.push({ userPermissionsChange: [{ userId, permissions, changeTimeInSeconds }] });
    },
    /** The user disconnects in Garmin Connect: tokens refused (403) and a `deregistrations` push. */
    deregisterInGarmin(userId: string): void {
      users.get(userId)!.registered = false;
      pending.push({ deregistrations: [{ userId }] });
    },
    /** Notifications waiting for `deliver()`. */
    pending,
    /** POSTs every queued body to the notification URL; a non-200 keeps it for the next call. Answers the statuses. */
    async deliver(): Promise<number[]> {
      if (notificationUrl === null) throw new Error('garmin stand-in: setNotificationUrl first');
      const bodies = pending.splice(0, pending.length);
      const statuses: number[] = [];
      for (const body of bodies) {
        const status = await postJson(notificationUrl, body, { 'garmin-client-id': clientId }, options.answerWithinMs ?? 30_000);
        statuses.push(status);
        if (status !== 200) pending.push(body);
      }
      return statuses;
    },
  };
}

function inWindow(record: Record<string, unknown>, window: { start: number; end: number }): boolean {
  const at = Number(record.startTimeInSeconds ?? record.measurementTimeInSeconds);
  return at >= window.start && at < window.end;
}

/** A few bytes standing for an activity's FIT file (distinct per summaryId); real FIT files come from test/fixtures. */
export function fakeFit(summaryId: string): Uint8Array {
  return new TextEncoder().encode(`FIT:${summaryId}`);
}
