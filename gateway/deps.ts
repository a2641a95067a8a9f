/** What the gateway's routes are given: configuration, the store, the engine client and the shared auth pieces. */
import type { Logger } from '../domain/logger.js';
import type { Store } from '../storage/store.js';
import type { GatewayConfig } from './config.js';
import type { EngineClient } from './engine-client.js';
import type { SigningKeys } from './auth/signing-keys.js';
import type { Sessions } from './auth/sessions.js';
import type { RateLimits } from './auth/rate-limit.js';
import type { Mailer } from './services/mailer.js';
import type { GatewayMetrics } from './metrics.js';

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
  metrics: GatewayMetrics;
  /** Wakes the job runner when it lives in this process (after an upload is queued). */
  wakeJobs?: () => void;
  /** Wakes the webhook dispatcher when it lives in this process (after an event is written). */
  wakeEvents?: () => void;
}
