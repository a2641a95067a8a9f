/**
 * Stand-ins for the providers' workout APIs (shared/spec/providers.md §4 "What a faithful stand-in must
 * do"), as route handlers any provider stand-in server can mount: each `handle(request)` answers a
 * request it owns, or null to let the next handler try. `startWorkoutApis()` is a minimal loopback server
 * mounting all three under `/garmin`, `/intervals` and `/wahoo`, for the workout tests.
 *
 * - Garmin Training API V2: `POST /workoutportal/workout/v2` → `{workoutId}`, `POST /training-api/schedule/`
 *   → `{scheduleId}`, `DELETE /training-api/workout/v2/{id}` → 204 (404 unknown); **412** when the user's
 *   permissions lack WORKOUT_IMPORT, **429** past the per-user daily quota (evaluation: 200/user/day;
 *   Garmin documents no `Retry-After`, so none is sent unless `quotaRetryAfter` asks for one), 400
 *   for a body without `workoutName`/`sport`/`segments` or more than 100 steps, or a schedule without
 *   `workoutId`/`date`.
 * - intervals.icu: `POST /api/v1/athlete/{id}/events/bulk?upsert=true` upserts on `external_id`
 *   (idempotent: the same event id again), **422** `{"status":422,"error":…}` for a bad `category`
 *   [unverified]; `DELETE /api/v1/athlete/{id}/events/{eventId}` [unverified].
 * - Wahoo: `GET /v1/plans?external_id=` (an array [unverified]), `POST /v1/plans` (form; both
 *   `plan[external_id]` and `plan[provider_updated_at]` required, `plan[file]` a base64 JSON data URL with
 *   `header` and `intervals`, else **422**), `POST /v1/workouts` (form, an existing `plan_id`, else 422);
 *   rate headers on every answer, and once `quota` calls are spent **429** with `X-RateLimit-Reset` and no
 *   `Retry-After` [WAH-doc].
 *
 * All: Bearer tokens checked (401 otherwise), a request log, and scripted faults (`failNext`, with headers
 * such as a 503's `Retry-After`). Kept
 * honest by test/gateway/workouts.test.ts, which drives the real engine against it.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeEndless, type EndlessBody, type Tallies } from '../endless-answers.js';

export interface StandinRequest {
  method: string;
  /** Path below the mount point, with its query string. */
  url: URL;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

export interface StandinAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** Instead of `body`: one that never ends (test/support/endless-answers.ts). */
  endless?: EndlessBody;
}

export interface LoggedCall {
  method: string;
  path: string;
  json?: unknown;
  form?: Record<string, string>;
}

interface Fault {
  status: number;
  body: unknown;
  endless?: EndlessBody;
  path: RegExp | null;
  headers: Record<string, string>;
}

/** What every workout stand-in shares: tokens, the request log, scripted faults. */
abstract class WorkoutApiStandin {
  readonly log: LoggedCall[] = [];
  readonly tokens = new Set<string>();
  private readonly faults: Fault[] = [];
  private nextId = 1000;

  /** The next `times` requests (matching `path` when given) answer `status` with `body`, or with a body that never ends. */
  failNext(status: number, options: { times?: number; body?: unknown; endless?: EndlessBody; path?: RegExp; headers?: Record<string, string> } = {}): void {
    for (let i = 0; i < (options.times ?? 1); i += 1) {
      this.faults.push({ status, body: options.body ?? { error: `scripted ${status}` }, path: options.path ?? null, headers: options.headers ?? {}, ...(options.endless && { endless: options.endless }) });
    }
  }

  handle(request: StandinRequest): StandinAnswer | null {
    if (!this.owns(request)) return null;
    const form = request.headers['content-type']?.startsWith('application/x-www-form-urlencoded')
      ? Object.fromEntries(new URLSearchParams(request.body.toString('utf8'))) : undefined;
    const json = request.headers['content-type']?.startsWith('application/json') ? safeJson(request.body) : undefined;
    this.log.push({ method: request.method, path: `${request.url.pathname}${request.url.search}`, ...(json !== undefined && { json }), ...(form && { form }) });
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (!token || !this.tokens.has(token)) return this.decorate({ status: 401, body: { error: 'invalid token' } });
    const fault = this.faults.findIndex((candidate) => candidate.path === null || candidate.path.test(request.url.pathname));
    if (fault >= 0) {
      const [scripted] = this.faults.splice(fault, 1);
      return this.decorate({ status: scripted!.status, headers: scripted!.headers, body: scripted!.body, ...(scripted!.endless && { endless: scripted!.endless }) });
    }
    return this.decorate(this.route(request, token, json, form ?? {}));
  }

