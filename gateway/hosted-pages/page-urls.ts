/**
 * Where a page lives (gaps.md "Pages"): `{pages_base}/{slug}/`, or `https://{slug}.<domain>/` when the
 * operator configured the wildcard form. Also which URIs sit on the pages origin, where the redirect
 * matcher admits only exact registrations ("the loopback any-port rule never reaches the pages origin").
 * Kept honest by test/gateway/pages-api.test.ts and test/gateway/pages-serving.test.ts.
 */

/** The public URL of a page, always ending in `/`. */
export function pageUrl(pagesBase: string, slug: string): string {
  return pagesBase.includes('{slug}') ? `${pagesBase.replace('{slug}', slug)}/` : `${pagesBase}/${slug}/`;
}

/** Whether `uri` points at the pages origin (any page's origin in the wildcard form). */
export function isOnPagesOrigin(pagesBase: string, uri: string): boolean {
  if (!URL.canParse(uri)) return false;
  const target = new URL(uri);
  if (pagesBase.includes('{slug}')) {
    const suffix = new URL(pagesBase.replace('{slug}', 'x')).host.slice(1); // ".pages.example.com"
    return target.protocol === new URL(pagesBase.replace('{slug}', 'x')).protocol && target.host.endsWith(suffix);
  }
  return target.origin === new URL(pagesBase).origin;
}

/**
 * The slug and the path inside the page that a request on the pages listener asks for, or null.
 * Path form: `/{slug}/{path}`; wildcard form: the first label of the Host header, then `/{path}`.
 */
export function pageRequest(pagesBase: string, host: string, pathname: string): { slug: string; path: string; needsSlash: boolean } | null {
  if (pagesBase.includes('{slug}')) {
    const slug = host.split('.')[0]!.toLowerCase();
    return { slug, path: pathname.slice(1), needsSlash: false };
  }
  const basePath = new URL(pagesBase).pathname.replace(/\/+$/, '');
  if (!pathname.startsWith(`${basePath}/`)) return null;
  const rest = pathname.slice(basePath.length + 1);
  const slash = rest.indexOf('/');
  if (slash < 0) return { slug: rest, path: '', needsSlash: true };
  return { slug: rest.slice(0, slash), path: rest.slice(slash + 1), needsSlash: false };
}
