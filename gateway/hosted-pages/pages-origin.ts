/**
 * Where the pages live relative to the service, for start-up (issue 26 item 1; gaps.md "Pages"; AUTH.md
 * "Outbound requests and hosted content"). Cookies ignore ports, and a host may set cookies for its parent
 * domains, so a page's script on the service's host (any port), on a subdomain or a parent domain of it,
 * or (over http, where the service's cookies cannot carry the `__Host-` prefix) on a sibling under a
 * shared parent, can plant the service's session cookie in its visitors' browsers: login forgery.
 *
 * - The automatic pages origin is the loopback twin of the service's host: `localhost` (and
 *   `*.localhost`) ↔ `127.0.0.1` (`[::1]` when the service binds `::1`). Those are different cookie
 *   hosts on the same machine, and `127.0.0.1` needs no name resolution. Any other host has no twin that
 *   is sure to reach this machine, so the operator names the pages' address (PAGES_BASE).
 * - With an https BASE_URL the service sits behind a TLS proxy while the pages listener speaks plain
 *   HTTP: `https://host:PAGES_PORT` would not answer, so nothing is guessed.
 * - `cookieScopeShared` says why a configured pages host shares the service's cookies, or null.
 *
 * Kept honest by test/gateway/pages-origin.test.ts and test/browser/page-cookies.test.ts.
 */

/** A host name as cookies compare it: lowercased, without a trailing dot. */
function cookieHost(hostname: string): string {
  return hostname.toLowerCase().replace(/\.$/, '');
}

function isIpLiteral(host: string): boolean {
  return host.startsWith('[') || /^\d{1,3}(\.\d{1,3}){3}$/.test(host);
}

/** The other loopback name of a loopback host, or null for any other host. */
export function loopbackTwin(hostname: string, bindHost: string): string | null {
  const host = cookieHost(hostname);
  if (host === 'localhost' || host.endsWith('.localhost')) return bindHost === '::1' ? '[::1]' : '127.0.0.1';
  if (/^127(\.\d{1,3}){3}$/.test(host) || host === '[::1]') return 'localhost';
  return null;
}

/**
 * Why the automatic pages origin cannot be used with this BASE_URL, or null. `share`: the operator set
 * PAGES_SHARE_COOKIE_SCOPE, accepting pages on the service's own host name.
 */
export function autoPagesProblem(baseUrl: string, pagesPort: number, bindHost: string, share: boolean): string | null {
  if (!URL.canParse(baseUrl)) return null; // BASE_URL's own problem is reported
  const url = new URL(baseUrl);
  if (url.protocol === 'https:') {
    return `PAGES_BASE must be set when BASE_URL is https: the pages listener (PAGES_PORT ${pagesPort}) speaks plain HTTP behind your proxy, `
      + `so ${url.protocol}//${url.hostname}:${pagesPort} would not answer; have the proxy serve the pages on a host of their own (not ${url.hostname}, `
      + 'a parent or a subdomain of it) and name it, like PAGES_BASE=https://{slug}.pages.example.net (README, "Pages origin")';
  }
  if (loopbackTwin(url.hostname, bindHost) !== null || share) return null;
  return `PAGES_BASE must be set: BASE_URL's host ${url.hostname} has no loopback twin, and pages on ${url.hostname}:${pagesPort} would share `
    + 'the service\'s cookies (ports do not separate cookies, so a page\'s script could sign its visitors in as its author); give the pages a host '
    + 'of their own (README, "Pages origin"), or set PAGES_SHARE_COOKIE_SCOPE=yes to accept that risk';
}

/**
 * The automatic pages origin: the loopback twin of BASE_URL's host on the pages port, or (when the operator
 * accepted a shared cookie scope for a host without one) BASE_URL's host itself.
 */
export function autoPagesBase(baseUrl: string, pagesPort: number, bindHost: string): string {
  const url = URL.canParse(baseUrl) ? new URL(baseUrl) : new URL('http://localhost');
  return `http://${loopbackTwin(url.hostname, bindHost) ?? url.hostname}:${pagesPort}`;
}

/**
 * Why pages at `pagesBase` (`{slug}` form included: any page host under its domain) share the cookies of
 * the service at `baseUrl`, or null when they cannot.
 */
export function cookieScopeShared(baseUrl: string, pagesBase: string): string | null {
  if (!URL.canParse(baseUrl) || !URL.canParse(pagesBase.replace('{slug}', 'slug'))) return null;
  const service = cookieHost(new URL(baseUrl).hostname);
  const wildcard = pagesBase.includes('{slug}');
  // Every page host of the wildcard form sits directly under this domain; in the path form it is the host.
  const probe = cookieHost(new URL(pagesBase.replace('{slug}', 'slug')).hostname);
  const pages = wildcard ? probe.slice('slug.'.length) : probe;
  if (isIpLiteral(service) || isIpLiteral(pages)) return service === pages ? `the same host ${service}` : null;
  if (service === pages) return wildcard ? `${service} is the parent domain of every page host` : `the same host name ${service}`;
  if (service.endsWith(`.${pages}`)) return `${service} is a subdomain of the pages' ${pages}`;
  if (pages.endsWith(`.${service}`)) return `the pages' ${pages} is a subdomain of ${service}`;
  if (new URL(baseUrl).protocol === 'https:') return null; // __Host- cookies cannot be set from a sibling
  const parent = commonParent(service, pages);
  return parent === null ? null : `both sit under ${parent} and BASE_URL is http, so the service's cookies cannot carry the __Host- prefix`;
}

/** The longest domain of two or more labels both hosts sit under, or null. */
function commonParent(a: string, b: string): string | null {
  const left = a.split('.').reverse();
  const right = b.split('.').reverse();
  let shared = 0;
  while (shared < left.length && shared < right.length && left[shared] === right[shared]) shared += 1;
  return shared >= 2 ? left.slice(0, shared).reverse().join('.') : null;
}
