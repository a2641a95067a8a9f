/**
 * Portal links and the visits they open (interface §4 "Portal": "Create the link when the user acts and
 * send the user to it straight away; never store or reuse it"; gaps.md "Portal": "Links are single-use
 * and short-lived").
 *
 * - A link is 256 random bits (base64url, 43 characters); only its SHA-256 is stored. It lives
 *   5 minutes: the app creates it when the user clicks and redirects at once, so minutes are plenty.
 * - Following it uses it up by one conditional write (of two concurrent uses exactly one wins) and opens
 *   a portal visit: a second random cookie, bound to this one link's user, application and destination,
 *   for 30 minutes. The visit signs the browser in to the portal only: its cookie (Path=/, `__Host-` on
 *   https, auth/credential-cookies.ts) is read by the portal alone and is not an account session, so the
 *   account pages still ask for a sign-in.
 * - A used link stays on record (answering "already used", not "unknown") until a day after its visit
 *   ends, when the sweep removes it.
 *
 * Kept honest by test/gateway/portal.test.ts.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import type { PortalSessionRecord, Store } from '../../storage/store.js';
import type { PortalDestination } from '../../domain/account-status.js';
import { newId } from '../../storage/ids.js';
import { hashSecret } from './secrets.js';
import { sometimesSweep } from './sweep.js';
import { ServiceCookie } from './credential-cookies.js';

/** A link's lifetime while unused: 5 minutes. */
export const PORTAL_LINK_TTL_MS = 5 * 60_000;
/** A portal visit's lifetime once the link is used: 30 minutes. */
export const PORTAL_VISIT_TTL_MS = 30 * 60_000;
/** How long a used or expired link is remembered, to say so rather than "unknown". */
const REMEMBERED_MS = 24 * 60 * 60_000;

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export type LinkUse =
  | { ok: true; record: PortalSessionRecord; cookie: string }
  | { ok: false; reason: 'used' | 'expired' | 'unknown'; record: PortalSessionRecord | null };

export class PortalLinks {
  /** `__Host-threshold_portal` on https. */
  readonly cookie: ServiceCookie;

  constructor(private readonly store: Store, baseUrl: string) {
    this.cookie = new ServiceCookie('threshold_portal', baseUrl);
  }

  /** A new link for the user and application; the clear token is returned once and never stored. */
  async create(
    request: { userId: string; applicationId: string; destination: PortalDestination; returnUrl: string | null },
    now = Date.now(),
  ): Promise<{ token: string; record: PortalSessionRecord }> {
    const token = randomBytes(32).toString('base64url');
    const record: PortalSessionRecord = {
      id: newId(),
      token_hash: hashSecret(token),
      user_id: request.userId,
      application_id: request.applicationId,
      destination: request.destination,
      return_url: request.returnUrl,
      expires_at: now + PORTAL_LINK_TTL_MS,
      consumed_at: null,
      browser_hash: null,
      csrf_token: randomBytes(32).toString('base64url'),
      created_at: now,
    };
    await this.store.portal_sessions.insert(record);
    await sometimesSweep(this.store.portal_sessions, now, REMEMBERED_MS);
    return { token, record };
  }

  /** Uses the link up and opens its visit (setting the cookie), or says why it cannot be used. */
  async use(ctx: Context, token: unknown, now = Date.now()): Promise<LinkUse> {
    if (typeof token !== 'string' || !TOKEN.test(token)) return { ok: false, reason: 'unknown', record: null };
    const tokenHash = hashSecret(token);
    const cookie = randomBytes(32).toString('base64url');
    const record = await this.store.portal_sessions.updateOne(
      { token_hash: tokenHash, consumed_at: null, expires_at: { $gt: now } },
      { set: { consumed_at: now, browser_hash: hashSecret(cookie), expires_at: now + PORTAL_VISIT_TTL_MS } },
    );
    if (record) {
      this.cookie.write(ctx, cookie, PORTAL_VISIT_TTL_MS);
      return { ok: true, record, cookie };
    }
    const known = await this.store.portal_sessions.findOne({ token_hash: tokenHash });
    if (!known) return { ok: false, reason: 'unknown', record: null };
    return { ok: false, reason: known.consumed_at !== null ? 'used' : 'expired', record: known };
  }

  /** The browser's live portal visit, or null. */
  async visit(ctx: Context, now = Date.now()): Promise<PortalSessionRecord | null> {
    const value = this.cookie.read(ctx);
    if (!value || !TOKEN.test(value)) return null;
    const record = await this.store.portal_sessions.findOne({ browser_hash: hashSecret(value) });
    return record && record.consumed_at !== null && record.expires_at > now ? record : null;
  }

  /** Constant-time comparison of a submitted CSRF token with the visit's. */
  static csrfMatches(visit: PortalSessionRecord, submitted: unknown): boolean {
    if (typeof submitted !== 'string' || submitted.length !== visit.csrf_token.length) return false;
    return timingSafeEqual(Buffer.from(submitted), Buffer.from(visit.csrf_token));
  }
}
