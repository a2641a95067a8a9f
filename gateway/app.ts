/**
 * createApp(deps) → the Koa application, without listening (tests mount it on port 0).
 * Middleware order: request id and logs → latency metrics → compression of pages and their assets → closing connections whose request was not read to the end →
 * CORS (API and token endpoint only; it answers preflights itself) → error writer → routes. Each route's chain (route-table.ts) authenticates, checks its scope and parses
 * its body itself.
 */
import Koa from 'koa';
import Router from '@koa/router';
import type { GatewayDeps } from './deps.js';
import { handleErrors } from './middleware/handle-errors.js';
import { logRequests } from './middleware/log-requests.js';
import { closeUnreadRequests } from './middleware/close-unread-requests.js';
import { authenticate, refuseDelegated, requireScope } from './middleware/authenticate.js';
import { parseBody } from './middleware/parse-body.js';
import { apiCors } from './middleware/cors.js';
import { compressPages } from './middleware/compress-pages.js';
import { RouteTable } from './route-table.js';
import { addRoutes } from './routes/index.js';
import { reserveServicePaths } from './services/pages.js';

export function createApp(deps: GatewayDeps): Koa {
  const app = new Koa({ proxy: deps.config.trustProxy });
  app.silent = true; // the error writer logs; Koa's default stderr printer would duplicate it
  const router = new Router();
  const table = new RouteTable(router, {
    authenticate: authenticate({ keys: deps.keys, issuer: deps.config.baseUrl, store: deps.store }),
    requireScope,
    refuseDelegated,
    parseBody: parseBody(),
  });
  addRoutes(table, deps);
  // No page may take the name of a top-level path the service answers (issue 26 item 8).
  reserveServicePaths(table.paths());

  app.use(logRequests(deps.logger));
  app.use(deps.metrics.observeRequests());
  app.use(compressPages());
  app.use(closeUnreadRequests());
  app.use(apiCors({ store: deps.store, pagesBase: deps.config.pagesBase, extraOrigins: deps.config.corsAllowedOrigins, logger: deps.logger }));
  app.use(handleErrors());
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
