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
  const cannotListen = listenFailure(error);
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
  } else if (cannotListen) {
    process.stderr.write(`start-up failed: ${cannotListen}\n`);
  } else {
    process.stderr.write(`start-up failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  }
  process.exit(1);
}

/**
 * What an operator does about a server that cannot listen (`listen`/`bind` failing with a port), in one
 * sentence naming the address; null for any other error.
 */
export function listenFailure(error: unknown): string | null {
  const { code, address, port, syscall } = (error ?? {}) as { code?: unknown; address?: unknown; port?: unknown; syscall?: unknown };
  if ((syscall !== 'listen' && syscall !== 'bind') || typeof port !== 'number') return null;
  const where = `port ${port} on ${typeof address === 'string' ? address : 'every interface'}`;
  if (code === 'EADDRINUSE') return `${where} is already in use (another program, or threshold already running): stop it or set PORT (and PAGES_PORT) to free ports`;
  if (code === 'EACCES') return `no permission to listen on ${where} (ports below 1024 need privileges): set PORT (and PAGES_PORT) to 1024 or above`;
  if (code === 'EADDRNOTAVAIL') return `cannot listen on ${where}: HOST is not an address of this machine`;
  return `cannot listen on ${where} (${String(code)})`;
}
