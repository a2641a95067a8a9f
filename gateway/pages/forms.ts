/**
 * Reading the pages' form posts. @koa/bodyparser has already parsed urlencoded (and JSON) bodies into
 * `ctx.request.body`; here every field is read as one string or not at all: a missing, repeated
 * (`a=1&a=2` → array) or nested (`a[b]=1` → object) field is null, so hostile input reaches a handler
 * only as a string whose length the handler then bounds. Every form carries the session's CSRF token
 * in a hidden `csrf` field (AUTH.md "Consent and sessions"). Also where a browser goes around signing in:
 * a `next` return address (a path on this server, never another origin) or SIGNED_IN_HOME. Kept honest by
 * test/gateway/pages.test.ts and test/gateway/front-door.test.ts.
 */
import type { Context } from 'koa';
import type { SessionRecord } from '../../storage/store.js';
import { Sessions } from '../auth/sessions.js';

/** Longest accepted values, characters. */
export const FIELD_LIMITS = {
  /** RFC 5321 path limit rounded up, as the brief of the sign-in pages sets. */
  email: 320,
  password: 1024,
  name: 100,
  label: 100,
} as const;

export type FormBody = Record<string, unknown>;

export function formBody(ctx: Context): FormBody {
  const body = (ctx.request as { body?: unknown }).body;
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as FormBody) : {};
}

/** The field as one string, or null. */
export function stringField(body: FormBody, name: string): string | null {
  const value = Object.hasOwn(body, name) ? body[name] : undefined;
  return typeof value === 'string' ? value : null;
}

/** A lowercased, trimmed email of plausible shape, or null. */
export function emailField(body: FormBody): string | null {
  const value = stringField(body, 'email')?.trim().toLowerCase() ?? null;
  if (value === null || value.length > FIELD_LIMITS.email) return null;
  return /^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{2,63}$/.test(value) ? value : null;
}

/** The browser's session when the posted `csrf` matches its token; null means "answer 403". */
export async function csrfSession(ctx: Context, sessions: Sessions, body: FormBody): Promise<SessionRecord | null> {
  const session = await sessions.current(ctx);
  return session && Sessions.csrfMatches(session, body.csrf) ? session : null;
}

/** A 303 (the answer to a form post is always a GET) that is never cached or referred. */
export function seeOther(ctx: Context, location: string): void {
  ctx.status = 303;
  ctx.redirect(location);
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Referrer-Policy', 'no-referrer');
}

/** `path?interaction=<id>` when an interaction is carried, else `path`. */
export function withInteraction(path: string, interactionId: string | null): string {
  return interactionId ? `${path}?interaction=${encodeURIComponent(interactionId)}` : path;
}

/** Where a person lands after signing in when no authorization and no `next` address is carried: their training. */
export const SIGNED_IN_HOME = '/training';
/** Longest `next` address kept, characters; a longer one is dropped (the person lands on SIGNED_IN_HOME). */
export const NEXT_MAX_LENGTH = 2048;
const LOCAL_ORIGIN = 'http://threshold.invalid';

/**
 * A return address (`next`, from a query or form field) as a path on this server, normalised, or null:
 * never another origin (`//host`, `/\host`, a scheme), never control characters, never the sign-in
 * screens themselves (a loop).
 */
export function nextPathOf(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > NEXT_MAX_LENGTH || !value.startsWith('/')) return null;
  if (value.startsWith('//') || /[\\\u0000-\u001f\u007f]/.test(value)) return null;
  let url: URL;
  try {
    url = new URL(value, LOCAL_ORIGIN);
  } catch {
    return null;
  }
  if (url.origin !== LOCAL_ORIGIN || /^\/(signin|signup|signout)(\/|$)/.test(url.pathname)) return null;
  return `${url.pathname}${url.search}`;
}

/** `path?next=<address>` when a return address is carried, else `path`. */
export function withNext(path: string, next: string | null): string {
  return next ? `${path}?next=${encodeURIComponent(next)}` : path;
}

/** `path` carrying the authorization being answered, or else the return address, across the sign-in screens. */
export function along(path: string, carried: { interactionId: string | null; next?: string | null }): string {
  return carried.interactionId ? withInteraction(path, carried.interactionId) : withNext(path, carried.next ?? null);
}

/** A signed-out browser asking for a page goes to sign in, and comes back to that page afterwards. */
export function signInFirst(ctx: Context): void {
  seeOther(ctx, withNext('/signin', ctx.method === 'GET' ? nextPathOf(ctx.originalUrl) : null));
}
