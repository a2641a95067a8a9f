/**
 * How long a job waits after a provider throttled it, and where that wait is spent: inside the job (short
 * waits, its lease renewed meanwhile), back in the queue (RescheduleJob, no attempt spent), or not at all
 * because it is too long to be worth keeping the work open (the caller then reports the provider as
 * unavailable). The backfill (backfill-job.ts) and workout delivery (engine/jobs/workout-jobs.ts) both
 * decide here, so a `Retry-After` means the same wait to both.
 *
 * Deliberately not here: reading the headers (provider-http.ts `retryAtOf`) and the waiting itself.
 * Kept honest by test/engine/integrations/provider-http.test.ts, test/gateway/backfill-rate-limit.test.ts
 * and test/gateway/workout-delivery-rate-limit.test.ts.
 */
import { backoffMs } from './provider.js';

/**
 * Milliseconds until the next try: until `retryAt` (Unix ms) when the provider named a time, else
 * back-off with jitter by `streak`, the throttled answers in a row (1 for the first).
 */
export function rateLimitWaitMs(retryAt: number | null, streak: number, now: number): number {
  return retryAt !== null ? Math.max(0, retryAt - now) : backoffMs(streak);
}

export interface WaitLimits {
  /** Waits up to this long are spent inside the job, milliseconds (0: never). */
  inlineMaxMs: number;
  /** Longer waits end the work instead of requeueing it, milliseconds (Infinity: always requeue). */
  capMs: number;
  /** Requeue whatever the length (a daily quota, too many throttled answers in a row). */
  queue?: boolean;
}

export type WaitPlace = 'inline' | 'reschedule' | 'give_up';

/** Where a wait of `waitMs` is spent under `limits`. */
export function placeWait(waitMs: number, limits: WaitLimits): WaitPlace {
  if (waitMs > limits.capMs) return 'give_up';
  if (limits.queue || waitMs > limits.inlineMaxMs) return 'reschedule';
  return 'inline';
}
