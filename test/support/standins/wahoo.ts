/**
 * A Wahoo Cloud API stand-in speaking the documented protocol (shared/spec/providers.md §3 and §4 "Wahoo"):
 *
 * - OAuth 2.0: `GET /oauth/authorize` (the user set by `approveAs` consents at once; PKCE `S256` or
 *   `plain` when a challenge is sent), `POST /oauth/token` with parameters in the query string (a form
 *   body is read too). Codes are single-use; access tokens last 2 h; a refresh returns a new pair and the
 *   old pair is revoked only when the new access token is first used; at most 10 unrevoked tokens per
 *   user (assume: a 400 `{"error":"too_many_unrevoked_tokens"}` — Wahoo documents the limit, not the answer).
 * - API: `GET /v1/user` (decimals as strings; 403 without `user_read`), `GET /v1/workouts?page&per_page`
 *   (newest `starts` first, `total`, `workout_summary` null until done), `GET /v1/workouts/{id}/workout_summary`,
 *   `DELETE /v1/permissions` (every token of the user then answers 401).
 * - FIT files on `/cdn/…`, served without a token; a request that sends an Authorization header is refused
 *   with 400 (assume: as a signed S3/CloudFront URL refuses a second credential).
 * - Webhooks: `workout_summary` bodies with the portal's `webhook_token`, POSTed by `deliver()`; a non-200
 *   is retried 30 min, 4 h, 24 h and 72 h later on the fake clock.
 * - Rate limits per app on API and token calls (sandbox 25 / 5 min, 100 / h, 250 / day; production 200 / 1,000 / 5,000) with
 *   `X-RateLimit-Limit: <day>, <hour>, <5min>`, `X-RateLimit-Remaining` and `X-RateLimit-Reset` (seconds)
 *   on every API answer; past a limit 429, with `Retry-After` only when `retryAfter` is set.
 *
 * Not here: plans and workout creation (mounted through `extraRoutes`; `userFor` authorizes them).
 */
import { randomBytes } from 'node:crypto';
import { s256 } from '../../../engine/integrations/pkce.js';
import { bearerOf, FakeClock, formOf, postJson, RateWindows, startStandin, type Reply, type Routes, type StandinRequest } from './standin-core.js';

export interface WahooWorkoutData {
  id: number;
  /** ISO 8601 instant. */
  starts: string;
  minutes: number;
  name: string;
  workout_type_id: number;
  /** Null until the workout is done (the FIT file then exists). */
  summary: { id: number; distance: string; duration: string; power: string | null; heartRate: string | null; updatedAt: string } | null;
  fit: Uint8Array;
}

export interface WahooUserData {
  id: number;
  email: string;
  /** kg, as Wahoo sends it: a string decimal. */
  weight: string | null;
  height: string | null;
  workouts: WahooWorkoutData[];
}

interface TokenPair {
  access: string;
  refresh: string;
  userId: number;
  scopes: string[];
  expiresAt: number;
  createdAt: number;
  revoked: boolean;
  /** The pair this one replaced: revoked when this access token is first used. */
  previous: TokenPair | null;
}

export interface WahooStandinOptions {
  clientId?: string;
  clientSecret?: string;
  webhookToken?: string;
  clock?: FakeClock;
  quota?: 'sandbox' | 'production';
  /** Also send Retry-After (seconds) on a 429 (Wahoo documents only X-RateLimit-Reset). */
  retryAfter?: boolean;
  extraRoutes?: Routes;
}

const ACCESS_MS = 2 * 3_600_000;
const UNREVOKED_LIFETIME_MS = 60 * 86_400_000;
const MAX_UNREVOKED = 10;
const WEBHOOK_RETRIES_MS = [30 * 60_000, 4 * 3_600_000, 24 * 3_600_000, 72 * 3_600_000];
const QUOTAS = { sandbox: [250, 100, 25], production: [5000, 1000, 200] };

export type WahooStandin = Awaited<ReturnType<typeof startWahooStandin>>;

