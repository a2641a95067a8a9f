/**
 * Fixed-window rate limiting in the store (AUTH.md: sign-in, magic links and the token endpoint are
 * rate-limited; gaps.md: 429 carries an integer `Retry-After`). A limiter counts events per key; callers
 * decide what an event is (a failed password, a sent link, a failed token request). The counters live in
 * the store's `rate_limits` collection (storage/window-counters.ts), so every gateway process and host
 * spends from one budget per key; keys are stored hashed, under the limit's name. A window opens with a
 * key's first event and lasts the limit's `windowMs`; expired windows are swept now and then by whoever
 * opens a new one (sweep.ts).
 *
 * Password sign-in locks (429) per (account, address) and per address, which only ever stops the
 * address that misbehaves, and per account only slows down (SlowDown): a lockout per account would let
 * anyone who knows an email keep its owner out. Kept honest by test/gateway/sign-in.test.ts,
 * test/gateway/auth/rate-limit.test.ts and test/gateway/rate-limit-processes.test.ts (two gateway
 * processes on one store).
 */
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Context } from 'koa';
import type { Collection, RateLimitRecord, Store } from '../../storage/store.js';
import { countEvent, liveWindow, uncountEvent, type CountedWindow } from '../../storage/window-counters.js';
import { sometimesSweep } from './sweep.js';

export interface Limit {
  /** Events allowed per window. */
  max: number;
  /** Window length, milliseconds. */
  windowMs: number;
}

/** Whole seconds until `expiresAt` (epoch ms), at least 1: the integer Retry-After. */
function secondsUntil(expiresAt: number, now: number): number {
  return Math.max(1, Math.ceil((expiresAt - now) / 1000));
}

export class RateLimiter {
  /**
   * `name` tells this limit's counters apart from every other limit's in the store (`sign_in`, `token` …);
   * `counters` is the store's `rate_limits` collection.
   */
  constructor(readonly name: string, readonly limit: Limit, private readonly counters: Collection<RateLimitRecord>) {}

  /** The stored counter's id: the limit's name and the key's SHA-256 (keys hold emails and addresses). */
  private id(key: string): string {
    return `${this.name}:${createHash('sha256').update(key).digest('base64url')}`;
  }

  /** Whether `key` is over its limit now, without counting an event. Seconds to wait when it is. */
  async retryAfter(key: string, now = Date.now()): Promise<number | null> {
    const window = await liveWindow(this.counters, this.id(key), now);
    return window && window.count >= this.limit.max ? secondsUntil(window.expires_at, now) : null;
  }

  /** Events counted for `key` in its current window. */
  async count(key: string, now = Date.now()): Promise<number> {
    return (await liveWindow(this.counters, this.id(key), now))?.count ?? 0;
  }

  /** Counts one event for `key`; its window after the event. */
  async record(key: string, now = Date.now()): Promise<CountedWindow> {
    const window = await countEvent(this.counters, this.id(key), this.limit.windowMs, now);
    // The first event of a window: whoever opens windows sweeps the expired ones now and then.
    if (window.count === 1) await sometimesSweep(this.counters, now);
    return window;
  }

  /**
   * Counts one event for `key` unless it would go past the limit: then it is taken back at once and the
   * answer is the seconds to wait; null when it was counted. One atomic increment decides, so parallel
   * attempts, in any process, never pass the limit together.
   */
  async take(key: string, now = Date.now()): Promise<number | null> {
    const window = await this.record(key, now);
    if (window.count <= this.limit.max) return null;
    await uncountEvent(this.counters, this.id(key), now);
    return secondsUntil(window.expires_at, now);
  }

  /** Takes back one event counted for `key` in its current window (an attempt counted up front that succeeded). */
  async release(key: string, now = Date.now()): Promise<void> {
    await uncountEvent(this.counters, this.id(key), now);
  }

  /** Forgets `key` (a successful sign-in clears its failures). */
  async reset(key: string): Promise<void> {
    await this.counters.deleteMany({ id: this.id(key) });
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
 * and its delay follows from the count its own increment returned, so parallel attempts, in any process,
 * wait for each other's failures instead of all passing at the first delay.
 */
export class SlowDown {
  private readonly failures: RateLimiter;

  /** `name` and `counters` as RateLimiter's. */
  constructor(readonly policy: SlowDownPolicy, name: string, counters: Collection<RateLimitRecord>, private readonly pause: Pause = (ms) => sleep(ms)) {
    this.failures = new RateLimiter(name, { max: Number.POSITIVE_INFINITY, windowMs: policy.windowMs }, counters);
  }

  /** The delay of an attempt that follows `failures` counted failures, milliseconds. */
  delayMs(failures: number): number {
    const beyond = failures - this.policy.free;
    if (beyond < 0) return 0;
    return Math.min(this.policy.maxDelayMs, this.policy.firstDelayMs * 2 ** Math.min(beyond, 30));
  }

  /** Starts an attempt on `key`: counts it as a failure now and waits the delay that was due before it. */
  async attempt(key: string, now = Date.now()): Promise<void> {
    const { count } = await this.failures.record(key, now);
    const ms = this.delayMs(count - 1);
    if (ms > 0) await this.pause(ms);
  }

  /** The attempt succeeded: it no longer counts as a failure. */
  async release(key: string): Promise<void> {
    await this.failures.release(key);
  }
}

/** The limiters of a gateway: every process and host on one store shares each budget. */
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
  /** Failed token requests per client address. */
  tokenFailures: RateLimiter;
}

/** The production limits, counted in `store`; `pause` replaces the slow-down's real wait (tests record it instead). */
export function createRateLimits(store: Pick<Store, 'rate_limits'>, options: { pause?: Pause } = {}): RateLimits {
  const counters = store.rate_limits;
  const limiter = (name: string, max: number, windowMs: number): RateLimiter => new RateLimiter(name, { max, windowMs }, counters);
  return {
    // One person at one address mistyping, or one address guessing one account: 10 per 15 minutes.
    signInFailures: limiter('sign_in', 10, 15 * 60_000),
    // One address trying many accounts (spraying); room for a shared NAT: 30 per 15 minutes.
    signInAddressFailures: limiter('sign_in_address', 30, 15 * 60_000),
    // Guesses from many addresses at one account: after 4 failures in 15 minutes each attempt waits
    // 250 ms, doubling with each failure to at most 3 s (0.25, 0.5, 1, 2, 3, 3 … s).
    signInSlowDown: new SlowDown({ free: 4, firstDelayMs: 250, maxDelayMs: 3000, windowMs: 15 * 60_000 }, 'sign_in_account', counters, options.pause),
    magicLinks: limiter('magic_link', 5, 15 * 60_000),
    signUps: limiter('sign_up', 20, 60 * 60_000),
    tokenFailures: limiter('token', 20, 60_000),
  };
}

/**
 * The client's address, the key every limit counts under: the socket's, or with TRUST_PROXY the one
 * X-Forwarded-For names (Koa's `ctx.ip` follows `app.proxy`).
 */
export function clientAddress(ctx: Context): string {
  return ctx.ip.replace(/^::ffff:/, '') || 'unknown';
}