  protected id(): number {
    this.nextId += 1;
    return this.nextId;
  }

  protected decorate(answer: StandinAnswer): StandinAnswer {
    return answer;
  }

  protected abstract owns(request: StandinRequest): boolean;
  protected abstract route(request: StandinRequest, token: string, json: unknown, form: Record<string, string>): StandinAnswer;
}

export class GarminTrainingApi extends WorkoutApiStandin {
  readonly workouts = new Map<number, Record<string, unknown>>();
  readonly schedules = new Map<number, { workoutId: number; date: string }>();
  /** Per token: what the user granted (user/permissions). */
  readonly permissions = new Map<string, string[]>();
  /** Training API calls per user and day before 429 (evaluation: 200). */
  dailyQuota = 200;
  /** Seconds to send as `Retry-After` with a quota 429; null (Garmin's documented behaviour): no header. */
  quotaRetryAfter: number | null = null;
  private readonly used = new Map<string, number>();

  protected owns(request: StandinRequest): boolean {
    return /^\/(workoutportal|training-api)\//.test(request.url.pathname);
  }

  protected route(request: StandinRequest, token: string, json: unknown): StandinAnswer {
    const used = (this.used.get(token) ?? 0) + 1;
    this.used.set(token, used);
    if (used > this.dailyQuota) {
      return { status: 429, body: { errorMessage: 'quota exceeded' }, ...(this.quotaRetryAfter !== null && { headers: { 'retry-after': String(this.quotaRetryAfter) } }) };
    }
    if (!(this.permissions.get(token) ?? ['WORKOUT_IMPORT']).includes('WORKOUT_IMPORT')) {
      return { status: 412, body: { errorMessage: 'User permission WORKOUT_IMPORT is missing' } };
    }
    const { pathname } = request.url;
    const body = (json ?? {}) as Record<string, unknown>;
    if (request.method === 'POST' && pathname === '/workoutportal/workout/v2') {
      const segments = body.segments as { steps?: unknown[] }[] | undefined;
      if (typeof body.workoutName !== 'string' || typeof body.sport !== 'string' || !Array.isArray(segments)) {
        return { status: 400, body: { errorMessage: 'workoutName, sport and segments are required' } };
      }
      if (countSteps(segments.flatMap((segment) => segment.steps ?? [])) > 100) return { status: 400, body: { errorMessage: 'more than 100 steps' } };
      const workoutId = this.id();
      this.workouts.set(workoutId, body);
      return { status: 200, body: { workoutId } };
    }
    if (request.method === 'POST' && pathname === '/training-api/schedule/') {
      const workoutId = Number(body.workoutId);
      if (!this.workouts.has(workoutId) || typeof body.date !== 'string' || !/^\d{4}-\d\d-\d\d$/.test(body.date)) {
        return { status: 400, body: { errorMessage: 'workoutId of an existing workout and date YYYY-MM-DD are required' } };
      }
      const scheduleId = this.id();
      this.schedules.set(scheduleId, { workoutId, date: body.date });
      return { status: 200, body: { scheduleId } };
    }
    const deletion = /^\/training-api\/workout\/v2\/(\d+)$/.exec(pathname);
    if (request.method === 'DELETE' && deletion) {
      const workoutId = Number(deletion[1]);
      if (!this.workouts.delete(workoutId)) return { status: 404, body: { errorMessage: 'no such workout' } };
      for (const [id, schedule] of this.schedules) if (schedule.workoutId === workoutId) this.schedules.delete(id);
      return { status: 204 };
    }
    return { status: 404, body: { errorMessage: 'not found' } };
  }
}

function countSteps(steps: unknown[]): number {
  return steps.reduce<number>((sum, step) => sum + 1 + countSteps(((step as { steps?: unknown[] }).steps) ?? []), 0);
}

