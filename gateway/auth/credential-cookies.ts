/**
 * Reading a credential cookie (the browser session, the API's `token`). gaps.md (Pages, safety rules):
 * a request carrying the same session cookie or the same `token` cookie twice counts as signed out.
 * Ports do not isolate cookies, so a page served on the same host can plant a second cookie of the same
 * name; a first-wins (or last-wins) reading would let it choose the session. So a name that appears more
 * than once reads as absent. Every credential cookie is read here; test/gateway/http-edge.test.ts keeps
 * it honest for sign-in, consent, account pages and the API.
 */
import type { Context } from 'koa';

/** The value of cookie `name` when the request carries it exactly once; null when absent or repeated. */
export function credentialCookie(ctx: Context, name: string): string | null {
  const header = ctx.get('cookie');
  if (!header) return null;
  let found: string | null = null;
  let count = 0;
  for (const pair of header.split(';')) {
    const at = pair.indexOf('=');
    if (at < 0 || pair.slice(0, at).trim() !== name) continue;
    count += 1;
    found = pair.slice(at + 1).trim();
  }
  if (count !== 1 || found === null) return null;
  // A quoted value (RFC 6265 allows DQUOTEs around it) reads as what is inside, as Koa's reader does.
  const value = found.length >= 2 && found.startsWith('"') && found.endsWith('"') ? found.slice(1, -1) : found;
  return value === '' ? null : value;
}
