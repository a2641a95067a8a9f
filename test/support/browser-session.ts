/**
 * A browser in miniature for page tests: a cookie jar over fetch with `redirect: 'manual'` (so every
 * 303 is seen, never followed), the CSRF token of a page, and sign-in by password. One jar is one
 * browser on the one origin under test: cookies are kept by name, as the service sets them (host-only,
 * Path=/), and Set-Cookie headers apply in order, an empty value or `Max-Age=0` deleting; a line for
 * another Path or a Domain (the service expiring stray copies, auth/credential-cookies.ts) is not one of
 * the jar's cookies and is ignored.
 *
 *   const jar = new CookieJar(stack.baseUrl);
 *   const page = await jar.get('/signin');
 *   const answer = await jar.post('/signin/password', { email, password, csrf: csrfFrom(await page.text()) });
 */
import type { TestStack } from './stack.js';

export class CookieJar {
  readonly cookies = new Map<string, string>();

  constructor(readonly baseUrl: string) {}

  /** fetch with this jar's cookies, never following redirects; `url` may be a path. */
  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    const cookie = this.cookieHeader();
    if (cookie && !headers.has('cookie')) headers.set('cookie', cookie);
    const response = await fetch(new URL(url, this.baseUrl), { ...init, headers, redirect: 'manual' });
    this.store(response);
    return response;
  }

  get(url: string, init: RequestInit = {}): Promise<Response> {
    return this.fetch(url, { ...init, method: 'GET' });
  }

  /** A urlencoded form post, as a browser sends it. */
  post(url: string, fields: Record<string, string | string[]>, init: RequestInit = {}): Promise<Response> {
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries(fields)) for (const one of [value].flat()) body.append(name, one);
    return this.fetch(url, { ...init, method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded', ...(init.headers as Record<string, string> | undefined) } });
  }

  /** A page's CSRF token: GET `url` and read its hidden `csrf` field. */
  async csrf(url = '/signin'): Promise<string> {
    const response = await this.get(url);
    return csrfFrom(await response.text());
  }

  cookie(name: string): string | undefined {
    return this.cookies.get(name);
  }

  cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  /** A second browser that starts with this one's cookies (to replay an old cookie, say). */
  copy(): CookieJar {
    const jar = new CookieJar(this.baseUrl);
    for (const [name, value] of this.cookies) jar.cookies.set(name, value);
    return jar;
  }

  private store(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const at = pair.indexOf('=');
      if (at <= 0) continue;
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      if (attributes.some((attribute) => /^\s*domain\s*=/i.test(attribute) || (/^\s*path\s*=/i.test(attribute) && !/^\s*path\s*=\s*\/\s*$/i.test(attribute)))) continue;
      const expired = attributes.some((attribute) => /^\s*max-age\s*=\s*0\s*$/i.test(attribute));
      if (value === '' || expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
}

/** The value of the first hidden `csrf` field in a page. */
export function csrfFrom(html: string): string {
  const match = /name="csrf" value="([^"]*)"/.exec(html);
  if (!match) throw new Error('csrfFrom: the page has no csrf field');
  return match[1]!;
}

/** The `Location` of a redirect, as a path when it is on `baseUrl`. */
export function locationOf(response: Response, baseUrl: string): string | null {
  const location = response.headers.get('location');
  if (location === null) return null;
  return location.startsWith(baseUrl) ? location.slice(baseUrl.length) || '/' : location;
}

/** A browser signed in by email and password (throws unless the sign-in answers 303). */
export async function signIn(stack: Pick<TestStack, 'baseUrl'>, email: string, password: string): Promise<CookieJar> {
  const jar = new CookieJar(stack.baseUrl);
  const csrf = await jar.csrf('/signin');
  const response = await jar.post('/signin/password', { email, password, csrf });
  if (response.status !== 303) throw new Error(`signIn: ${email} got ${response.status}, not 303`);
  return jar;
}
