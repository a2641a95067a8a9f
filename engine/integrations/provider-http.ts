/**
 * The one HTTP edge every provider call goes through (intervals.icu, Garmin and Wahoo clients, workout
 * delivery): a request with a deadline (and the caller's abort signal), and the mapping of an answer the
 * call did not want onto a ProviderCallError. Status → kind: 401/403 `unauthorized`, 412 `not_permitted`,
 * 429 `rate_limited`, 5xx `unavailable`, other 4xx `rejected` (a call may override per status). A 429 is
 * `rate_limited` at the time the provider names — `Retry-After` first (seconds or an HTTP date), else
 * `X-RateLimit-Reset` (Wahoo), else the provider's floor plus jitter (Garmin documents neither header:
 * wait ≥ 60 s) or, with no floor, no time (the caller backs off); a 503 carries its `Retry-After` too.
 * Also here: JSON bodies that are not JSON, gzip by magic bytes, form bodies, redacted URLs.
 *
 * Every body is read through engine/outbound-read.ts within the request's one deadline (`timeoutMs` covers
 * the status line and the body together) and a byte limit per kind of answer (the `*_MAX_BYTES` below):
 * a body past its limit is `rejected` (the same call would get the same answer), a body that does not end
 * in time is `unavailable` (try again later).
 *
 * Every request first spends from the app's budget in the store (`spend`, provider-budget.ts), shared by
 * all engines. Deliberately no retries and no waiting here: a job that must wait gives its slot back or waits itself
 * (the backfill's Throttle, the delivery job's RescheduleJob; rate-limit-wait.ts decides how long).
 * Kept honest by test/engine/integrations/provider-http.test.ts and the provider and workout tests.
 */
import { gunzipSync } from 'node:zlib';
import type { Provider } from '../../domain/providers.js';
import { OutboundLimitError, readBounded, readPrefix } from '../outbound-read.js';
import { ProviderCallError, type ProviderCallErrorKind } from './provider-call-error.js';
import type { SpendBudget } from './provider-budget.js';

export type Fetch = typeof fetch;

export interface HttpContext {
  provider: Provider;
  fetch: Fetch;
  /** Unix ms; injected so token expiry and rate-limit resets follow a test's fake clock. */
  now: () => number;
  /** Per request, milliseconds. */
  timeoutMs: number;
  /**
   * Least wait after a 429 that names no time, milliseconds (jitter of up to a fifth is added); null: the
   * 429 names no time and the caller backs off on its own (intervals.icu, whose limit is per second).
   */
  rateLimitFloorMs: number | null;
  /** [0, 1); injected for tests that pin the jitter. */
  random?: () => number;
  /** The caller's own stop (a job's lease lost, a shutdown): its abort is rethrown, never `unavailable`. */
  signal?: AbortSignal;
  /** Spends one call of the app's shared budget before each request (provider-budget.ts); throws BudgetSpent when none is left. */
  spend?: SpendBudget;
}

/** How long one provider call may take unless a client says otherwise, milliseconds: status line and body together. */
export const PROVIDER_TIMEOUT_MS = 30_000;

/**
 * A JSON answer's limit unless the call names another: lists and summaries are KB to a few MB; 16 MiB is
 * also what we accept from a provider's push (gateway/routes/integrations.ts MAX_PUSH_BYTES).
 */
export const PROVIDER_JSON_MAX_BYTES = 16 * 1024 * 1024;
/** An original activity file (FIT, TCX, GPX), before gunzip and after: the upload limit and the FIT decoder's, 64 MiB (a 24-hour FIT is about 5 MiB). */
export const PROVIDER_FILE_MAX_BYTES = 64 * 1024 * 1024;
/** A token answer (a few hundred bytes of JSON): 64 KiB. */
export const TOKEN_ANSWER_MAX_BYTES = 64 * 1024;
/** Of an error answer's body, only this much is read for the message (which quotes 300 characters of it). */
export const ERROR_DETAIL_MAX_BYTES = 4 * 1024;

/** The deadline of each answer `send` returned, for the readers below (a Response carries no signal). */
const deadlines = new WeakMap<Response, AbortSignal>();

/**
 * One request; a network failure or a timeout is `unavailable`, any HTTP answer is returned as is.
 * Redirects are followed (a file URL may lead to a CDN); fetch drops the Authorization header when a
 * redirect leaves the origin, so a token never reaches another host.
 */
export async function send(context: HttpContext, url: string, init: RequestInit = {}): Promise<Response> {
  await context.spend?.(context.provider);
  const timeout = AbortSignal.timeout(context.timeoutMs);
  const signal = context.signal ? AbortSignal.any([context.signal, timeout]) : timeout;
  try {
    const response = await context.fetch(url, { ...init, signal });
    deadlines.set(response, signal);
    return response;
  } catch (error) {
    if (context.signal?.aborted) throw context.signal.reason ?? error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new ProviderCallError(context.provider, 'unavailable', `${context.provider}: ${init.method ?? 'GET'} ${redact(url)} failed: ${reason}`);
  }
}

/**
 * The whole body of an answer, at most `maxBytes`, by the request's deadline: past the limit `rejected`,
 * late or cut `unavailable`, each naming the call, the status and the limit.
 */
export async function readBody(context: HttpContext, response: Response, what: string, maxBytes: number): Promise<Buffer> {
  try {
    return await readBounded(response.body, { maxBytes, ...deadlineOf(context, response), what: `${what}: HTTP ${response.status}` });
  } catch (error) {
    if (context.signal?.aborted) throw context.signal.reason ?? error;
    if (error instanceof OutboundLimitError) {
      throw new ProviderCallError(context.provider, error.limit === 'bytes' ? 'rejected' : 'unavailable', error.message, response.status);
    }
    const reason = error instanceof Error ? error.message : String(error);
    throw new ProviderCallError(context.provider, 'unavailable', `${what}: HTTP ${response.status} with a body that was cut: ${reason}`, response.status);
  }
}

