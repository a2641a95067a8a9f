/**
 * createApp(config, deps) → the Koa application, without listening (tests mount it on port 0).
 * Middleware order: request id and logs → error writer → body parser → routes.
 */
import Koa, { type Middleware } from 'koa';
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
import { OAuthError } from './errors.js';
import { logRequests } from './middleware/log-requests.js';
import { authenticate, refuseDelegated, requireScope } from './middleware/authenticate.js';
import { RouteTable } from './routes/route-table.js';
import { addRoutes } from './routes/index.js';
import { MAX_TOKEN_BODY_BYTES, TOKEN_PATHS } from './routes/oauth-token.js';

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

/**
 * Body parsing. The token endpoint takes only small urlencoded forms and answers every failure in RFC
 * 6749's shape, so its bodies get their own parser (form only, 16 KB) whose refusals are written as
 * OAuth errors; everything else takes JSON or forms up to BODY_LIMIT.
 */
function parseBodies(): Middleware {
  const general = bodyParser({ enableTypes: ['json', 'form'], jsonLimit: BODY_LIMIT, formLimit: BODY_LIMIT, encoding: 'utf-8' });
  const token = bodyParser({ enableTypes: ['form'], formLimit: `${MAX_TOKEN_BODY_BYTES}b`, encoding: 'utf-8' });
  return async function parseBody(ctx, next) {
    if (ctx.method !== 'POST' || !TOKEN_PATHS.includes(ctx.path)) return general(ctx, next);
    try {
      await token(ctx, async () => {});
    } catch (error) {
      const tooLarge = (error as { status?: number }).status === 413;
      throw new OAuthError('invalid_request', tooLarge ? `request body larger than ${MAX_TOKEN_BODY_BYTES} bytes` : 'the body is not a valid urlencoded form', {}, tooLarge ? 413 : 400);
    }
    await next();
  };
}

export function createApp(deps: GatewayDeps): Koa {
  const app = new Koa({ proxy: deps.config.trustProxy });
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
  app.use(parseBodies());
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
