/**
 * The HTTP edge every provider client shares: one request with a deadline, and the mapping of an answer
 * that is not what the call wanted onto a ProviderCallError. A 429 becomes `rate_limited` at the time the
 * provider names — `Retry-After` first (seconds or an HTTP date), else `X-RateLimit-Reset` (Wahoo), else
 * the provider's floor plus jitter (Garmin documents neither header: wait ≥ 60 s) — so a job resumes at
 * the right time without losing its place. Deliberately no retries and no waiting here.
 * Kept honest by test/engine/integrations/provider-http.test.ts and the provider tests.
 */
import type { Provider } from '../../domain/providers.js';
import { ProviderCallError, type ProviderCallErrorKind } from './provider-call-error.js';

export type Fetch = typeof fetch;

export interface HttpContext {
  provider: Provider;
  fetch: Fetch;
  /** Unix ms; injected so token expiry and rate-limit resets follow a test's fake clock. */
  now: () => number;
  /** Per request, milliseconds. */
  timeoutMs: number;
  /** Least wait after a 429 that names no time, milliseconds (jitter of up to a fifth is added). */
  rateLimitFloorMs: number;
  /** [0, 1); injected for tests that pin the jitter. */
  random?: () => number;
}

/**
 * One request; a network failure or a timeout is `unavailable`, any HTTP answer is returned as is.
 * Redirects are followed (a file URL may lead to a CDN); fetch drops the Authorization header when a
 * redirect leaves the origin, so a token never reaches another host.
 */
export async function send(context: HttpContext, url: string, init: RequestInit = {}): Promise<Response> {
  try {
    return await context.fetch(url, { ...init, signal: AbortSignal.timeout(context.timeoutMs) });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ProviderCallError(context.provider, 'unavailable', `${context.provider}: ${init.method ?? 'GET'} ${redact(url)} failed: ${reason}`);
  }
}

/** Reads the body of an answer that should be JSON; anything else is `unavailable` (a proxy's HTML page, a cut body). */
export async function readJson(context: HttpContext, response: Response, what: string): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new ProviderCallError(context.provider, 'unavailable', `${context.provider}: ${what} answered ${response.status} with a body that is not JSON`, response.status);
  }
}

/**
 * The ProviderCallError for an answer the call did not want. `kinds` overrides the default per status
 * (401 unauthorized, 403 unauthorized, 412 not_permitted, 429 rate_limited, 5xx unavailable, other 4xx
 * rejected); e.g. Garmin's backfill makes 403 `not_permitted`.
 */
export async function failure(context: HttpContext, response: Response, what: string, kinds: Partial<Record<number, ProviderCallErrorKind>> = {}): Promise<ProviderCallError> {
  const status = response.status;
  const kind = kinds[status] ?? defaultKind(status);
  const detail = (await response.text().catch(() => '')).slice(0, 300);
  const retryAt = kind === 'rate_limited' ? retryAtOf(context, response.headers) : null;
  return new ProviderCallError(context.provider, kind, `${context.provider}: ${what} answered ${status}${detail ? ` ${detail}` : ''}`, status, retryAt);
}

function defaultKind(status: number): ProviderCallErrorKind {
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'unavailable';
  if (status === 401 || status === 403) return 'unauthorized';
  if (status === 412) return 'not_permitted';
  return 'rejected';
}

/** When to try again after a 429: Retry-After, else X-RateLimit-Reset, else the floor plus jitter. Unix ms. */
export function retryAtOf(context: HttpContext, headers: Headers): number {
  const now = context.now();
  const retryAfter = headers.get('retry-after')?.trim();
  if (retryAfter) {
    if (/^\d+$/.test(retryAfter)) return now + Number(retryAfter) * 1000;
    const date = Date.parse(retryAfter);
    if (Number.isFinite(date)) return Math.max(now, date);
  }
  const reset = resetAt(headers.get('x-ratelimit-reset'), now);
  if (reset !== null) return reset;
  const jitter = Math.floor((context.random ?? Math.random)() * context.rateLimitFloorMs / 5);
  return now + context.rateLimitFloorMs + jitter;
}

/**
 * `X-RateLimit-Reset` as Unix ms. Wahoo documents it as seconds; assume: seconds until the reset, unless
 * the number is so large it can only be an epoch time (some APIs send that), which is then taken as such.
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