const ICU_CATEGORIES = new Set(['WORKOUT', 'RACE_A', 'RACE_B', 'RACE_C', 'NOTE', 'HOLIDAY', 'SICK', 'INJURED', 'SET_EFTP', 'FITNESS_DAYS', 'SEASON_START', 'TARGET', 'SET_FITNESS']);

export class IntervalsEventsApi extends WorkoutApiStandin {
  /** Events by id; `athlete` is the path's athlete id. */
  readonly events = new Map<number, Record<string, unknown> & { athlete: string }>();

  protected owns(request: StandinRequest): boolean {
    return request.url.pathname.startsWith('/api/v1/athlete/');
  }

  protected route(request: StandinRequest, _token: string, json: unknown): StandinAnswer {
    const bulk = /^\/api\/v1\/athlete\/([^/]+)\/events\/bulk$/.exec(request.url.pathname);
    if (request.method === 'POST' && bulk) {
      const athlete = bulk[1]!;
      if (!Array.isArray(json)) return { status: 422, body: { status: 422, error: 'expected an array of events' } };
      const upsert = request.url.searchParams.get('upsert') === 'true';
      const saved = [];
      for (const event of json as Record<string, unknown>[]) {
        if (!ICU_CATEGORIES.has(String(event.category))) return { status: 422, body: { status: 422, error: `Invalid category ${JSON.stringify(event.category)}` } };
        if (typeof event.start_date_local !== 'string') return { status: 422, body: { status: 422, error: 'start_date_local is required' } };
        const existing = upsert && event.external_id
          ? [...this.events.entries()].find(([, stored]) => stored.athlete === athlete && stored.external_id === event.external_id)
          : undefined;
        const id = existing ? existing[0] : this.id();
        const stored = { ...event, id, athlete };
        this.events.set(id, stored);
        saved.push(stored);
      }
      return { status: 200, body: saved };
    }
    const one = /^\/api\/v1\/athlete\/([^/]+)\/events\/(\d+)$/.exec(request.url.pathname);
    if (request.method === 'DELETE' && one) {
      return this.events.delete(Number(one[2])) ? { status: 200, body: {} } : { status: 404, body: { status: 404, error: 'Event not found' } };
    }
    return { status: 404, body: { status: 404, error: 'not found' } };
  }
}

export class WahooPlansApi extends WorkoutApiStandin {
  readonly plans = new Map<number, { external_id: string; filename: string; provider_updated_at: string; plan: { header: unknown; intervals: unknown[] } }>();
  readonly workouts = new Map<number, Record<string, string>>();
  /**
   * Calls before the app's budget is spent (null: unlimited), and the seconds until it resets: a spent
   * 5-minute window is ≤ 300, a spent day up to 86,400.
   */
  quota: { calls: number; resetSeconds: number } | null = null;
  private calls = 0;

  protected owns(request: StandinRequest): boolean {
    return /^\/v1\/(plans|workouts)/.test(request.url.pathname);
  }

  protected override decorate(answer: StandinAnswer): StandinAnswer {
    // [WAH-doc]: every answer carries the rate headers (day, hour, 5 min).
    const spent = this.quota !== null && this.calls > this.quota.calls;
    const rate = spent
      ? { 'x-ratelimit-limit': '5000, 1000, 200', 'x-ratelimit-remaining': '0, 0, 0', 'x-ratelimit-reset': String(this.quota!.resetSeconds) }
      : { 'x-ratelimit-limit': '5000, 1000, 200', 'x-ratelimit-remaining': '4999, 999, 199', 'x-ratelimit-reset': '300' };
    return { ...answer, headers: { ...rate, ...answer.headers } };
  }

