/**
 * Redirect URIs (interface §5 "Redirect URIs"; AUTH.md "redirect matching"): which may be registered,
 * and whether a requested one matches a registration. One strict parser serves both, so a URI that
 * could not be registered can never be matched either. The same matcher decides the portal
 * `return_url` ("must equal or sit under one of the app's registered redirect URIs").
 *
 * Decisions where the rules leave room:
 * - Canonical form only: a URI is refused when WHATWG URL parsing would change any component
 *   (`http://127.1/`, `http://0x7f000001/`, `https://example.com:443/cb` with its default port, a
 *   trailing `?`). Scheme and host may be written in upper case: they are
 *   compared lowercased.
 * - Printable ASCII only, so internationalised hosts arrive as punycode; `xn--` labels are refused
 *   too (homograph look-alikes); an application on an IDN domain registers an ASCII name.
 * - Query: the requested URI carries a query only when its registration has exactly the same one;
 *   adding, dropping or changing a query is refused.
 * - Loopback: `http://localhost`, `http://127.0.0.1` and `http://[::1]` (RFC 8252 §7.3) match any
 *   port, but the host must be the registered one: `[::1]` matches only a registered `[::1]`, never
 *   `localhost` or `127.0.0.1` (nor they each other). https on a loopback host keeps its port.
 * - https and loopback paths never hold a `;` or `%3b` (path parameters, `/cb/..;/x`: a servlet
 *   container routes that to `/x`); a query may, and a custom scheme is compared whole anyway.
 * - Paths never hold dot-segments, empty segments (`//`), or encoded slashes, backslashes, dots,
 *   percent signs (double encoding) or control characters, in any case; once decoded they are valid
 *   UTF-8 (no overlong `%c0%ae`) without characters that normalise to a dot or slash (`%ef%bc%8f`).
 * - Custom schemes are compared as whole strings, byte for byte (scheme case included).
 *
 * What it does not decide: whether a URI is reachable or owned by the application.
 * Kept honest by test/gateway/auth/redirect-uris.test.ts.
 */

/** Longest redirect URI accepted, characters. */
const MAX_LENGTH = 2048;
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const DANGEROUS_SCHEMES = new Set([
  'javascript', 'data', 'vbscript', 'file', 'blob', 'about', 'filesystem', 'view-source', 'ftp', 'ws', 'wss',
  'mailto', 'tel', 'sms', 'intent', 'jar', 'chrome', 'chrome-extension', 'moz-extension', 'resource',
]);
/** RFC 3986 appendix B, without the fragment (refused earlier): scheme, `//authority`, path, `?query`. */
const RAW_PARTS = /^([A-Za-z][A-Za-z0-9+.-]*):(\/\/[^/?]*)?([^?]*)(\?.*)?$/;
const ENCODED_SEPARATOR = /%(?:2f|5c|2e|25|[01][0-9a-f]|7f)|%(?![0-9a-f]{2})/i;
/** A path parameter delimiter, raw or percent-encoded (either case). */
const PATH_PARAMETER = /;|%3b/i;
const DOT_SEGMENT = /(?:^|\/)\.\.?(?:\/|$)/;

type RedirectUri =
  | { kind: 'web'; scheme: 'http:' | 'https:'; host: string; port: string; path: string; query: string | null }
  | { kind: 'custom'; uri: string };

