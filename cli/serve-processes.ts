/**
 * `threshold serve` on several cores (GATEWAY_PROCESSES > 1). The gateway is stateless, so HTTP runs in
 * that many processes sharing the port (node:cluster hands each accepted connection to one of them),
 * while the engine — gRPC server, worker pool, job runner — runs once, in the primary process, where
 * the gateways call it over gRPC as they always do. What used to be in-process signals crosses the IPC
 * channel: an upload's wake-up of the job runner, and a gateway's readiness.
 *
 * - A gateway process that dies is replaced; one that keeps dying within seconds of its start stops
 *   the service (exit 1) instead of looping.
 * - SIGINT/SIGTERM on the primary closes the gateways first (requests in flight finish), then the
 *   engine and the store. A gateway process exits by itself when the primary is gone (its IPC channel
 *   closes), so a SIGKILLed service leaves nothing running.
 * - Rate limits count in the store (gateway/auth/rate-limit.ts), so the processes share every budget.
 * Kept honest by test/gateway/processes.test.ts, which runs `threshold serve` with two gateway processes.
 */
import cluster, { type Worker } from 'node:cluster';
import { once } from 'node:events';
import { createLogger, type Logger } from '../domain/logger.js';
import { exitOnSignals } from '../domain/process.js';
import { startEngine } from '../engine/server.js';
import { loadGatewayConfig } from '../gateway/config.js';
import { startGateway } from '../gateway/server.js';
import { openStore, storeLocation } from '../storage/open-store.js';
import { storeOptionsFor } from '../storage/config.js';
import { loadBoth } from './stack.js';
import { isSingleEngine } from '../domain/engine-target.js';

/** Messages between the primary and its gateway processes. */
type ToPrimary = { type: 'listening'; url: string } | { type: 'wake-jobs' } | { type: 'wake-events' };
type ToGateway = { type: 'shutdown' };

/** A gateway process that exits within this long of its start counts as a crash loop. */
const CRASH_LOOP_MS = 5000;
/** How long the primary waits for its gateways to close before it kills them, milliseconds. */
const GATEWAY_CLOSE_MS = 10_000;

export function isGatewayProcess(): boolean {
  return cluster.isWorker;
}

/** The primary: the store and the engine once, then `processes` gateway processes. */
export async function servePrimary(env: Record<string, string | undefined>, processes: number): Promise<void> {
  const [engineConfig, gatewayConfig] = loadBoth(env);
  const logger = createLogger({ level: gatewayConfig.logLevel, name: 'threshold' });
  const storeOptions = storeOptionsFor(gatewayConfig.store);
  const store = await openStore(storeOptions);
  logger.info(storeLocation(storeOptions), 'store opened');
  // No gateway runs here: the engine reports this process's own metrics (memory, CPU, event loop).
  const engine = await startEngine({ config: engineConfig, store, logger: logger.child({ role: 'engine' }), processMetrics: true });

  let closing = false;
  let announced = false;
  const started = new Map<Worker, number>();
  const fork = (): void => {
    const worker = cluster.fork(isSingleEngine(gatewayConfig.engineAddress) ? { ...env, ENGINE_ADDRESS: engine.address } : env);
    started.set(worker, Date.now());
    worker.on('message', (message: ToPrimary) => {
      if (message.type === 'wake-jobs') engine.wakeJobs();
      else if (message.type === 'wake-events') engine.wakeEvents();
      else if (message.type === 'listening' && !announced) {
        announced = true;
        logger.info({ url: message.url, engine: engine.address, gateway_processes: processes }, 'threshold is running');
      }
    });
    worker.on('exit', (code, signal) => {
      const lived = Date.now() - (started.get(worker) ?? 0);
      started.delete(worker);
      if (closing) return;
      logger.error({ worker_pid: worker.process.pid, code, signal, lived_ms: lived }, 'gateway process exited');
      if (lived < CRASH_LOOP_MS) {
        logger.fatal('gateway processes keep failing at start: stopping');
        void shutDown().finally(() => process.exit(1));
        return;
      }
      fork();
    });
  };
  const shutDown = async (): Promise<void> => {
    closing = true;
    const workers = [...started.keys()];
    for (const worker of workers) worker.send({ type: 'shutdown' } satisfies ToGateway);
    const kill = setTimeout(() => workers.forEach((worker) => worker.process.kill('SIGKILL')), GATEWAY_CLOSE_MS);
    await Promise.all(workers.map((worker) => (worker.isDead() ? null : once(worker, 'exit'))));
    clearTimeout(kill);
    await engine.close();
    await store.close();
  };
  exitOnSignals(logger, shutDown);
  for (let i = 0; i < processes; i++) fork();
}

/** A gateway process: HTTP on the shared port, calling the primary's engine. */
export async function serveGateway(env: Record<string, string | undefined>): Promise<void> {
  const config = loadGatewayConfig(env);
  const logger: Logger = createLogger({ level: config.logLevel, name: 'threshold' }).child({ role: 'gateway', worker: cluster.worker?.id });
  const send = (message: ToPrimary): void => void process.send?.(message);
  // The primary is gone (even SIGKILLed): nothing would wake its job runner or stop this process.
  process.on('disconnect', () => process.exit(1));
  const store = await openStore(storeOptionsFor(config.store));
  const gateway = await startGateway({
    config, store, logger, wakeJobs: () => send({ type: 'wake-jobs' }), wakeEvents: () => send({ type: 'wake-events' }),
  });
  let closing = false;
  const close = async (): Promise<void> => {
    if (closing) return;
    closing = true;
    await gateway.close();
    await store.close();
    process.exit(0);
  };
  process.on('message', (message: ToGateway) => {
    if (message.type === 'shutdown') void close();
  });
  // A terminal's Ctrl-C reaches every process of the group: the primary coordinates, this one just closes.
  process.on('SIGINT', () => void close());
  process.on('SIGTERM', () => void close());
  send({ type: 'listening', url: gateway.baseUrl });
}