/** The signal `send` gave the request (a Response made elsewhere, as in a test, gets the context's timeout from now). */
function deadlineOf(context: HttpContext, response: Response): { signal: AbortSignal; timeoutMs: number } {
  return { signal: deadlines.get(response) ?? AbortSignal.timeout(context.timeoutMs), timeoutMs: context.timeoutMs };
}

/**
 * Reads the body of an answer that should be JSON (at most `maxBytes`, PROVIDER_JSON_MAX_BYTES unless the
 * call names its own); anything else is `unavailable` (a proxy's HTML page, a cut body). An empty body is
 * null when the call allows one (`emptyIsNull`: a 204 to a DELETE).
 */
export async function readJson(context: HttpContext, response: Response, what: string, options: { emptyIsNull?: boolean; maxBytes?: number } = {}): Promise<unknown> {
  const text = (await readBody(context, response, what, options.maxBytes ?? PROVIDER_JSON_MAX_BYTES)).toString('utf8');
  if (text === '' && options.emptyIsNull) return null;
  try {
    return JSON.parse(text);
  } catch {
    throw new ProviderCallError(context.provider, 'unavailable', `${what}: HTTP ${response.status} with a body that is not JSON`, response.status);
  }
}

/**
 * The ProviderCallError for an answer the call did not want, its message `<what>: HTTP <status> <body>`
 * (`what` names the provider and the call: `'garmin backfill/activities'`). `kinds` overrides the
 * default per status; e.g. Garmin's backfill makes 403 `not_permitted`.
 */
export async function failure(context: HttpContext, response: Response, what: string, kinds: Partial<Record<number, ProviderCallErrorKind>> = {}): Promise<ProviderCallError> {
  const status = response.status;
  const kind = kinds[status] ?? defaultKind(status);
  const detail = (await readPrefix(response.body, { maxBytes: ERROR_DETAIL_MAX_BYTES, ...deadlineOf(context, response), what })).toString('utf8').slice(0, 300);
  const retryAt = kind === 'rate_limited' ? retryAtOf(context, response.headers)
    : status === 503 ? retryAfterOf(response.headers.get('retry-after'), context.now()) : null;
  return new ProviderCallError(context.provider, kind, `${what}: HTTP ${status}${detail ? ` ${detail}` : ''}`, status, retryAt);
}

function defaultKind(status: number): ProviderCallErrorKind {
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'unavailable';
  if (status === 401 || status === 403) return 'unauthorized';
  if (status === 412) return 'not_permitted';
  return 'rejected';
}

/**
 * When to try again after a 429, Unix ms: Retry-After, else X-RateLimit-Reset, else the floor plus
 * jitter; null only when the context has no floor and the answer named no time.
 */
export function retryAtOf(context: HttpContext, headers: Headers): number | null {
  const now = context.now();
  const named = retryAfterOf(headers.get('retry-after'), now) ?? resetAt(headers.get('x-ratelimit-reset'), now);
  if (named !== null || context.rateLimitFloorMs === null) return named;
  const jitter = Math.floor((context.random ?? Math.random)() * context.rateLimitFloorMs / 5);
  return now + context.rateLimitFloorMs + jitter;
}

/** `Retry-After` (whole seconds or an HTTP date) as Unix ms, or null when absent or unreadable. */
export function retryAfterOf(header: string | null, now: number): number | null {
  const value = header?.trim();
  if (!value) return null;
  if (/^\d+$/.test(value)) return now + Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(now, date) : null;
}

/**
 * `X-RateLimit-Reset` as Unix ms. Wahoo documents it as seconds; assume: seconds until the reset, unless
 * the number is so large it can only be an epoch time (some APIs send that), which is then taken as such.
 * intervals.icu's `X-RateLimit-*` is reported by one integrator only [unverified] and read the same way.
 */
export function resetAt(header: string | null, now: number): number | null {
  const value = header?.trim();
  if (!value || !/^\d+(\.\d+)?$/.test(value)) return null;
  const seconds = Number(value);
  return seconds > 1_000_000_000 ? seconds * 1000 : now + Math.ceil(seconds * 1000);
}

/** A URL for a log line or an error message: query values (pull tokens, callback tokens) are hidden. */
export function redact(url: string): string {
  const at = url.indexOf('?');
  return at < 0 ? url : `${url.slice(0, at)}?…`;
}

/** A form body (`application/x-www-form-urlencoded`) from defined values only. */
export function formBody(fields: Record<string, string | undefined>): URLSearchParams {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) body.set(name, value);
  return body;
}

/**
 * Gunzips bytes that start with the gzip magic (1f 8b); others are returned as they are. At most
 * PROVIDER_FILE_MAX_BYTES come out (a small gzip can unpack to gigabytes): more is `rejected`.
 */
export function maybeGunzip(context: HttpContext, bytes: Uint8Array, what: string): Uint8Array {
  if (bytes.length < 2 || bytes[0] !== 0x1f || bytes[1] !== 0x8b) return bytes;
  try {
    return new Uint8Array(gunzipSync(bytes, { maxOutputLength: PROVIDER_FILE_MAX_BYTES }));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_BUFFER_TOO_LARGE') throw error;
    throw new ProviderCallError(context.provider, 'rejected', `${what}: the file unpacks to more than ${PROVIDER_FILE_MAX_BYTES} bytes`);
  }
}
