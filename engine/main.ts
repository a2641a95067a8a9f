/** `npm run start:engine`: read config, open the store, serve the engine until SIGINT/SIGTERM. */
import { createLogger } from '../domain/logger.js';
import { exitOnSignals, reportStartupFailure } from '../domain/process.js';
import { storeOptionsFor } from '../storage/config.js';
import { openServiceStore } from '../storage/open-store.js';
import { loadEngineConfig } from './config.js';
import { startEngine } from './server.js';

try {
  const config = loadEngineConfig(process.env);
  const logger = createLogger({ level: config.logLevel, name: 'engine' });
  const store = await openServiceStore(storeOptionsFor(config.store), logger);
  const engine = await startEngine({ config, store, logger, processMetrics: true });
  logger.info({ address: engine.address, threads: config.engineThreads, backend: store.backend }, 'engine listening');
  exitOnSignals(logger, async () => {
    await engine.close();
    await store.close();
  });
} catch (error) {
  reportStartupFailure(error);
}
