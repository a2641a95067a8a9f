/**
 * Starts the gateway's HTTP server on a store and an engine address. When BASE_URL is not configured
 * the base URL follows the port actually bound (PORT=0 lets the system choose), so the token issuer is
 * always an address that answers.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../domain/logger.js';
import type { Store } from '../storage/store.js';
import type { GatewayConfig } from './config.js';
import { createApp } from './app.js';
import { EngineClient } from './engine-client.js';
import { createGatewayMetrics } from './metrics.js';
import { SigningKeys } from './auth/signing-keys.js';
import { Sessions } from './auth/sessions.js';
import { createRateLimits, type RateLimits } from './auth/rate-limit.js';
import { createMailer } from './services/mailer.js';
import { autoPagesBase } from './hosted-pages/pages-origin.js';
import { createPagesApp } from './hosted-pages/serve-pages.js';

/** How long close() lets requests in flight finish, milliseconds. */
const SHUTDOWN_GRACE_MS = 5000;

export interface RunningGateway {
  baseUrl: string;
  port: number;
  /** Where hosted pages are served (PAGES_BASE, or the loopback twin of the service's host on the pages port bound). */
  pagesBase: string;
  keys: SigningKeys;
  close(): Promise<void>;
}

export async function startGateway(options: {
  config: GatewayConfig;
  store: Store;
  logger: Logger;
  /** The in-process job runner's wake-up, when the engine runs in this process. */
  wakeJobs?: () => void;
  /** The in-process webhook dispatcher's wake-up, when the engine runs in this process. */
  wakeEvents?: () => void;
  /** Builds the rate limiters over the store; default createRateLimits (tests pass their own to observe the slow-down). */
  limits?: (store: Store) => RateLimits;
}): Promise<RunningGateway> {
  const { store, logger } = options;
  const keys = await SigningKeys.open(store);
  const stopKeyReload = keys.keepFresh((error) => logger.warn({ err: error }, 'signing keys: reload failed'));
  const server = http.createServer();
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 300_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.config.port, options.config.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  // Hosted pages listen on a port of their own: an origin that is never the service's (gaps.md "Pages").
  const pagesServer = http.createServer();
  pagesServer.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    pagesServer.once('error', reject);
    pagesServer.listen(options.config.pagesPort, options.config.host, () => resolve());
  });
  const pagesPort = (pagesServer.address() as AddressInfo).port;
  const withBase = options.config.baseUrlAuto ? { ...options.config, baseUrl: `http://localhost:${port}` } : options.config;
  const config = { ...withBase, pagesPort, pagesBase: withBase.pagesBaseAuto ? autoPagesBase(withBase.baseUrl, pagesPort, withBase.host) : withBase.pagesBase };
  const metrics = createGatewayMetrics();
  const engine = new EngineClient(config.engineAddress, { token: config.engineToken, deadlineMs: config.engineDeadlineMs, observe: metrics.observeEngineCall });
  const mailer = createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, logger });
  const app = createApp({
    config, store, engine, keys, logger, metrics, wakeJobs: options.wakeJobs, wakeEvents: options.wakeEvents,
    sessions: new Sessions(store, config.baseUrl), mailer, limits: (options.limits ?? createRateLimits)(store),
  });
  server.on('request', app.callback());
  pagesServer.on('request', createPagesApp({ store, pagesBase: config.pagesBase, serviceOrigin: new URL(config.baseUrl).origin }).callback());
  logger.info({ port, base_url: config.baseUrl, pages_base: config.pagesBase, engine: config.engineAddress }, 'gateway listening');
  return {
    baseUrl: config.baseUrl,
    port,
    pagesBase: config.pagesBase,
    keys,
    async close() {
      // Requests in flight get a grace period; idle keep-alive sockets (and sockets that never sent
      // a request) are closed at once, everything left after the grace period is cut.
      await new Promise<void>((resolve) => {
        const cut = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
        server.close(() => {
          clearTimeout(cut);
          resolve();
        });
        server.closeIdleConnections();
      });
      pagesServer.closeAllConnections();
      await new Promise<void>((resolve) => pagesServer.close(() => resolve()));
      engine.close();
      mailer.close();
      stopKeyReload();
    },
  };
}
