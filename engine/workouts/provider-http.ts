/**
 * One HTTP call to a provider's workout API, and what its answer means for the delivery: 2xx → the
 * parsed body; 429, 5xx, a timeout or a network error → `DeliveryUnavailable` (transient: the job runner
 * retries with its back-off); anything else → `DeliveryRefused` with a stable reason and the provider's
 * words as detail (permanent: retrying cannot help). Garmin's 412 means the user did not grant
 * WORKOUT_IMPORT [GAR-trn]; 401 means the token was refused (providers.md: "assume: 401 = re-authorize").
 * Kept honest by test/gateway/workouts.test.ts against the stand-ins.
 */
import type { Provider } from '../../domain/providers.js';

export class DeliveryRefused extends Error {
  constructor(readonly reason: string, readonly detail: string) {
    super(`${reason}: ${detail}`);
    this.name = 'DeliveryRefused';
  }
}

export class DeliveryUnavailable extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, { cause });
    this.name = 'DeliveryUnavailable';
  }
}

export interface ProviderHttp {
  provider: Provider;
  /** The API base, possibly with a path (a proxy's prefix); call paths are appended to it. */
  baseUrl: string;
  token: string;
  fetch: typeof fetch;
  signal: AbortSignal;
}

/** Each call's own deadline, milliseconds. */
export const PROVIDER_CALL_TIMEOUT_MS = 30_000;
const DETAIL_CHARS = 300;

const REASONS: Record<number, string> = {
  400: 'rejected',
  401: 'authorization_refused',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  412: 'permission_missing',
  422: 'rejected',
};

export interface CallBody {
  json?: unknown;
  /** application/x-www-form-urlencoded fields (Wahoo). */
  form?: Record<string, string>;
}

/** `what` names the call in details: `'garmin_connect create workout'`. Null for an empty 2xx body. */
export async function callProvider(http: ProviderHttp, method: string, path: string, body: CallBody, what: string): Promise<unknown> {
  const headers: Record<string, string> = { authorization: `Bearer ${http.token}`, accept: 'application/json' };
  let payload: string | undefined;
  if (body.json !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body.json);
  } else if (body.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    payload = new URLSearchParams(body.form).toString();
  }
  let response: Response;
  try {
    response = await http.fetch(`${http.baseUrl.replace(/\/+$/, '')}${path}`, {
      method, headers, ...(payload !== undefined && { body: payload }),
      signal: AbortSignal.any([http.signal, AbortSignal.timeout(PROVIDER_CALL_TIMEOUT_MS)]),
    });
  } catch (error) {
    if (http.signal.aborted) throw error;
    throw new DeliveryUnavailable(`${what}: ${error instanceof Error ? error.message : String(error)}`, error);
  }
  const text = await response.text().catch(() => '');
  if (response.ok) {
    if (!text) return null;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new DeliveryRefused('bad_response', `${what}: HTTP ${response.status} with a body that is not JSON`);
    }
  }
  const detail = `${what}: HTTP ${response.status}${text ? ` ${text.slice(0, DETAIL_CHARS)}` : ''}`;
  if (response.status === 429 || response.status >= 500) throw new DeliveryUnavailable(detail);
  throw new DeliveryRefused(REASONS[response.status] ?? 'rejected', detail);
}

/** A field of a JSON answer as a string id (providers answer numbers or strings), or a DeliveryRefused. */
export function idField(answer: unknown, field: string, what: string): string {
  const value = typeof answer === 'object' && answer !== null ? (answer as Record<string, unknown>)[field] : undefined;
  if (typeof value === 'number' || (typeof value === 'string' && value !== '')) return String(value);
  throw new DeliveryRefused('bad_response', `${what}: the answer has no ${field}`);
}
