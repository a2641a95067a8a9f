/**
 * Wahoo's rate limits as its answers report them (providers.md §3, [WAH-doc]): every answer carries
 * `X-RateLimit-Limit: <day>, <hour>, <5min>`, `X-RateLimit-Remaining` in the same order and
 * `X-RateLimit-Reset: <s>`. Limits are per app (sandbox 250/100/25, production 5,000/1,000/200), so one
 * gauge serves every connection of the app. Once any window has nothing left, the gauge refuses calls
 * until the reset, so we stop before Wahoo's 429; a 429 that still comes (another process spent the
 * budget) is waited out the same way.
 *
 * assume: Wahoo sends one reset value for three windows; we take it as the seconds until the window that
 * ran out resets (provider-http.ts `resetAt`), and when no window has run out we keep going.
 * Kept honest by test/engine/integrations/wahoo-rate-limits.test.ts.
 */
import { ProviderCallError } from '../provider-call-error.js';
import { resetAt } from '../provider-http.js';

export interface RateReading {
  /** Day, hour, 5-minute window, as Wahoo orders them. */
  limit: number[];
  remaining: number[];
  /** Unix ms, or null when no reset was sent. */
  resetAt: number | null;
}

export class WahooRateGauge {
  private blockedUntil = 0;
  last: RateReading | null = null;

  /** Records what an answer's headers report. */
  observe(headers: Headers, now: number): void {
    const remaining = numbersOf(headers.get('x-ratelimit-remaining'));
    if (remaining.length === 0) return;
    const reading: RateReading = { limit: numbersOf(headers.get('x-ratelimit-limit')), remaining, resetAt: resetAt(headers.get('x-ratelimit-reset'), now) };
    this.last = reading;
    if (remaining.some((left) => left <= 0)) this.blockUntil(reading.resetAt ?? now + 60_000);
  }

  /** After a 429: nothing until `until` (Unix ms). */
  blockUntil(until: number): void {
    this.blockedUntil = Math.max(this.blockedUntil, until);
  }

  /** Throws `rate_limited` while a window is spent; call before every request. */
  check(now: number): void {
    if (now < this.blockedUntil) {
      throw new ProviderCallError('wahoo', 'rate_limited', `wahoo: rate limit spent, waiting until ${new Date(this.blockedUntil).toISOString()}`, null, this.blockedUntil);
    }
  }
}

function numbersOf(header: string | null): number[] {
  if (!header) return [];
  const values = header.split(',').map((part) => Number(part.trim()));
  return values.every(Number.isFinite) ? values : [];
}
