/**
 * Fixed-window rate limiting in memory, per process (AUTH.md: sign-in, magic links and the token
 * endpoint are rate-limited; gaps.md: 429 carries an integer `Retry-After`). A limiter counts events
 * per key; callers decide what an event is (a failed password, a sent link, a failed token request).
 * With several gateway replicas each counts on its own, so the effective limit is per replica; the
 * processes of one `threshold serve` split each budget between them (createRateLimits `processes`).
 *
 * Password sign-in locks (429) per (account, address) and per address, which only ever stops the
 * address that misbehaves, and per account only slows down (SlowDown): a lockout per account would let
 * anyone who knows an email keep its owner out. Kept honest by test/gateway/sign-in.test.ts.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Context } from 'koa';

export interface Limit {
  /** Events allowed per window. */
  max: number;
  /** Window length, milliseconds. */
  windowMs: number;
}

/** Keys are dropped once their window ends; beyond this many live keys the oldest windows go first. */
const MAX_KEYS = 100_000;

export class RateLimiter {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();

  constructor(readonly limit: Limit) {}

  /** Whether `key` is over its limit now, without counting an event. Seconds to wait when it is. */
  retryAfter(key: string, now = Date.now()): number | null {
    const window = this.windows.get(key);
    if (!window || window.resetAt <= now || window.count < this.limit.max) return null;
    return Math.max(1, Math.ceil((window.resetAt - now) / 1000));
  }

  /** Events counted for `key` in its current window. */
  count(key: string, now = Date.now()): number {
    const window = this.windows.get(key);
    return window && window.resetAt > now ? window.count : 0;
  }

  /** Counts one event for `key`. */
  record(key: string, now = Date.now()): void {
    let window = this.windows.get(key);
    if (!window || window.resetAt <= now) {
      if (this.windows.size >= MAX_KEYS) this.prune(now);
      window = { count: 0, resetAt: now + this.limit.windowMs };
      this.windows.set(key, window);
    }
    window.count += 1;
  }

  /** Takes back one event counted for `key` in its current window (an attempt counted up front that succeeded). */
  release(key: string, now = Date.now()): void {
    const window = this.windows.get(key);
    if (window && window.resetAt > now && window.count > 0) window.count -= 1;
  }

  /** Forgets `key` (a successful sign-in clears its failures). */
  reset(key: string): void {
    this.windows.delete(key);
  }

  private prune(now: number): void {
    for (const [key, window] of this.windows) if (window.resetAt <= now) this.windows.delete(key);
    // Still full: drop the oldest insertions (Map iterates in insertion order).
    for (const key of this.windows.keys()) {
      if (this.windows.size < MAX_KEYS) break;
      this.windows.delete(key);
    }
  }
}

export interface SlowDownPolicy {
  /** Failures within the window before attempts start to wait (people mistype). */
  free: number;
  /** The wait once `free` failures are counted, milliseconds; it doubles with each further failure. */
  firstDelayMs: number;
  /** The longest delay, milliseconds. */
  maxDelayMs: number;
  /** How long a failure counts, milliseconds (a fixed window, as the limiters use). */
  windowMs: number;
}

/** Waits `ms` milliseconds: the seam tests replace so that they never wait. */
export type Pause = (ms: number) => Promise<void>;

/**
 * Slows guesses against one key down without ever locking it. Each attempt waits before it is checked:
 * nothing until `free` failures are counted, then `firstDelayMs`, doubling with each further failure,
 * at most `maxDelayMs`. The wait comes before the check and applies to a correct attempt too: if only
 * failures waited, a guesser could give up on any answer slower than a success and guess at full speed.
 * An attempt counts as a failure from the moment it starts (`attempt`) until it succeeds (`release`),
 * so parallel attempts wait for each other's failures instead of all passing at the first delay.
 */
export class SlowDown {
  private readonly failures: RateLimiter;

  constructor(readonly policy: SlowDownPolicy, private readonly pause: Pause = (ms) => sleep(ms)) {
    this.failures = new RateLimiter({ max: Number.POSITIVE_INFINITY, windowMs: policy.windowMs });
  }

  /** The delay the next attempt on `key` waits, milliseconds. */
  delayMs(key: string, now = Date.now()): number {
    const beyond = this.failures.count(key, now) - this.policy.free;
    if (beyond < 0) return 0;
    return Math.min(this.policy.maxDelayMs, this.policy.firstDelayMs * 2 ** Math.min(beyond, 30));
  }

  /**
   * Starts an attempt on `key`: counts it as a failure now (synchronously, so a parallel attempt sees it)
   * and waits the delay that was due before it.
   */
  async attempt(key: string, now = Date.now()): Promise<void> {
    const ms = this.delayMs(key, now);
    this.failures.record(key, now);
    if (ms > 0) await this.pause(ms);
  }

  /** The attempt succeeded: it no longer counts as a failure. */
  release(key: string): void {
    this.failures.release(key);
  }
}

/** The limiters of one gateway process. */
export interface RateLimits {
  /** Failed password sign-ins per (account, address): past the limit, 429 for that account from that address. */
  signInFailures: RateLimiter;
  /** Failed password sign-ins per client address, whatever the account: past the limit, 429 for that address. */
  signInAddressFailures: RateLimiter;
  /** Failed password sign-ins per account, from every address: a growing delay, never a lockout. */
  signInSlowDown: SlowDown;
  /** Sign-in links sent per email and per client address. */
  magicLinks: RateLimiter;
  /** Accounts created per client address. */
  signUps: RateLimiter;
  /** Failed token requests per client id and per client address. */
  tokenFailures: RateLimiter;
}

/**
 * The production limits; `pause` replaces the slow-down's real wait (tests record it instead). With
 * `processes` > 1 (`threshold serve` on several cores, each process counting in its own memory), every
 * budget is split between them, rounded up, so the processes together never allow more than one
 * would: a client whose requests all reach one process (one keep-alive connection) gets its share.
 */
export function createRateLimits(options: { pause?: Pause; processes?: number } = {}): RateLimits {
  const share = (max: number): number => Math.max(1, Math.ceil(max / (options.processes ?? 1)));
  const limiter = (max: number, windowMs: number): RateLimiter => new RateLimiter({ max: share(max), windowMs });
  return {
    // One person at one address mistyping, or one address guessing one account: 10 per 15 minutes.
    signInFailures: limiter(10, 15 * 60_000),
    // One address trying many accounts (spraying); room for a shared NAT: 30 per 15 minutes.
    signInAddressFailures: limiter(30, 15 * 60_000),
    // Guesses from many addresses at one account: after 4 failures in 15 minutes each attempt waits
    // 250 ms, doubling with each failure to at most 3 s (0.25, 0.5, 1, 2, 3, 3 … s).
    signInSlowDown: new SlowDown({ free: share(4), firstDelayMs: 250, maxDelayMs: 3000, windowMs: 15 * 60_000 }, options.pause),
    magicLinks: limiter(5, 15 * 60_000),
    signUps: limiter(20, 60 * 60_000),
    tokenFailures: limiter(20, 60_000),
  };
}

/**
 * The client's address, the key every limit counts under: the socket's, or with TRUST_PROXY the one
 * X-Forwarded-For names (Koa's `ctx.ip` follows `app.proxy`).
 */
export function clientAddress(ctx: Context): string {
  return ctx.ip.replace(/^::ffff:/, '') || 'unknown';
}
