/**
 * CORS for browser apps (issue 16 item 1), with @koa/cors, on `/api/v1/*`, the token endpoint alias
 * `/oauth/token` and the OpenID discovery documents (`/.well-known/openid-configuration`, `jwks.json`) only: the sign-in, consent, account and portal pages never send CORS headers (AUTH.md
 * "Pages"), so no other origin ever reads them.
 *
 * - Allowed: the origin of every registered redirect URI of any application (a loopback http redirect URI
 *   admits its host on any port, as the authorize endpoint does), every page origin (the pages listener's
 *   origin, or each live page's origin in the wildcard form), and CORS_ALLOWED_ORIGINS (`*`: any origin).
 *   Any other Origin gets no CORS headers at all (the browser blocks the answer), never an error status.
 * - Never `Access-Control-Allow-Credentials`: browser apps send bearer tokens, so the service's cookies
 *   (the `token` cookie, the session) are never usable from another origin.
 * - The origins come from storage and are cached for ORIGINS_TTL_MS, so a preflight does not read the
 *   store each time; an origin not in the cache reloads it at most every MISS_RELOAD_MS, so a newly
 *   registered application works at once in every gateway process without invalidation hooks.
 *
 * Kept honest by test/gateway/cors.test.ts and test/browser/page-app.test.ts.
 */
import cors from '@koa/cors';
import type { Context, Middleware, Next } from 'koa';
import type { Store } from '../../storage/store.js';
import type { Logger } from '../../domain/logger.js';
import { isLoopbackRedirect } from '../auth/redirect-uris.js';
import { pageUrl } from '../hosted-pages/page-urls.js';

const ORIGINS_TTL_MS = 30_000;
const MISS_RELOAD_MS = 1_000;
const PREFLIGHT_MAX_AGE_S = 600;

export interface CorsOptions {
  store: Store;
  /** PAGES_BASE as bound (the path form or the `{slug}` wildcard form). */
  pagesBase: string;
  /** CORS_ALLOWED_ORIGINS: exact origins, or `['*']` for any origin. */
  extraOrigins: readonly string[];
  logger?: Logger;
}

/** The paths that answer other origins: the API, the token endpoint's alias, and the OpenID discovery documents a browser app reads. */
export function corsApplies(path: string): boolean {
  return path.startsWith('/api/v1/') || path === '/oauth/token' || path === '/.well-known/openid-configuration' || path === '/.well-known/jwks.json';
}

export function apiCors(options: CorsOptions): Middleware {
  const origins = allowedOrigins(options);
  const middleware = cors({
    origin: async (ctx: Context) => {
      const origin = ctx.get('Origin');
      return origin && (await origins.allows(origin)) ? origin : '';
    },
    credentials: false,
    allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowHeaders: ['authorization', 'content-type', 'refreshed-token', 'if-none-match', 'if-match'],
    exposeHeaders: ['Threshold-Algorithm', 'Retry-After', 'ETag', 'Content-Disposition', 'Location', 'WWW-Authenticate', 'X-Request-Id'],
    maxAge: PREFLIGHT_MAX_AGE_S,
    keepHeadersOnError: true,
  });
  return async function apiCorsMiddleware(ctx: Context, next: Next) {
    if (!corsApplies(ctx.path)) return next();
    return middleware(ctx, next);
  };
}

interface OriginSet {
  exact: Set<string>;
  /** `http://localhost` and the like: that host on any port. */
  loopback: Set<string>;
  loadedAt: number;
}

/** Whether an Origin may read the API's answers; storage-backed and cached (see the header). */
export function allowedOrigins(options: CorsOptions, now: () => number = Date.now) {
  const anyOrigin = options.extraOrigins.includes('*');
  const extra = new Set(options.extraOrigins);
  let current: OriginSet | null = null;
  let loading: Promise<OriginSet> | null = null;

  function reload(): Promise<OriginSet> {
    loading ??= load(options)
      .then((set) => (current = set))
      .finally(() => {
        loading = null;
      });
    return loading;
  }

  function admits(set: OriginSet, origin: string): boolean {
    if (set.exact.has(origin)) return true;
    if (!URL.canParse(origin)) return false;
    const url = new URL(origin);
    return url.protocol === 'http:' && set.loopback.has(`http://${url.hostname}`);
  }

  return {
    async allows(origin: string): Promise<boolean> {
      if (anyOrigin || extra.has(origin)) return true;
      try {
        let set = current && now() - current.loadedAt < ORIGINS_TTL_MS ? current : await reload();
        if (admits(set, origin)) return true;
        if (now() - set.loadedAt >= MISS_RELOAD_MS) set = await reload();
        return admits(set, origin);
      } catch (error) {
        // No CORS headers when the origins cannot be read: the browser blocks, the request itself still runs.
        options.logger?.warn({ err: error }, 'cors: could not read the allowed origins');
        return false;
      }
    },
  };

  async function load({ store, pagesBase }: CorsOptions): Promise<OriginSet> {
    const loadedAt = now();
    const [applications, pages] = await Promise.all([
      store.applications.findFields({}, ['redirect_uris']),
      store.pages.findFields({}, ['id', 'deleted_at']),
    ]);
    const set: OriginSet = { exact: new Set(), loopback: new Set(), loadedAt };
    for (const uri of applications.flatMap((application) => application.redirect_uris)) {
      if (!URL.canParse(uri)) continue;
      const url = new URL(uri);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') continue; // custom schemes are native apps
      set.exact.add(url.origin);
      if (url.protocol === 'http:' && isLoopbackRedirect(uri)) set.loopback.add(`http://${url.hostname}`);
    }
    if (pagesBase.includes('{slug}')) {
      for (const page of pages) if (page.deleted_at === null) set.exact.add(new URL(pageUrl(pagesBase, page.id)).origin);
    } else {
      set.exact.add(new URL(pagesBase).origin);
    }
    return set;
  }
}