  protected route(request: StandinRequest, _token: string, _json: unknown, form: Record<string, string>): StandinAnswer {
    const { pathname, searchParams } = request.url;
    this.calls += 1;
    // "excess → 429; no Retry-After: wait X-RateLimit-Reset" [WAH-doc]
    if (this.quota !== null && this.calls > this.quota.calls) return { status: 429, body: { error: 'Rate limit exceeded' } };
    if (request.method === 'GET' && pathname === '/v1/plans') {
      const externalId = searchParams.get('external_id');
      return { status: 200, body: [...this.plans.entries()].filter(([, plan]) => externalId === null || plan.external_id === externalId).map(([id, plan]) => ({ id, external_id: plan.external_id })) };
    }
    if (request.method === 'POST' && pathname === '/v1/plans') {
      const missing = ['plan[file]', 'plan[filename]', 'plan[external_id]', 'plan[provider_updated_at]'].filter((field) => !form[field]);
      if (missing.length > 0) return { status: 422, body: { error: `${missing.join(', ')} required` } };
      const plan = decodePlan(form['plan[file]']!);
      if (!plan) return { status: 422, body: { error: 'plan[file] must be a data:application/json;base64 URL of a plan with header and intervals' } };
      const id = this.id();
      this.plans.set(id, { external_id: form['plan[external_id]']!, filename: form['plan[filename]']!, provider_updated_at: form['plan[provider_updated_at]']!, plan });
      return { status: 201, body: { id, external_id: form['plan[external_id]'] } };
    }
    if (request.method === 'POST' && pathname === '/v1/workouts') {
      const missing = ['workout[name]', 'workout[workout_token]', 'workout[workout_type_id]', 'workout[starts]', 'workout[minutes]'].filter((field) => !form[field]);
      if (missing.length > 0) return { status: 422, body: { error: `${missing.join(', ')} required` } };
      if (form['workout[plan_id]'] && !this.plans.has(Number(form['workout[plan_id]']))) return { status: 422, body: { error: 'unknown plan_id' } };
      const id = this.id();
      this.workouts.set(id, form);
      return { status: 201, body: { id, starts: form['workout[starts]'], plan_id: Number(form['workout[plan_id]']) } };
    }
    return { status: 404, body: { error: 'not found' } };
  }
}

function decodePlan(file: string): { header: unknown; intervals: unknown[] } | null {
  const match = /^data:application\/json;base64,(.+)$/.exec(file);
  if (!match) return null;
  const plan = safeJson(Buffer.from(match[1]!, 'base64')) as { header?: unknown; intervals?: unknown } | undefined;
  return plan && typeof plan.header === 'object' && Array.isArray(plan.intervals) ? { header: plan.header, intervals: plan.intervals } : null;
}

function safeJson(body: Buffer): unknown {
  try {
    return body.length === 0 ? undefined : JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

export interface WorkoutApis {
  garmin: GarminTrainingApi;
  intervals: IntervalsEventsApi;
  wahoo: WahooPlansApi;
  /** One per answer with a never-ending body: what was written, and whether the client hung up. */
  tallies: Tallies;
  /** API base URL per provider, as the engine's workout delivery takes them. */
  baseUrls: { garmin_connect: string; intervals_icu: string; wahoo: string };
  close(): Promise<void>;
}

/** The three stand-ins on one loopback server on an ephemeral port, each under its own prefix. */
export async function startWorkoutApis(): Promise<WorkoutApis> {
  const mounts = { '/garmin': new GarminTrainingApi(), '/intervals': new IntervalsEventsApi(), '/wahoo': new WahooPlansApi() };
  const tallies: Tallies = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://standin');
      const prefix = (Object.keys(mounts) as (keyof typeof mounts)[]).find((candidate) => url.pathname.startsWith(`${candidate}/`));
      const answer = prefix
        ? mounts[prefix].handle({ method: request.method ?? 'GET', url: new URL(`${url.pathname.slice(prefix.length)}${url.search}`, 'http://standin'), headers: request.headers, body: Buffer.concat(chunks) })
        : null;
      const final = answer ?? { status: 404, body: { error: 'no stand-in here' } };
      if (final.endless) {
        response.writeHead(final.status, { 'content-type': 'application/json', ...final.headers });
        writeEndless(response, final.endless, tallies);
        return;
      }
      const text = final.body === undefined ? '' : JSON.stringify(final.body);
      response.writeHead(final.status, { ...(text && { 'content-type': 'application/json' }), ...final.headers });
      response.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    garmin: mounts['/garmin'],
    intervals: mounts['/intervals'],
    wahoo: mounts['/wahoo'],
    tallies,
    baseUrls: { garmin_connect: `${base}/garmin`, intervals_icu: `${base}/intervals`, wahoo: `${base}/wahoo` },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
