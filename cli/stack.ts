/**
 * The whole service in one process (`npm start`): the engine's gRPC server and the gateway's HTTP
 * server on one store, the gateway calling the engine over real gRPC on loopback so the boundary is
 * always the production one. Tests start the same stack on ephemeral ports.
 */
import type { Logger } from '../domain/logger.js';
import { createLogger } from '../domain/logger.js';
import { ConfigError } from '../domain/config-error.js';
import type { Store } from '../storage/store.js';
import { openServiceStore } from '../storage/open-store.js';
import { storeOptionsFor } from '../storage/config.js';
import { loadEngineConfig } from '../engine/config.js';
import { startEngine, type StartEngineOptions } from '../engine/server.js';
import { loadGatewayConfig } from '../gateway/config.js';
import { startGateway } from '../gateway/server.js';
import { isSingleEngine } from '../domain/engine-target.js';
import type { RateLimits } from '../gateway/auth/rate-limit.js';

export interface RunningStack {
  baseUrl: string;
  /** Where hosted pages are served. */
  pagesBase: string;
  engineAddress: string;
  store: Store;
  logger: Logger;
  close(): Promise<void>;
}

export async function startStack(options: { env: Record<string, string | undefined>; store?: Store; limits?: (store: Store) => RateLimits; workouts?: StartEngineOptions['workouts'] }): Promise<RunningStack> {
  const [engineConfig, gatewayConfig] = loadBoth(options.env);
  const logger = createLogger({ level: gatewayConfig.logLevel, name: 'threshold' });
  const store = options.store ?? await openServiceStore(storeOptionsFor(gatewayConfig.store), logger);
  const engine = await startEngine({ config: engineConfig, store, logger: logger.child({ role: 'engine' }), ...(options.workouts && { workouts: options.workouts }) });
  try {
    const gateway = await startGateway({
      // ENGINE_ADDRESS naming several engines (this one among them, on ENGINE_LISTEN_ADDRESS): the gateway balances over them all.
      config: { ...gatewayConfig, engineAddress: isSingleEngine(gatewayConfig.engineAddress) ? engine.address : gatewayConfig.engineAddress },
      store,
      logger: logger.child({ role: 'gateway' }),
      wakeJobs: engine.wakeJobs,
      wakeEvents: engine.wakeEvents,
      ...(options.limits && { limits: options.limits }),
    });
    return {
      baseUrl: gateway.baseUrl,
      pagesBase: gateway.pagesBase,
      engineAddress: engine.address,
      store,
      logger,
      async close() {
        await gateway.close();
        await engine.close();
        if (!options.store) await store.close();
      },
    };
  } catch (error) {
    await engine.close();
    if (!options.store) await store.close();
    throw error;
  }
}

/** Both roles' configurations, with every problem of either reported at once. */
export function loadBoth(env: Record<string, string | undefined>): [ReturnType<typeof loadEngineConfig>, ReturnType<typeof loadGatewayConfig>] {
  const problems = new Set<string>();
  const attempt = <T>(load: () => T): T | null => {
    try {
      return load();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      for (const problem of error.problems) problems.add(problem);
      return null;
    }
  };
  const engine = attempt(() => loadEngineConfig(env));
  const gateway = attempt(() => loadGatewayConfig(env));
  if (!engine || !gateway) throw new ConfigError([...problems]);
  return [engine, gateway];
}
