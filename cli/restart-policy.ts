/**
 * When `threshold serve` restarts a gateway process that exited, and when it gives up. A process that
 * dies before it ever became ready (it never listened: the port is taken, the store cannot be opened)
 * is a failure at start; `maxStartFailures` of them in a row, with no process becoming ready in between,
 * stop the service. Each restart waits longer than the one before (exponential, capped), so a failing
 * start never spins. A process that crashes after it served is always restarted: at once after a long
 * life, with the same back-off when it keeps crashing soon after becoming ready.
 *
 * Pure (no clocks, no processes): cli/serve-processes.ts feeds it; test/cli/restart-policy.test.ts
 * holds it to these rules.
 */

export interface RestartPolicyOptions {
  /** Failures at start in a row that stop the service. */
  maxStartFailures: number;
  /** The first restart's wait, milliseconds; each further one doubles it. */
  baseDelayMs: number;
  /** The longest wait between restarts, milliseconds. */
  maxDelayMs: number;
  /** A process that served this long before it crashed is restarted at once, milliseconds. */
  stableMs: number;
}

export const RESTART_DEFAULTS: RestartPolicyOptions = {
  maxStartFailures: 5, // 5 failures at start in a row stop the service
  baseDelayMs: 250, // 250 ms, 500 ms, 1 s, 2 s, … before each restart
  maxDelayMs: 10_000, // never more than 10 s between restarts
  stableMs: 30_000, // a process that served 30 s is restarted without waiting
};

export type ExitDecision = { action: 'restart'; delayMs: number } | { action: 'give-up'; failures: number };

export class RestartPolicy {
  #startFailures = 0;
  #quickCrashes = 0;

  constructor(private readonly options: RestartPolicyOptions = RESTART_DEFAULTS) {}

  /** A process became ready: failures at start are no longer in a row. */
  ready(): void {
    this.#startFailures = 0;
  }

  /** A process exited (not asked to): `servedMs` since it became ready, null when it never did. */
  exited(servedMs: number | null): ExitDecision {
    if (servedMs === null) {
      this.#startFailures++;
      if (this.#startFailures >= this.options.maxStartFailures) return { action: 'give-up', failures: this.#startFailures };
      return { action: 'restart', delayMs: this.#backoff(this.#startFailures) };
    }
    if (servedMs >= this.options.stableMs) this.#quickCrashes = 0;
    this.#quickCrashes++;
    return { action: 'restart', delayMs: this.#quickCrashes === 1 ? 0 : this.#backoff(this.#quickCrashes - 1) };
  }

  #backoff(attempt: number): number {
    return Math.min(this.options.maxDelayMs, this.options.baseDelayMs * 2 ** (attempt - 1));
  }
}
