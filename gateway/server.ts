/**
 * Starts the gateway's HTTP server on a store and an engine address. When BASE_URL is not configured
 * the base URL follows the port actually bound (PORT=0 lets the system choose), so the token issuer is
 * always an address that answers.
 *
 * No request is lost at start (issue 27, item 4): both servers have their request handler before they
 * listen. The app needs the ports bound (its base URLs), so a request that arrives in between waits for
 * it — milliseconds — and is then answered by it; if the start fails after all, it gets a 503.
 * test/gateway/start-answers.test.ts fires requests from the first instant of a start and of a
 * gateway process's replacement under `threshold serve`.
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
  // Hosted pages listen on a port of their own: an origin that is never the service's (gaps.md "Pages").
  const pagesServer = http.createServer();
  pagesServer.keepAliveTimeout = 65_000;
  const apiRequests = heldUntilReady(server);
  const pagesRequests = heldUntilReady(pagesServer);
  let port: number;
  let pagesPort: number;
  try {
    port = await listen(server, options.config.port, options.config.host);
    pagesPort = await listen(pagesServer, options.config.pagesPort, options.config.host);
  } catch (error) {
    // Whatever arrived meanwhile is answered (503, and the connection closed after it), nothing stays bound.
    apiRequests.failed();
    pagesRequests.failed();
    await Promise.all([server, pagesServer].map((listening) => new Promise((resolve) => {
      listening.close(resolve);
      listening.closeIdleConnections();
    })));
    stopKeyReload();
    throw error;
  }
  const withBase = options.config.baseUrlAuto ? { ...options.config, baseUrl: `http://localhost:${port}` } : options.config;
  const config = { ...withBase, pagesPort, pagesBase: withBase.pagesBaseAuto ? autoPagesBase(withBase.baseUrl, pagesPort, withBase.host) : withBase.pagesBase };
  const metrics = createGatewayMetrics();
  const engine = new EngineClient(config.engineAddress, { token: config.engineToken, deadlineMs: config.engineDeadlineMs, observe: metrics.observeEngineCall });
  // The engine channel connects now, not at the first request (issue 27, item 5: warm at start).
  void engine.connect();
  const mailer = createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, logger });
  const app = createApp({
    config, store, engine, keys, logger, metrics, wakeJobs: options.wakeJobs, wakeEvents: options.wakeEvents,
    sessions: new Sessions(store, config.baseUrl), mailer, limits: (options.limits ?? createRateLimits)(store),
  });
  apiRequests.ready(app.callback());
  pagesRequests.ready(createPagesApp({ store, pagesBase: config.pagesBase, serviceOrigin: new URL(config.baseUrl).origin }).callback());
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

/** Listens on `port` (0: any) and resolves with the port bound. */
async function listen(server: http.Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

/** Seconds a client is told to wait before retrying a request that arrived during a start that failed. */
const START_FAILED_RETRY_S = 5;

/**
 * Attaches a request handler to `server` at once, before it listens: requests that arrive before
 * `ready(handler)` wait and are handed to `handler` in their order of arrival; after it, `handler` takes
 * the server's requests directly. `failed()` answers the waiting ones (and any later) 503.
 */
function heldUntilReady(server: http.Server): { ready(handler: http.RequestListener): void; failed(): void } {
  const waiting: [http.IncomingMessage, http.ServerResponse][] = [];
  const hold: http.RequestListener = (request, response) => void waiting.push([request, response]);
  server.on('request', hold);
  const swap = (handler: http.RequestListener): void => {
    server.off('request', hold);
    server.on('request', handler);
    for (const [request, response] of waiting.splice(0)) handler(request, response);
  };
  return {
    ready: swap,
    failed: () => swap((_request, response) => {
      const body = JSON.stringify({ detail: 'the service is starting or restarting; retry shortly' });
      response.writeHead(503, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'retry-after': String(START_FAILED_RETRY_S), connection: 'close' });
      response.end(body);
    }),
  };
}
