/**
 * The pages listener (gaps.md "Pages"; AUTH.md "Outbound requests and hosted content"): serves each
 * page's current deploy on an origin that is never the service's, so a page's scripts cannot read the
 * service's pages with the visitor's session. It answers GET and HEAD only, sets no cookie and reads
 * none, and every answer carries a CSP, `X-Content-Type-Options: nosniff` and `Referrer-Policy:
 * no-referrer` (a page's URL carries the authorization code right after sign-in).
 *
 * A request names a file of the page's manifest or nothing: the path is decoded segment by segment and
 * looked up as a key, so no request reaches a blob outside the page (`..`, encoded slashes, backslashes
 * and NUL are not found). A path without a file: `dir/` → `dir/index.html`; a path whose last segment
 * has no extension → the page's `index.html` (single-page app routes); anything else 404. Files carry
 * their ETag and `Cache-Control: no-cache`; `If-None-Match` answers 304.
 *
 * Kept honest by test/gateway/pages-serving.test.ts and test/browser/page-app.test.ts.
 */
import Koa from 'koa';
import type { PageRecord, Store } from '../../storage/store.js';
import { pageRequest } from './page-urls.js';

/** What a page may do: its own files, data: and https images, calls to itself and to the service (the API, the token endpoint). */
export function pageCsp(serviceOrigin: string): string {
  return [
    "default-src 'self'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data: https:", "font-src 'self' data:",
    `connect-src 'self' ${serviceOrigin}`, `form-action 'self' ${serviceOrigin}`, "frame-ancestors 'none'", "base-uri 'self'", "object-src 'none'",
  ].join('; ');
}

export function createPagesApp(options: { store: Store; pagesBase: string; serviceOrigin: string }): Koa {
  const { store } = options;
  const csp = pageCsp(options.serviceOrigin);
  const app = new Koa();
  app.silent = true;
  app.use(async function servePage(ctx) {
    ctx.set('Content-Security-Policy', csp);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.status = 405;
      ctx.set('Allow', 'GET, HEAD');
      ctx.body = 'Method Not Allowed';
      return;
    }
    const request = pageRequest(options.pagesBase, ctx.host, ctx.path);
    const page = request ? await store.pages.get(request.slug) : null;
    if (!request || !page || page.deleted_at !== null || !page.published || !page.blob_prefix) return notFound(ctx);
    if (request.needsSlash) {
      ctx.status = 301;
      ctx.redirect(`${ctx.path}/${ctx.search}`);
      return;
    }
    const path = filePath(page, request.path);
    if (path === null) return notFound(ctx);
    const file = page.files[path]!;
    ctx.set('ETag', file.etag);
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = extensionOf(path) ?? 'application/octet-stream';
    if (!ctx.type) ctx.type = 'application/octet-stream';
    ctx.status = 200;
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    const bytes = await store.blobs.get(page.blob_prefix + path);
    if (!bytes) return notFound(ctx);
    ctx.body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  });
  return app;
}

/** The manifest key a request path names, with the directory-index and single-page-app fallbacks; null when none. */
function filePath(page: PageRecord, rawPath: string): string | null {
  let decoded: string[];
  try {
    decoded = rawPath.split('/').map((segment) => decodeURIComponent(segment));
  } catch {
    return null;
  }
  if (decoded.some((segment) => segment.includes('/') || segment.includes('\\') || segment.includes('\0'))) return null;
  const path = decoded.join('/');
  const has = (key: string) => Object.hasOwn(page.files, key);
  if (path !== '' && !path.endsWith('/') && has(path)) return path;
  const index = path === '' || path.endsWith('/') ? `${path}index.html` : `${path}/index.html`;
  if (has(index)) return index;
  const last = decoded[decoded.length - 1] ?? '';
  return !last.includes('.') && has('index.html') ? 'index.html' : null;
}

function extensionOf(path: string): string | null {
  const dot = path.lastIndexOf('.');
  return dot > path.lastIndexOf('/') ? path.slice(dot) : null;
}

function notFound(ctx: Koa.Context): void {
  ctx.status = 404;
  ctx.type = 'text/plain; charset=utf-8';
  ctx.set('Cache-Control', 'no-store');
  ctx.body = 'Not Found';
}