/** The one strict parser: a RedirectUri, or why the text is not an acceptable redirect URI. */
function parseRedirectUri(raw: string): { uri: RedirectUri } | { problem: string } {
  if (typeof raw !== 'string' || raw.length === 0) return { problem: 'redirect URI must be a non-empty string' };
  if (raw.length > MAX_LENGTH) return { problem: `redirect URI longer than ${MAX_LENGTH} characters` };
  if (/[^\x21-\x7e]/.test(raw)) return { problem: 'redirect URI must be printable ASCII, without white space or control characters' };
  if (raw.includes('\\')) return { problem: 'redirect URI must not contain a backslash' };
  // "Public plain http and URIs with a #fragment are rejected."
  if (raw.includes('#')) return { problem: 'redirect URI must not contain a fragment' };
  const parts = RAW_PARTS.exec(raw);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { problem: 'redirect URI is not an absolute URI' };
  }
  if (!parts) return { problem: 'redirect URI is not an absolute URI' };
  const [, schemeText = '', authority, rawPath = '', query] = parts;
  const scheme = schemeText.toLowerCase();
  if (DANGEROUS_SCHEMES.has(scheme)) return { problem: `redirect URI scheme ${scheme}: is not allowed` };
  if (url.username || url.password || authority?.includes('@')) return { problem: 'redirect URI must not contain user information' };
  if (ENCODED_SEPARATOR.test(rawPath)) {
    return { problem: 'redirect URI path must not contain encoded slashes, backslashes, dots, percent signs or control characters' };
  }
  if (DOT_SEGMENT.test(rawPath)) return { problem: 'redirect URI must not contain dot-segments' };
  if (hasDisguisedSeparator(rawPath)) {
    return { problem: 'redirect URI path must be UTF-8 without characters that read as dots, slashes or control characters' };
  }

  if (scheme !== 'http' && scheme !== 'https') {
    // "private-use custom schemes (reverse-DNS not required)"
    if (url.href !== scheme + raw.slice(scheme.length)) return { problem: 'redirect URI is not in canonical form' };
    if (url.host === '' && url.pathname === '') return { problem: 'redirect URI must name a host or a path after its scheme' };
    return { uri: { kind: 'custom', uri: raw } };
  }

  const authorityText = authority?.slice(2) ?? '';
  if (authorityText === '') return { problem: 'redirect URI must name a host' };
  if (authorityText.toLowerCase() !== url.host) return { problem: `redirect URI host and port must be written in canonical form (${url.host})` };
  const host = url.hostname;
  if (host.endsWith('.')) return { problem: 'redirect URI host must not end with a dot' };
  if (host.split('.').some((label) => label.startsWith('xn--'))) return { problem: 'redirect URI host must not be an internationalised (punycode) name' };
  // "Accepted: claimed https; loopback http (localhost or 127.0.0.1, any port)"
  if (scheme === 'http' && !LOOPBACK_HOSTS.has(host)) return { problem: 'plain http is only allowed for loopback (localhost, 127.0.0.1)' };
  // Servlet containers cut a path parameter off each segment before routing, so `/cb/..;/x` reaches
  // `/x` there while it reads as a sub-path of `/cb` here: no `;`, raw or encoded, in a web path.
  if (PATH_PARAMETER.test(rawPath)) return { problem: 'redirect URI path must not contain a semicolon (;) or %3B: path parameters are not allowed' };
  const path = rawPath === '' ? '/' : rawPath;
  if (path.includes('//')) return { problem: 'redirect URI path must not contain empty segments (//)' };
  if (path !== url.pathname || (query ?? '') !== url.search) return { problem: 'redirect URI is not in canonical form' };
  return { uri: { kind: 'web', scheme: url.protocol as 'http:' | 'https:', host, port: url.port, path, query: query ?? null } };
}

/**
 * Whether the percent-decoded path is invalid UTF-8 (overlong forms such as `%c0%ae` for a dot
 * included) or holds a character that reads as a separator once normalised (fullwidth `／`, `．`,
 * the two-dot leader `‥`) or an invisible control or format character (`%e2%80%ae`, right-to-left).
 */
function hasDisguisedSeparator(rawPath: string): boolean {
  let decoded: string;
  try {
    decoded = decodeURIComponent(rawPath);
  } catch {
    return true;
  }
  for (const char of decoded) {
    if (char > '\x7f' && (/\p{C}/u.test(char) || /[./\\]/.test(char.normalize('NFKC')))) return true;
  }
  return false;
}

/** Null when the URI may be registered, otherwise why not (a 422 at registration). */
export function redirectUriProblem(uri: string): string | null {
  const parsed = parseRedirectUri(uri);
  return 'problem' in parsed ? parsed.problem : null;
}

/**
 * Whether `requested` matches one of the `registered` redirect URIs (registrations that no longer parse match nothing).
 * `exactOnly(requested)` true (the pages origin, gaps.md "Pages" safety rules) admits only an identical registration:
 * no sub-path, and the loopback any-port rule never reaches it.
 */
export function matchRedirectUri(registered: readonly string[], requested: string, exactOnly?: (uri: string) => boolean): boolean {
  const target = parseRedirectUri(requested);
  if ('problem' in target) return false;
  if (exactOnly?.(requested)) return registered.includes(requested);
  return registered.some((entry) => {
    const parsed = parseRedirectUri(entry);
    return !('problem' in parsed) && matches(parsed.uri, target.uri);
  });
}

/** Whether the URI points at this machine (http or https on a loopback host): "Consent is always shown for a loopback redirect." */
export function isLoopbackRedirect(uri: string): boolean {
  const parsed = parseRedirectUri(uri);
  return !('problem' in parsed) && parsed.uri.kind === 'web' && LOOPBACK_HOSTS.has(parsed.uri.host);
}

function matches(registered: RedirectUri, requested: RedirectUri): boolean {
  // "Custom schemes match exactly."
  if (registered.kind === 'custom' || requested.kind === 'custom') {
    return registered.kind === 'custom' && requested.kind === 'custom' && registered.uri === requested.uri;
  }
  if (registered.scheme !== requested.scheme || registered.host !== requested.host) return false;
  // "loopback http (localhost or 127.0.0.1, any port)"
  const anyPort = registered.scheme === 'http:' && LOOPBACK_HOSTS.has(registered.host);
  if (!anyPort && registered.port !== requested.port) return false;
  return registered.query === requested.query && isSubPath(registered.path, requested.path);
}

/** "https and loopback match by sub-path", on segment boundaries: `/cb` admits `/cb` and `/cb/x`, not `/cbx`. */
function isSubPath(registered: string, requested: string): boolean {
  if (registered === '/' || registered === requested) return true;
  return requested.startsWith(registered.endsWith('/') ? registered : `${registered}/`);
}
