/**
 * Fixed-window rate limiting in memory, per process (AUTH.md: sign-in, magic links and the token
 * endpoint are rate-limited; gaps.md: 429 carries an integer `Retry-After`). A limiter counts events
 * per key; callers decide what an event is (a failed password, a sent link, a failed token request).
 * With several gateway replicas each counts on its own, so the effective limit is per replica.
 */
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

/** The limiters of one gateway process. */
export interface RateLimits {
  /** Failed password sign-ins per email and per client address. */
  signInFailures: RateLimiter;
  /** Sign-in links sent per email and per client address. */
  magicLinks: RateLimiter;
  /** Accounts created per client address. */
  signUps: RateLimiter;
  /** Failed token requests per client id and per client address. */
  tokenFailures: RateLimiter;
}

export function createRateLimits(): RateLimits {
  return {
    signInFailures: new RateLimiter({ max: 10, windowMs: 15 * 60_000 }),
    magicLinks: new RateLimiter({ max: 5, windowMs: 15 * 60_000 }),
    signUps: new RateLimiter({ max: 20, windowMs: 60 * 60_000 }),
    tokenFailures: new RateLimiter({ max: 20, windowMs: 60_000 }),
  };
}

/**
 * The client's address, the key every limit counts under: the socket's, or with TRUST_PROXY the one
 * X-Forwarded-For names (Koa's `ctx.ip` follows `app.proxy`).
 */
export function clientAddress(ctx: Context): string {
  return ctx.ip.replace(/^::ffff:/, '') || 'unknown';
}
