/**
 * One call to a provider's workout API through the shared HTTP edge (engine/integrations/provider-http.ts):
 * the connection's Bearer token, a JSON or form body, and the answer parsed as JSON (null when empty).
 * An answer the call did not want is the edge's ProviderCallError (the delivery job sorts it into wait,
 * retry or refusal); a 2xx whose body is not JSON, or lacks the id we need, is `bad_response`, final:
 * the provider did act on the call, and sending it again could create a second workout.
 * Kept honest by test/gateway/workouts.test.ts against the stand-ins.
 */
import { ProviderCallError } from '../integrations/provider-call-error.js';
import { failure, readJson, send, type HttpContext } from '../integrations/provider-http.js';
import { DeliveryRefused } from './delivery-refused.js';

/**
 * A workout API's answer: the created workout or schedule echoed back (a Garmin workout has at most 100
 * steps [GAR-trn]), a few KB; 1 MiB leaves room for any of them and no more.
 */
export const WORKOUT_ANSWER_MAX_BYTES = 1024 * 1024;

export interface WorkoutApi {
  /** The provider, fetch, deadline and the job's abort signal. */
  context: HttpContext;
  /** The API base, possibly with a path (a proxy's prefix); call paths are appended to it. */
  baseUrl: string;
  token: string;
}

export interface CallBody {
  json?: unknown;
  /** application/x-www-form-urlencoded fields (Wahoo). */
  form?: Record<string, string>;
}

/** `what` names the provider and the call in details: `'garmin_connect create workout'`. Null for an empty 2xx body. */
export async function callProvider(api: WorkoutApi, method: string, path: string, body: CallBody, what: string): Promise<unknown> {
  const headers: Record<string, string> = { authorization: `Bearer ${api.token}`, accept: 'application/json' };
  let payload: string | undefined;
  if (body.json !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body.json);
  } else if (body.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    payload = new URLSearchParams(body.form).toString();
  }
  const response = await send(api.context, `${api.baseUrl.replace(/\/+$/, '')}${path}`, { method, headers, ...(payload !== undefined && { body: payload }) });
  if (!response.ok) throw await failure(api.context, response, what);
  try {
    return await readJson(api.context, response, what, { emptyIsNull: true, maxBytes: WORKOUT_ANSWER_MAX_BYTES });
  } catch (error) {
    throw error instanceof ProviderCallError ? new DeliveryRefused('bad_response', error.message) : error;
  }
}

/** A field of a JSON answer as a string id (providers answer numbers or strings), or a DeliveryRefused. */
export function idField(answer: unknown, field: string, what: string): string {
  const value = typeof answer === 'object' && answer !== null ? (answer as Record<string, unknown>)[field] : undefined;
  if (typeof value === 'number' || (typeof value === 'string' && value !== '')) return String(value);
  throw new DeliveryRefused('bad_response', `${what}: the answer has no ${field}`);
}
