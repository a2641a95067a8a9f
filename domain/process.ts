/**
 * Process lifecycle shared by every entry point: a clean shutdown on SIGINT/SIGTERM (a second signal
 * exits at once), and a readable report when start-up fails (every configuration problem listed).
 */
import type { Logger } from './logger.js';
import { ConfigError } from './config-error.js';

export function exitOnSignals(logger: Logger, close: () => Promise<void>): void {
  let closing = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (closing) process.exit(1);
    closing = true;
    logger.info({ signal }, 'shutting down');
    close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
}

export function reportStartupFailure(error: unknown): never {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    process.stderr.write(`start-up failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  }
  process.exit(1);
}