export async function startWahooStandin(options: WahooStandinOptions = {}) {
  const clientId = options.clientId ?? 'wahoo-client';
  const clientSecret = options.clientSecret ?? 'wahoo-secret';
  const webhookToken = options.webhookToken ?? 'wahoo-webhook-token';
  const clock = options.clock ?? new FakeClock();
  const [day, hour, fiveMinutes] = QUOTAS[options.quota ?? 'production'];
  const limits = new RateWindows([
    { name: 'day', limit: day!, ms: 86_400_000 },
    { name: 'hour', limit: hour!, ms: 3_600_000 },
    { name: '5min', limit: fiveMinutes!, ms: 300_000 },
  ]);
  const users = new Map<number, WahooUserData>();
  const pairs = new Map<string, TokenPair>();
  const byRefresh = new Map<string, TokenPair>();
  const codes = new Map<string, { userId: number; scopes: string[]; redirectUri: string; challenge: string | null; method: string; used: boolean; expiresAt: number }>();
  const files = new Map<string, Uint8Array>();
  const deliveries: { body: Record<string, unknown>; dueAt: number; attempt: number }[] = [];
  let consenting: number | null = null;
  let webhookUrl: string | null = null;
  const readings = new WeakMap<StandinRequest, ReturnType<RateWindows['take']>>();

  const now = () => clock.now();
  const secret = (prefix: string) => `${prefix}-${randomBytes(12).toString('hex')}`;
  const unrevoked = (userId: number) => [...pairs.values()].filter((pair) => pair.userId === userId && !pair.revoked && now() - pair.createdAt < UNREVOKED_LIFETIME_MS).length;

  function issue(userId: number, scopes: string[], previous: TokenPair | null): Reply {
    if (unrevoked(userId) >= MAX_UNREVOKED) return { status: 400, body: { error: 'too_many_unrevoked_tokens', error_description: `Too many unrevoked access tokens (${MAX_UNREVOKED})` } };
    const pair: TokenPair = { access: secret('wat'), refresh: secret('wrt'), userId, scopes, expiresAt: now() + ACCESS_MS, createdAt: now(), revoked: false, previous };
    pairs.set(pair.access, pair);
    byRefresh.set(pair.refresh, pair);
    return { status: 200, body: { access_token: pair.access, token_type: 'Bearer', expires_in: ACCESS_MS / 1000, refresh_token: pair.refresh, scope: scopes.join(' '), created_at: Math.floor(now() / 1000) } };
  }

  /** The user behind a request's token; using a new access token revokes the pair it replaced. */
  function userFor(request: StandinRequest, scope?: string): WahooUserData | Reply {
    const pair = pairs.get(bearerOf(request) ?? '');
    if (!pair || pair.revoked || pair.expiresAt <= now()) return { status: 401, body: { error: 'Unauthorized' } };
    if (pair.previous && !pair.previous.revoked) pair.previous.revoked = true;
    if (scope && !pair.scopes.includes(scope)) return { status: 403, body: { error: `Forbidden: ${scope} scope required` } };
    return users.get(pair.userId)!;
  }
  const isReply = (value: WahooUserData | Reply): value is Reply => 'status' in value;
  const tokenScopes = (request: StandinRequest) => pairs.get(bearerOf(request) ?? '')?.scopes ?? [];

  const summaryJson = (user: WahooUserData, workout: WahooWorkoutData) => workout.summary && {
    id: workout.summary.id,
    ascent_accum: '0.0',
    distance_accum: workout.summary.distance,
    duration_active_accum: workout.summary.duration,
    duration_total_accum: workout.summary.duration,
    power_avg: workout.summary.power,
    heart_rate_avg: workout.summary.heartRate,
    fitness_app_id: null,
    manual: false,
    file: { url: `${standin.baseUrl}/cdn/${user.id}/${workout.id}-${workout.summary.id}.fit` },
    created_at: workout.summary.updatedAt,
    updated_at: workout.summary.updatedAt,
  };
  const workoutJson = (user: WahooUserData, workout: WahooWorkoutData, withSummary = true) => ({
    id: workout.id, starts: workout.starts, minutes: workout.minutes, name: workout.name, plan_id: null,
    workout_token: `token-${workout.id}`, workout_type_id: workout.workout_type_id, created_at: workout.starts, updated_at: workout.starts,
    ...(withSummary && { workout_summary: summaryJson(user, workout) }),
  });
  const paramsOf = (request: StandinRequest) => (request.query.size > 0 ? request.query : formOf(request));

  const routes: Routes = {
    'GET /oauth/authorize': (request) => {
      const q = request.query;
      if (q.get('client_id') !== clientId) return { status: 400, body: 'unknown client_id' };
      if (q.get('response_type') !== 'code' || !q.get('redirect_uri')) return { status: 400, body: 'response_type=code and redirect_uri are required' };
      if (consenting === null) return { status: 400, body: 'stand-in: call approveAs(userId) first' };
      const code = secret('code');
      const scopes = (q.get('scope') ?? '').split(' ').filter(Boolean);
      codes.set(code, { userId: consenting, scopes, redirectUri: q.get('redirect_uri')!, challenge: q.get('code_challenge'), method: q.get('code_challenge_method') ?? 'plain', used: false, expiresAt: now() + 600_000 });
      const back = new URL(q.get('redirect_uri')!);
      back.searchParams.set('code', code);
      if (q.get('state')) back.searchParams.set('state', q.get('state')!);
      return { status: 302, headers: { location: back.toString() } };
    },

    'POST /oauth/token': (request) => {
      const params = paramsOf(request);
      if (params.get('client_id') !== clientId) return { status: 401, body: { error: 'invalid_client' } };
      const sentSecret = params.get('client_secret');
      if (sentSecret !== null && sentSecret !== clientSecret) return { status: 401, body: { error: 'invalid_client' } };
      if (params.get('grant_type') === 'authorization_code') {
        const code = codes.get(params.get('code') ?? '');
        if (!code || code.used || code.expiresAt <= now()) return { status: 400, body: { error: 'invalid_grant' } };
        code.used = true;
        if (code.redirectUri !== params.get('redirect_uri')) return { status: 400, body: { error: 'invalid_grant', error_description: 'redirect_uri differs' } };
        if (code.challenge !== null) {
          const verifier = params.get('code_verifier') ?? '';
          if ((code.method === 'S256' ? s256(verifier) : verifier) !== code.challenge) return { status: 400, body: { error: 'invalid_grant', error_description: 'code_verifier does not match' } };
        } else if (sentSecret === null) {
          return { status: 401, body: { error: 'invalid_client', error_description: 'client_secret or PKCE required' } };
        }
        return issue(code.userId, code.scopes, null);
      }
      if (params.get('grant_type') === 'refresh_token') {
        const pair = byRefresh.get(params.get('refresh_token') ?? '');
        if (!pair || pair.revoked) return { status: 401, body: { error: 'invalid_grant' } };
        return issue(pair.userId, pair.scopes, pair);
      }
      return { status: 400, body: { error: 'unsupported_grant_type' } };
    },

    'GET /v1/user': (request) => {
      const user = userFor(request, 'user_read');
      if (isReply(user)) return user;
      // "Returns the authenticated user along with email if email scope is included."
      const email = tokenScopes(request).includes('email') ? { email: user.email } : {};
      return { status: 200, body: { id: user.id, ...email, first: 'Test', last: 'Rider', height: user.height, weight: user.weight, created_at: '2020-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' } };
    },

    'GET /v1/workouts': (request) => {
      const user = userFor(request, 'workouts_read');
      if (isReply(user)) return user;
      const page = Math.max(1, Number(request.query.get('page') ?? 1) || 1);
      const perPage = Math.min(100, Math.max(1, Number(request.query.get('per_page') ?? 30) || 30));
      const newestFirst = [...user.workouts].sort((a, b) => b.starts.localeCompare(a.starts));
      const slice = newestFirst.slice((page - 1) * perPage, page * perPage);
      return { status: 200, body: { workouts: slice.map((workout) => workoutJson(user, workout)), total: newestFirst.length, page, per_page: perPage, order: 'descending', sort: 'starts' } };
    },

    'GET /v1/workouts/:id/workout_summary': (request) => {
      const user = userFor(request, 'workouts_read');
      if (isReply(user)) return user;
      const workout = user.workouts.find((candidate) => String(candidate.id) === request.params.id);
      if (!workout?.summary) return { status: 404, body: { error: 'Not Found' } };
      return { status: 200, body: summaryJson(user, workout) };
    },

    'DELETE /v1/permissions': (request) => {
      const user = userFor(request);
      if (isReply(user)) return user;
      for (const pair of pairs.values()) if (pair.userId === user.id) pair.revoked = true;
      return { status: 200, body: { success: true } };
    },

    'GET /cdn/:user/:file': (request) => {
      if (request.headers.authorization) return { status: 400, body: '<Error><Code>InvalidArgument</Code><Message>Only one auth mechanism allowed</Message></Error>', headers: { 'content-type': 'application/xml' } };
      const bytes = files.get(`${request.params.user}/${request.params.file}`);
      return bytes ? { status: 200, body: Buffer.from(bytes), headers: { 'content-type': 'application/octet-stream' } } : { status: 404, body: 'NoSuchKey' };
    },
  };

  // The consent page is a browser page and the CDN is not Wahoo's API: neither counts against the limits.
  const isApi = (request: StandinRequest) => !request.path.startsWith('/cdn/') && request.path !== '/oauth/authorize';
  const standin = await startStandin({
    routes,
    clock,
    ...(options.extraRoutes && { extraRoutes: options.extraRoutes }),
    gate: (request): Reply | null => {
      if (!isApi(request)) return null;
      const reading = limits.take(now());
      readings.set(request, reading);
      if (reading.allowed) return null;
      const headers: Record<string, string> = options.retryAfter ? { 'retry-after': String(Math.ceil(reading.resetMs / 1000)) } : {};
      return { status: 429, body: { error: 'Rate limit exceeded' }, headers };
    },
    decorate: (request): Record<string, string> => {
      const reading = readings.get(request);
      if (!reading) return {};
      return {
        'x-ratelimit-limit': `${day}, ${hour}, ${fiveMinutes}`,
        'x-ratelimit-remaining': reading.remaining.join(', '),
        'x-ratelimit-reset': String(Math.ceil(reading.resetMs / 1000)),
      };
    },
  });

  function webhookBody(user: WahooUserData, workout: WahooWorkoutData, token: string): Record<string, unknown> {
    return { event_type: 'workout_summary', webhook_token: token, user: { id: user.id }, workout_summary: { ...summaryJson(user, workout), workout: workoutJson(user, workout, false) } };
  }

  return {
    ...standin,
    clientId,
    clientSecret,
    webhookToken,
    approveAs(userId: number): void {
      consenting = userId;
    },
    addUser(userId: number, init: Partial<Omit<WahooUserData, 'id'>> = {}): WahooUserData {
      const user: WahooUserData = { id: userId, email: `rider${userId}@example.com`, weight: '70.5', height: '1.80', workouts: [], ...init };
      users.set(userId, user);
      for (const workout of user.workouts) if (workout.summary) files.set(`${user.id}/${workout.id}-${workout.summary.id}.fit`, workout.fit);
      return user;
    },
    user: (userId: number) => users.get(userId)!,
    /** A workout finishes: its summary and FIT file appear and a webhook is queued (with `token`, default ours). */
    finishWorkout(userId: number, workoutId: number, token = webhookToken): void {
      const user = users.get(userId)!;
      const workout = user.workouts.find((candidate) => candidate.id === workoutId)!;
      workout.summary ??= { id: workoutId * 10, distance: '10000.0', duration: '3600.0', power: '201.5', heartRate: '141.0', updatedAt: new Date(now()).toISOString() };
      files.set(`${user.id}/${workout.id}-${workout.summary.id}.fit`, workout.fit);
      deliveries.push({ body: webhookBody(user, workout, token), dueAt: now(), attempt: 0 });
    },
    /** Unrevoked token pairs of a user (the 10-token rule). */
    unrevokedTokens: unrevoked,
    /** Whether a token is still accepted. */
    isLive: (accessToken: string) => {
      const pair = pairs.get(accessToken);
      return !!pair && !pair.revoked && pair.expiresAt > now();
    },
    setWebhookUrl(url: string): void {
      webhookUrl = url;
    },
    /** Webhook deliveries not yet answered 200. */
    deliveries,
    /** POSTs every delivery due now; a non-200 is retried 30 min, 4 h, 24 h, 72 h later. Answers the statuses. */
    async deliver(): Promise<number[]> {
      if (webhookUrl === null) throw new Error('wahoo stand-in: setWebhookUrl first');
      const statuses: number[] = [];
      for (const delivery of deliveries.filter((candidate) => candidate.dueAt <= now())) {
        const status = await postJson(webhookUrl, delivery.body);
        statuses.push(status);
        deliveries.splice(deliveries.indexOf(delivery), 1);
        const wait = WEBHOOK_RETRIES_MS[delivery.attempt];
        if (status !== 200 && wait !== undefined) deliveries.push({ body: delivery.body, dueAt: now() + wait, attempt: delivery.attempt + 1 });
      }
      return statuses;
    },
  };
}

/** Workouts for a stand-in user: `count` done workouts, one a day going back from `newest` (ISO), ids from `firstId`. */
export function wahooWorkouts(count: number, newest: number, firstId = 1): WahooWorkoutData[] {
  return Array.from({ length: count }, (_, index) => ({
    id: firstId + index,
    starts: new Date(newest - index * 86_400_000).toISOString(),
    minutes: 60,
    name: `Ride ${firstId + index}`,
    workout_type_id: 0,
    summary: { id: (firstId + index) * 10, distance: '30000.0', duration: '3600.0', power: '180.5', heartRate: null, updatedAt: new Date(newest - index * 86_400_000 + 3_600_000).toISOString() },
    fit: new TextEncoder().encode(`FIT:wahoo:${firstId + index}`),
  }));
}
