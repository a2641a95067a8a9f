/**
 * Credential cookies: reading them (the browser session, the portal visit, a provider authorization's
 * binding, the API's `token`) and writing the service's own.
 *
 * - gaps.md (Pages, safety rules): a request carrying the same credential cookie twice counts as signed
 *   out. A script on a host that shares the service's cookie scope (ports do not isolate cookies) can plant
 *   a second cookie of the same name with another Path or a Domain; a first-wins (or last-wins) reading
 *   would let it choose the session. So a name that appears more than once reads as absent.
 * - The service issues every cookie of its own with `Path=/`, HttpOnly, SameSite=Lax, and on https with the
 *   `__Host-` prefix and Secure: the browser then refuses any copy with another Path or a Domain, or set
 *   from another host or from plain http. Over http (a local install) the prefix is not available, so when
 *   one of the service's names arrives twice, the answer also expires every copy the browser could hold
 *   besides the service's own (each Path the request's path matches, the host and its parent domains as
 *   Domain): the next request carries the service's cookie alone, so a planted copy (issue 26: a cookie
 *   with `path=/account`) cannot trap /account and /signin in a redirect loop or lock anyone out. The
 *   sign-in page does the same before it sends a signed-in person on, so a copy planted under /signin
 *   alone cannot bounce the browser between /signin and a page it never reaches.
 *
 * test/gateway/http-edge.test.ts and test/gateway/service-cookies.test.ts keep it honest, and
 * test/browser/page-cookies.test.ts in Chromium.
 */
import type { Context } from 'koa';

/** Path prefixes of a request path whose copies are expired (bounds the Set-Cookie lines). */
const MAX_PATH_SEGMENTS = 6;

/** The value of cookie `name` when the request carries it exactly once; null when absent or repeated. */
export function credentialCookie(ctx: Context, name: string): string | null {
  const found = occurrences(ctx, name);
  if (found.length !== 1) return null;
  // A quoted value (RFC 6265 allows DQUOTEs around it) reads as what is inside, as Koa's reader does.
  const value = found[0]!.length >= 2 && found[0]!.startsWith('"') && found[0]!.endsWith('"') ? found[0]!.slice(1, -1) : found[0]!;
  return value === '' ? null : value;
}

function occurrences(ctx: Context, name: string): string[] {
  const header = ctx.get('cookie');
  const found: string[] = [];
  if (!header) return found;
  for (const pair of header.split(';')) {
    const at = pair.indexOf('=');
    if (at >= 0 && pair.slice(0, at).trim() === name) found.push(pair.slice(at + 1).trim());
  }
  return found;
}

/** One of the service's own cookies: `__Host-<base>` on https, `<base>` on http; always Path=/, HttpOnly, SameSite=Lax. */
export class ServiceCookie {
  readonly name: string;
  private readonly secure: boolean;
  private readonly host: string;

  constructor(base: string, baseUrl: string) {
    this.secure = baseUrl.startsWith('https:');
    this.name = this.secure ? `__Host-${base}` : base;
    this.host = URL.canParse(baseUrl) ? new URL(baseUrl).hostname.toLowerCase() : 'localhost';
  }

  /** The cookie's value when it arrives exactly once; a repeated one reads as absent and its stray copies are expired. */
  read(ctx: Context): string | null {
    if (occurrences(ctx, this.name).length > 1) this.expireStrayCopies(ctx);
    return credentialCookie(ctx, this.name);
  }

  /** Sets the cookie for `ttlMs`. Written by hand: Koa refuses a Secure cookie on a plain-http hop behind a TLS proxy. */
  write(ctx: Context, value: string, ttlMs: number): void {
    const parts = [`${this.name}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Lax', `Max-Age=${Math.floor(ttlMs / 1000)}`];
    if (this.secure) parts.push('Secure');
    ctx.append('Set-Cookie', parts.join('; '));
  }

  /** Removes the cookie from the browser. */
  clear(ctx: Context): void {
    this.write(ctx, '', 0);
  }

  /**
   * Expires, once per request, every copy of this name the request's path could have carried but the
   * service's own (host-only, Path=/). Nothing on https: the browser holds no other `__Host-` copy.
   */
  expireStrayCopies(ctx: Context): void {
    const flag = `strayCookiesExpired:${this.name}`;
    if (this.secure || ctx.state[flag]) return;
    ctx.state[flag] = true;
    const domains = parentDomains(this.host);
    for (const path of matchingPaths(ctx.path)) {
      const expired = `${this.name}=; Path=${path}; Max-Age=0`;
      if (path !== '/') ctx.append('Set-Cookie', expired);
      for (const domain of domains) ctx.append('Set-Cookie', `${expired}; Domain=${domain}`);
    }
  }
}

/** Every cookie Path that matches `path` (RFC 6265 §5.1.4): `/`, then each prefix ending at a segment, with and without its slash. */
export function matchingPaths(path: string): string[] {
  const segments = path.split('/').slice(1, MAX_PATH_SEGMENTS + 1);
  const paths = ['/'];
  let prefix = '';
  for (const [index, segment] of segments.entries()) {
    if ((segment === '' && index === segments.length - 1) || !/^[\w\-.~%!$&'()*+=:@]*$/.test(segment)) break; // no `;` or `,` in an attribute
    prefix += `/${segment}`;
    paths.push(prefix);
    if (index < segments.length - 1 || path.endsWith('/')) paths.push(`${prefix}/`);
  }
  return [...new Set(paths)];
}

/**
 * The host and each parent domain a page could have named in a Domain attribute. None for an IP address
 * or a single-label host (`localhost`): browsers refuse single-label domains, and Chromium reads
 * `Domain=localhost` on localhost as a host-only cookie, so expiring it would expire the service's own.
 */
function parentDomains(host: string): string[] {
  const labels = host.replace(/\.$/, '').split('.');
  if (labels.length < 2 || host.startsWith('[') || /^[\d.]+$/.test(host)) return [];
  const domains = [labels.join('.')];
  for (let i = 1; i <= labels.length - 2; i += 1) domains.push(labels.slice(i).join('.'));
  return domains;
}
