/**
 * createApp(config, deps) → the Koa application, without listening (tests mount it on port 0).
 * Middleware order: request id and logs → error writer → body parser → routes.
 */
import Koa from 'koa';
import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import type { Logger } from '../domain/logger.js';
import type { Store } from '../storage/store.js';
import type { GatewayConfig } from './config.js';
import type { EngineClient } from './engine-client.js';
import type { SigningKeys } from './auth/signing-keys.js';
import type { Sessions } from './auth/sessions.js';
import type { RateLimits } from './auth/rate-limit.js';
import type { Mailer } from './services/mailer.js';
import { handleErrors } from './middleware/handle-errors.js';
import { logRequests } from './middleware/log-requests.js';
import { authenticate, refuseDelegated, requireScope } from './middleware/authenticate.js';
import { RouteTable } from './routes/route-table.js';
import { addRoutes } from './routes/index.js';

export interface GatewayDeps {
  config: GatewayConfig;
  store: Store;
  engine: EngineClient;
  keys: SigningKeys;
  logger: Logger;
  /** Browser sessions of the sign-in and consent pages. */
  sessions: Sessions;
  mailer: Mailer;
  limits: RateLimits;
  /** Wakes the job runner when it lives in this process (after an upload is queued). */
  wakeJobs?: () => void;
}

/** JSON and form bodies are small; uploads go through their own multipart parser. */
const BODY_LIMIT = '1mb';

export function createApp(deps: GatewayDeps): Koa {
  const app = new Koa({ proxy: false });
  app.silent = true; // the error writer logs; Koa's default stderr printer would duplicate it
  const router = new Router();
  const table = new RouteTable(router, {
    authenticate: authenticate({ keys: deps.keys, issuer: deps.config.baseUrl, store: deps.store }),
    requireScope,
    refuseDelegated,
  });
  addRoutes(table, deps);

  app.use(logRequests(deps.logger));
  app.use(handleErrors());
  app.use(bodyParser({ enableTypes: ['json', 'form'], jsonLimit: BODY_LIMIT, formLimit: BODY_LIMIT, encoding: 'utf-8' }));
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
