/**
 * Browser sessions (AUTH.md "sessions and sign-in"): an opaque 256-bit cookie, HttpOnly, SameSite=Lax, Path=/,
 * `__Host-` and Secure when the base URL is https (auth/credential-cookies.ts: a cookie that arrives twice is
 * not honoured), stored only as its SHA-256. Every form is protected by the
 * session's CSRF token, so a browser gets an anonymous session the first time it is shown a form.
 * Signing in never upgrades a session in place: it issues a new id, cookie and CSRF token (no fixation)
 * and moves the old session's pending interactions to the new one.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import type { SessionRecord, Store, UserRecord } from '../../storage/store.js';
import { newId } from '../../storage/ids.js';
import { hashSecret } from './secrets.js';
import { sometimesSweep } from './sweep.js';
import { ServiceCookie } from './credential-cookies.js';

/** An anonymous session lives an hour; a signed-in one 14 days. */
const ANONYMOUS_TTL_MS = 60 * 60 * 1000;
const SIGNED_IN_TTL_MS = 14 * 24 * 60 * 60 * 1000;

export class Sessions {
  /** `__Host-threshold_session` on https, which binds the cookie to this host and Path=/. */
  readonly cookie: ServiceCookie;

  constructor(private readonly store: Store, baseUrl: string) {
    this.cookie = new ServiceCookie('threshold_session', baseUrl);
  }

  /** The browser's live session, or null. Cached on the request. */
  async current(ctx: Context, now = Date.now()): Promise<SessionRecord | null> {
    if (ctx.state.session !== undefined) return ctx.state.session as SessionRecord | null;
    const value = this.cookie.read(ctx);
    let session: SessionRecord | null = null;
    if (value && /^[A-Za-z0-9_-]{43}$/.test(value)) {
      session = await this.store.sessions.findOne({ session_hash: hashSecret(value) });
      if (session && session.expires_at <= now) session = null;
    }
    ctx.state.session = session;
    return session;
  }

  /** The signed-in user's session, or null (anonymous sessions do not count). */
  async signedIn(ctx: Context, now = Date.now()): Promise<(SessionRecord & { user_id: string }) | null> {
    const session = await this.current(ctx, now);
    return session?.user_id ? (session as SessionRecord & { user_id: string }) : null;
  }

  /** The signed-in person's session and account, or null; managed users never count as signed in. */
  async signedInUser(ctx: Context, now = Date.now()): Promise<{ session: SessionRecord; user: UserRecord } | null> {
    const session = await this.signedIn(ctx, now);
    const user = session ? await this.store.users.get(session.user_id) : null;
    return session && user && user.managed_by === null ? { session, user } : null;
  }

  /** The current session, or a new anonymous one (with its cookie set). */
  async ensure(ctx: Context, now = Date.now()): Promise<SessionRecord> {
    return (await this.current(ctx, now)) ?? this.create(ctx, null, now);
  }

  /** Replaces the browser's session with a signed-in one; pending interactions follow it. */
  async signIn(ctx: Context, userId: string, now = Date.now()): Promise<SessionRecord> {
    const previous = await this.current(ctx, now);
    const session = await this.create(ctx, userId, now);
    if (previous) {
      await this.store.interactions.updateMany({ session_id: previous.id, consumed_at: null }, { set: { session_id: session.id } });
      await this.store.sessions.deleteMany({ id: previous.id });
    }
    return session;
  }

  /** Ends the session and clears the cookie. */
  async signOut(ctx: Context): Promise<void> {
    const session = await this.current(ctx);
    if (session) await this.store.sessions.deleteMany({ id: session.id });
    ctx.state.session = null;
    this.cookie.clear(ctx);
  }

  /** Constant-time comparison of a submitted CSRF token with the session's. */
  static csrfMatches(session: SessionRecord, submitted: unknown): boolean {
    if (typeof submitted !== 'string' || submitted.length !== session.csrf_token.length) return false;
    return timingSafeEqual(Buffer.from(submitted), Buffer.from(session.csrf_token));
  }

  private async create(ctx: Context, userId: string | null, now: number): Promise<SessionRecord> {
    const value = randomBytes(32).toString('base64url');
    const ttl = userId ? SIGNED_IN_TTL_MS : ANONYMOUS_TTL_MS;
    const session: SessionRecord = {
      id: newId(),
      session_hash: hashSecret(value),
      user_id: userId,
      csrf_token: randomBytes(32).toString('base64url'),
      auth_time: userId ? now : null,
      expires_at: now + ttl,
      created_at: now,
    };
    await this.store.sessions.insert(session);
    await sometimesSweep(this.store.sessions, now);
    this.cookie.write(ctx, value, ttl);
    ctx.state.session = session;
    return session;
  }
}
