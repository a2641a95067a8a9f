/**
 * A stand-in for intervals.icu that speaks its documented protocol (shared/spec/providers.md §2 and §4) on
 * a loopback ephemeral port, for the integration tests and bench/backfill:
 *
 * - OAuth: `/oauth/authorize` approves at once as the configured athlete (or refuses with
 *   `error=access_denied`); codes are single use and live 2 minutes on the stand-in's clock; tokens never
 *   expire; the granted scope may be narrower than asked (`grantedScope`).
 * - `GET /api/v1/athlete/{id}/activities?oldest&newest&limit`: `oldest` required (else 422), newest first,
 *   inclusive local date-time window, no cursor; Strava-synced activities are stubs without a file.
 * - `GET /api/v1/activity/{id}/file`: the original file gzip-compressed; scripted 404/500 per activity.
 * - `DELETE /api/v1/disconnect-app` revokes the token; `deauthorize()` does the same and builds the
 *   `APP_SCOPE_CHANGED` event; a revoked token then gets 401.
 * - `GET /api/v1/athlete/{id}/wellness?oldest&newest`: records keyed by local date (`wellness`).
 * - Webhooks: `push(url, events, {duplicate})` posts the `{secret, events}` envelope (twice when asked).
 * - Rate limit: more than `rateLimit.requests` in `rateLimit.windowMs` → 429, with `Retry-After` (seconds)
 *   unless `rateLimit.retryAfter` is false (default 10 requests per second, with Retry-After).
 * - Every request is logged (`requests`); `failNext(pattern, status, times)` scripts faults; extra route
 *   handlers can be mounted (`routes`) for calendar events and the like.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';

export interface StandinActivity {
  id: string;
  /** Start, Unix ms (UTC); local time is UTC + `offsetMinutes`. */
  start: number;
  offsetMinutes?: number;
  /** The original file; null: a Strava stub. */
  file: Uint8Array | null;
  moving_time?: number;
}

/** An extra route: return true when it answered. */
export type StandinRoute = (request: IncomingMessage, response: ServerResponse, url: URL, body: Buffer, athleteId: string | null) => boolean | Promise<boolean>;

export interface IntervalsIcuStandinOptions {
  clientId: string;
  clientSecret: string;
  webhookSecret?: string;
  athlete?: { id: string; name: string };
  grantedScope?: string;
  /**
   * `files: false` leaves file downloads outside the limit (as a CDN would serve them: Wahoo's file URLs
   * are on one); intervals.icu itself counts them like any API call (the default).
   */
  rateLimit?: { requests: number; windowMs: number; retryAfter?: boolean; files?: boolean };
  routes?: StandinRoute[];
  /** The stand-in's clock (Unix ms); codes expire by it. */
  now?: () => number;
}

export interface LoggedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  status: number;
  at: number;
}

export interface IntervalsIcuStandin {
  baseUrl: string;
  requests: LoggedRequest[];
  activities: StandinActivity[];
  /** Wellness records keyed `id` = local date, as `GET …/wellness?oldest&newest` serves them. */
  wellness: Record<string, unknown>[];
  /** Refuse the next authorization (the user clicks Deny). */
  denyNext(): void;
  /** The athlete who approves the next authorizations (and whom the API then serves); default `options.athlete`. */
  approveAs(athlete: { id: string; name: string }): void;
  failNext(pattern: RegExp, status: number, times?: number): void;
  failDownload(activityId: string, status: 404 | 500): void;
  /** Revokes the athlete's tokens and returns the APP_SCOPE_CHANGED event intervals.icu sends. */
  deauthorize(): Record<string, unknown>;
  push(url: string, events: Record<string, unknown>[], options?: { duplicate?: boolean; secret?: string }): Promise<number[]>;
  activityEvent(activity: StandinActivity, type?: string): Record<string, unknown>;
  liveTokens(): number;
  close(): Promise<void>;
}

const CODE_TTL_MS = 2 * 60_000;

