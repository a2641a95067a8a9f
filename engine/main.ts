/** `npm run start:engine`: read config, open the store, serve the engine until SIGINT/SIGTERM. */
import { createLogger } from '../domain/logger.js';
import { exitOnSignals, reportStartupFailure } from '../domain/process.js';
import { storeOptionsFor } from '../storage/config.js';
import { openStore, storeLocation } from '../storage/open-store.js';
import { loadEngineConfig } from './config.js';
import { startEngine } from './server.js';

try {
  const config = loadEngineConfig(process.env);
  const logger = createLogger({ level: config.logLevel, name: 'engine' });
  const storeOptions = storeOptionsFor(config.store);
  const store = await openStore(storeOptions);
  logger.info(storeLocation(storeOptions), 'store opened');
  const engine = await startEngine({ config, store, logger, processMetrics: true });
  logger.info({ address: engine.address, threads: config.engineThreads, backend: store.backend }, 'engine listening');
  exitOnSignals(logger, async () => {
    await engine.close();
    await store.close();
  });
} catch (error) {
  reportStartupFailure(error);
}
