/**
 * Reading the pages' form posts. @koa/bodyparser has already parsed urlencoded (and JSON) bodies into
 * `ctx.request.body`; here every field is read as one string or not at all: a missing, repeated
 * (`a=1&a=2` → array) or nested (`a[b]=1` → object) field is null, so hostile input reaches a handler
 * only as a string whose length the handler then bounds. Every form carries the session's CSRF token
 * in a hidden `csrf` field (AUTH.md "Consent and sessions"). Kept honest by test/gateway/pages.test.ts.
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
