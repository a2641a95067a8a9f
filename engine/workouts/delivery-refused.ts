/**
 * A delivery that retrying cannot help, with the stable `reason` the API shows (gateway/schemas/workouts.ts
 * lists them) and the provider's words as detail. Provider calls fail with a ProviderCallError
 * (engine/integrations/provider-http.ts); `refusalOf` names the refusals among them by HTTP status: Garmin's
 * 412 means the user did not grant WORKOUT_IMPORT [GAR-trn]; 401 means the token was refused (providers.md:
 * "assume: 401 = re-authorize"). Rate limits and 5xx are not refusals: the delivery job waits or retries.
 * Kept honest by test/gateway/workouts.test.ts against the stand-ins.
 */
import type { ProviderCallError } from '../integrations/provider-call-error.js';

export class DeliveryRefused extends Error {
  constructor(readonly reason: string, readonly detail: string) {
    super(`${reason}: ${detail}`);
    this.name = 'DeliveryRefused';
  }
}

const REASONS: Record<number, string> = {
  400: 'rejected',
  401: 'authorization_refused',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  412: 'permission_missing',
  422: 'rejected',
};

/** The refusal a provider's answer means for the delivery; null when it is worth trying again (`retryable`). */
export function refusalOf(error: ProviderCallError): DeliveryRefused | null {
  if (error.retryable) return null;
  const reason = (error.status !== null ? REASONS[error.status] : undefined)
    ?? (error.kind === 'unauthorized' ? 'authorization_refused' : error.kind === 'not_permitted' ? 'permission_missing' : 'rejected');
  return new DeliveryRefused(reason, error.message);
}
