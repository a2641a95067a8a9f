/**
 * `threshold serve` on several cores (GATEWAY_PROCESSES > 1). The gateway is stateless, so HTTP runs in
 * that many processes sharing the port (node:cluster hands each accepted connection to one of them),
 * while the engine — gRPC server, worker pool, job runner — runs once, in the primary process, where
 * the gateways call it over gRPC as they always do. What used to be in-process signals crosses the IPC
 * channel: an upload's wake-up of the job runner, and a gateway's readiness.
 *
 * - A gateway process that dies is replaced, after a back-off that grows while it keeps dying
 *   (restart-policy.ts). Processes that die before they ever listened (the port is taken) stop the
 *   service after a few in a row: one line says which port and what to do, the exit status is 1, and
 *   no process is left behind.
 * - SIGINT/SIGTERM on the primary closes the gateways first (requests in flight finish), then the
 *   engine and the store. A gateway process exits by itself when the primary is gone (its IPC channel
 *   closes), so a SIGKILLed service leaves nothing running.
 * - Rate limits count in the store (gateway/auth/rate-limit.ts), so the processes share every budget.
 * Kept honest by test/gateway/processes.test.ts, which runs `threshold serve` with two gateway processes.
 */
import cluster, { type Worker } from 'node:cluster';
import { once } from 'node:events';
import { createLogger, type Logger } from '../domain/logger.js';
import { exitOnSignals, listenFailure } from '../domain/process.js';
import { startEngine } from '../engine/server.js';
import { loadGatewayConfig } from '../gateway/config.js';
import { startGateway } from '../gateway/server.js';
import { openServiceStore } from '../storage/open-store.js';
import { storeOptionsFor } from '../storage/config.js';
import { loadBoth } from './stack.js';
import { isSingleEngine } from '../domain/engine-target.js';
import { RestartPolicy } from './restart-policy.js';
import { closeOrphanedConnections } from './orphaned-connections.js';

/** Messages between the primary and its gateway processes. */
type ToPrimary = { type: 'listening'; url: string } | { type: 'wake-jobs' } | { type: 'wake-events' } | { type: 'start-failed'; reason: string };
type ToGateway = { type: 'shutdown' };
/** How long the primary waits for its gateways to close before it kills them, milliseconds. */
const GATEWAY_CLOSE_MS = 10_000;

export function isGatewayProcess(): boolean {
  return cluster.isWorker;
}

/** The primary: the store and the engine once, then `processes` gateway processes. */
export async function servePrimary(env: Record<string, string | undefined>, processes: number): Promise<void> {
  const [engineConfig, gatewayConfig] = loadBoth(env);
  const logger = createLogger({ level: gatewayConfig.logLevel, name: 'threshold' });
  const store = await openServiceStore(storeOptionsFor(gatewayConfig.store), logger);
  // No gateway runs here: the engine reports this process's own metrics (memory, CPU, event loop).
  const engine = await startEngine({ config: engineConfig, store, logger: logger.child({ role: 'engine' }), processMetrics: true });

  let closing = false;
  let announced = false;
  const policy = new RestartPolicy();
  /** Each live gateway process and when it became ready (null: not yet). */
  const readyAt = new Map<Worker, number | null>();
  const pendingForks = new Set<NodeJS.Timeout>();
  let lastFailure = 'the process exited before it listened';
  const fork = (): void => {
    const worker = cluster.fork(isSingleEngine(gatewayConfig.engineAddress) ? { ...env, ENGINE_ADDRESS: engine.address } : env);
    readyAt.set(worker, null);
    worker.on('message', (message: ToPrimary) => {
      if (message.type === 'wake-jobs') engine.wakeJobs();
      else if (message.type === 'wake-events') engine.wakeEvents();
      else if (message.type === 'start-failed') lastFailure = message.reason;
      else if (message.type === 'listening') {
        readyAt.set(worker, Date.now());
        policy.ready();
        if (!announced) {
          announced = true;
          logger.info({ url: message.url, engine: engine.address, gateway_processes: processes }, 'threshold is running');
        }
      }
    });
    worker.on('exit', (code, signal) => {
      closeOrphanedConnections();
      const ready = readyAt.get(worker) ?? null;
      readyAt.delete(worker);
      if (closing) return;
      const served = ready === null ? null : Date.now() - ready;
      const decision = policy.exited(served);
      logger.error({ worker_pid: worker.process.pid, code, signal, served_ms: served, ...(decision.action === 'restart' && { restart_in_ms: decision.delayMs }) },
        served === null ? 'gateway process exited before it listened' : 'gateway process exited');
      if (decision.action === 'give-up') {
        const line = `threshold serve stopped after ${decision.failures} failed starts of its HTTP processes in a row: ${lastFailure}`;
        logger.fatal({ port: gatewayConfig.port, host: gatewayConfig.host, failures: decision.failures }, line);
        process.stderr.write(`${line}\n`);
        void shutDown().finally(() => process.exit(1));
        return;
      }
      const timer = setTimeout(() => {
        pendingForks.delete(timer);
        if (!closing) fork();
      }, decision.delayMs);
      pendingForks.add(timer);
    });
  };
  const shutDown = async (): Promise<void> => {
    closing = true;
    for (const timer of pendingForks) clearTimeout(timer);
    const workers = [...readyAt.keys()];
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
  // Asked to stop (the primary's shutdown, a terminal's Ctrl-C reaching the whole group) before or after
  // listening: the primary coordinates, this process just closes what it opened.
  let stop: () => Promise<void> = async () => process.exit(0);
  let closing = false;
  const close = (): void => {
    if (closing) return;
    closing = true;
    void stop().finally(() => process.exit(0));
  };
  process.on('message', (message: ToGateway) => {
    if (message.type === 'shutdown') close();
  });
  process.on('SIGINT', close);
  process.on('SIGTERM', close);
  // The primary has said where the data lives; this process holds the service lock too (a restore must wait for it).
  const store = await openServiceStore(storeOptionsFor(config.store), null);
  stop = () => store.close();
  const gateway = await startGateway({
    config, store, logger, wakeJobs: () => send({ type: 'wake-jobs' }), wakeEvents: () => send({ type: 'wake-events' }),
  }).catch(async (error: unknown) => {
    // Tell the primary why before dying: its give-up line names the cause (the port that is taken).
    const reason = listenFailure(error) ?? (error instanceof Error ? error.message : String(error));
    await new Promise<void>((resolve) => (process.send ? process.send({ type: 'start-failed', reason } satisfies ToPrimary, () => resolve()) : resolve()));
    await store.close();
    throw error;
  });
  stop = async () => {
    await gateway.close();
    await store.close();
  };
  if (closing) return; // asked to stop while starting: not announced, stopping already
  send({ type: 'listening', url: gateway.baseUrl });
}
