/** The gateway as its own process (`npm run start:gateway`): config, store, listen — nothing else. */
import { createLogger } from '../domain/logger.js';
import { openServiceStore } from '../storage/open-store.js';
import { storeOptionsFor } from '../storage/config.js';
import { loadGatewayConfig } from './config.js';
import { startGateway } from './server.js';
import { exitOnSignals, reportStartupFailure } from '../domain/process.js';

try {
  const config = loadGatewayConfig(process.env);
  const logger = createLogger({ level: config.logLevel, name: 'gateway' });
  const store = await openServiceStore(storeOptionsFor(config.store), logger);
  const gateway = await startGateway({ config, store, logger });
  exitOnSignals(logger, async () => {
    await gateway.close();
    await store.close();
  });
} catch (error) {
  reportStartupFailure(error);
}