export async function startIntervalsIcuStandin(options: IntervalsIcuStandinOptions): Promise<IntervalsIcuStandin> {
  const now = options.now ?? Date.now;
  let athlete = options.athlete ?? { id: 'i1001', name: 'Stand-in Athlete' };
  const limit = options.rateLimit ?? { requests: 10, windowMs: 1000, retryAfter: true };
  const codes = new Map<string, { redirectUri: string; issuedAt: number; scope: string; athlete: { id: string; name: string } }>();
  const tokens = new Map<string, { scope: string }>();
  const requests: LoggedRequest[] = [];
  const activities: StandinActivity[] = [];
  const wellness: Record<string, unknown>[] = [];
  const faults: { pattern: RegExp; status: number; times: number }[] = [];
  const failingDownloads = new Map<string, number>();
  const recent: number[] = [];
  let deny = false;

  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://standin');
      const finish = (status: number) => requests.push({ method: request.method ?? 'GET', path: url.pathname, query: Object.fromEntries(url.searchParams), status, at: now() });
      handle(request, response, url, Buffer.concat(chunks)).then((status) => finish(status), (error: unknown) => {
        response.statusCode = 500;
        response.end(String(error));
        finish(500);
      });
    });
  });

  function json(response: ServerResponse, status: number, body: unknown): number {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
    return status;
  }

  function throttled(response: ServerResponse): number | null {
    const t = Date.now();
    while (recent.length > 0 && recent[0]! <= t - limit.windowMs) recent.shift();
    if (recent.length >= limit.requests) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (limit.retryAfter !== false) headers['retry-after'] = String(Math.max(1, Math.ceil((recent[0]! + limit.windowMs - t) / 1000)));
      response.writeHead(429, headers);
      response.end(JSON.stringify({ status: 429, error: 'Too many requests' }));
      return 429;
    }
    recent.push(t);
    return null;
  }

  function bearer(request: IncomingMessage): string | null {
    const match = /^Bearer (.+)$/.exec(request.headers.authorization ?? '');
    return match && tokens.has(match[1]!) ? match[1]! : null;
  }

  async function handle(request: IncomingMessage, response: ServerResponse, url: URL, body: Buffer): Promise<number> {
    const path = url.pathname;
    const fault = faults.find((candidate) => candidate.times > 0 && candidate.pattern.test(path));
    if (fault) {
      fault.times -= 1;
      return json(response, fault.status, { status: fault.status, error: 'scripted fault' });
    }
    if (request.method === 'GET' && path === '/oauth/authorize') {
      const redirect = new URL(url.searchParams.get('redirect_uri') ?? '');
      const state = url.searchParams.get('state');
      if (url.searchParams.get('client_id') !== options.clientId) return json(response, 400, { error: 'unknown client_id' });
      if (deny) {
        deny = false;
        redirect.searchParams.set('error', 'access_denied');
      } else {
        const code = randomBytes(12).toString('hex');
        const asked = url.searchParams.get('scope') ?? '';
        codes.set(code, { redirectUri: redirect.href, issuedAt: now(), scope: options.grantedScope ?? asked, athlete });
        redirect.searchParams.set('code', code);
      }
      if (state !== null) redirect.searchParams.set('state', state);
      response.writeHead(302, { location: redirect.href });
      response.end();
      return 302;
    }
    if (request.method === 'POST' && path === '/api/oauth/token') {
      const form = new URLSearchParams(body.toString('utf8'));
      if (form.get('client_id') !== options.clientId || form.get('client_secret') !== options.clientSecret) return json(response, 401, { error: 'invalid_client' });
      const code = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      if (!code || now() - code.issuedAt > CODE_TTL_MS) return json(response, 400, { error: 'invalid_grant' });
      const token = randomBytes(16).toString('hex');
      tokens.set(token, { scope: code.scope });
      return json(response, 200, { token_type: 'Bearer', access_token: token, scope: code.scope, athlete: code.athlete });
    }
    if (path.startsWith('/api/v1/')) {
      const limited = limit.files === false && /\/file$/.test(path) ? null : throttled(response);
      if (limited !== null) return limited;
      const token = bearer(request);
      for (const route of options.routes ?? []) {
        if (await route(request, response, url, body, token ? athlete.id : null)) return response.statusCode;
      }
      if (!token) return json(response, 401, { status: 401, error: 'Unauthorized' });
      if (request.method === 'DELETE' && path === '/api/v1/disconnect-app') {
        tokens.delete(token);
        return json(response, 200, {});
      }
      const athletePath = /^\/api\/v1\/athlete\/([^/]+)(\/.*)?$/.exec(path);
      if (athletePath && (athletePath[1] === '0' || athletePath[1] === athlete.id)) {
        if (!athletePath[2] && request.method === 'GET') return json(response, 200, { id: athlete.id, name: athlete.name });
        if (athletePath[2] === '/activities' && request.method === 'GET') return listActivities(response, url);
        if (athletePath[2] === '/wellness' && request.method === 'GET') {
          const oldest = url.searchParams.get('oldest') ?? '';
          const newest = url.searchParams.get('newest') ?? '9999-12-31';
          return json(response, 200, wellness.filter((record) => String(record.id) >= oldest && String(record.id) <= newest));
        }
      }
      const file = /^\/api\/v1\/activity\/([^/]+)\/file$/.exec(path);
      if (file && request.method === 'GET') {
        const id = decodeURIComponent(file[1]!);
        const failing = failingDownloads.get(id);
        if (failing) return json(response, failing, { status: failing, error: 'scripted download failure' });
        const activity = activities.find((candidate) => candidate.id === id);
        if (!activity || !activity.file) return json(response, 404, { status: 404, error: 'Not found' });
        response.writeHead(200, { 'content-type': 'application/octet-stream' });
        response.end(gzipSync(activity.file, { level: 1 }));
        return 200;
      }
    }
    return json(response, 404, { status: 404, error: 'Not found' });
  }

  function listActivities(response: ServerResponse, url: URL): number {
    const oldest = url.searchParams.get('oldest');
    if (!oldest) return json(response, 422, { status: 422, error: 'oldest is required' });
    const newest = url.searchParams.get('newest') ?? localIso(now(), 0);
    const max = Number(url.searchParams.get('limit') ?? '0') || Number.MAX_SAFE_INTEGER;
    const low = oldest.length === 10 ? `${oldest}T00:00:00` : oldest;
    const high = newest.length === 10 ? `${newest}T23:59:59` : newest;
    const listed = activities
      .map((activity) => ({ activity, local: localIso(activity.start, activity.offsetMinutes ?? 0) }))
      .filter(({ local }) => local >= low && local <= high)
      .sort((a, b) => (a.local < b.local ? 1 : a.local > b.local ? -1 : a.activity.id < b.activity.id ? 1 : -1))
      .slice(0, max)
      .map(({ activity, local }) => activity.file === null
        ? { id: activity.id, start_date_local: local, source: 'STRAVA', _note: 'STRAVA activities are not available via the API' }
        : { id: activity.id, start_date_local: local, start_date: `${new Date(activity.start).toISOString().slice(0, 19)}Z`, type: 'Ride', source: 'OAUTH_CLIENT', moving_time: activity.moving_time ?? 3600, distance: 30_000, device_name: 'Stand-in' });
    return json(response, 200, listed);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const activityEvent = (activity: StandinActivity, type = 'ACTIVITY_UPLOADED') => ({
    athlete_id: athlete.id, type, timestamp: new Date(now()).toISOString(),
    activity: { id: activity.id, start_date_local: localIso(activity.start, activity.offsetMinutes ?? 0), start_date: `${new Date(activity.start).toISOString().slice(0, 19)}Z`, source: activity.file ? 'OAUTH_CLIENT' : 'STRAVA' },
  });

  return {
    baseUrl,
    requests,
    activities,
    wellness,
    denyNext: () => {
      deny = true;
    },
    approveAs: (next) => {
      athlete = next;
    },
    failNext: (pattern, status, times = 1) => {
      faults.push({ pattern, status, times });
    },
    failDownload: (activityId, status) => {
      failingDownloads.set(activityId, status);
    },
    deauthorize: () => {
      tokens.clear();
      return { athlete_id: athlete.id, type: 'APP_SCOPE_CHANGED', timestamp: new Date(now()).toISOString(), scope: '', deauthorized: true };
    },
    async push(url, events, pushOptions = {}) {
      const body = JSON.stringify({ secret: pushOptions.secret ?? options.webhookSecret ?? '', events });
      const statuses: number[] = [];
      for (let i = 0; i < (pushOptions.duplicate ? 2 : 1); i++) {
        const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        await response.arrayBuffer();
        statuses.push(response.status);
      }
      return statuses;
    },
    activityEvent,
    liveTokens: () => tokens.size,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

function localIso(ms: number, offsetMinutes: number): string {
  return new Date(ms + offsetMinutes * 60_000).toISOString().slice(0, 19);
}
