/**
 * Which redirect URIs may be registered (interface §5 "Redirect URIs"): claimed https, loopback http
 * (localhost or 127.0.0.1, any port) and private-use custom schemes; never public plain http, a
 * fragment, userinfo, or a form that URL normalisation would change. Matching a requested URI against
 * the registered ones arrives with the authorization endpoint.
 */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const DANGEROUS_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:', 'about:', 'ftp:', 'ws:', 'wss:']);

/** Null when the URI may be registered, otherwise why not. */
export function redirectUriProblem(uri: string): string | null {
  if (uri.length > 2048) return 'redirect URI longer than 2048 characters';
  if (/[\s\\]/.test(uri)) return 'redirect URI contains white space or a backslash';
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'redirect URI is not an absolute URI';
  }
  if (uri.includes('#')) return 'redirect URI must not contain a fragment';
  if (url.username || url.password) return 'redirect URI must not contain user information';
  if (DANGEROUS_SCHEMES.has(url.protocol)) return `redirect URI scheme ${url.protocol} is not allowed`;
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) return 'plain http is only allowed for loopback (localhost, 127.0.0.1)';
  if (url.protocol === 'http:' || url.protocol === 'https:') {
    // The path as written: URL parsing would already have resolved what we are looking for.
    const rawPath = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*([^?#]*)/i.exec(uri)?.[1] ?? '';
    if (/%2f|%5c|%2e/i.test(rawPath)) return 'redirect URI path must not contain encoded slashes or dots';
    if (/(^|\/)\.\.?(\/|$)/.test(rawPath)) return 'redirect URI must not contain dot-segments';
  } else if (!/^[a-z][a-z0-9+.-]*:$/.test(url.protocol)) {
    return 'redirect URI scheme is malformed';
  }
  return null;
}
