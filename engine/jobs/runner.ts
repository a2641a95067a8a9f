/**
 * The job runner: claims jobs from the store with a lease, runs them, and records the outcome. Any
 * number of runners (processes, replicas) may share a store: a job is claimed by one at a time, a
 * runner that dies lets its lease expire and another claims the job again, and a running job's lease
 * is renewed every third of its length. Failures are retried with exponential backoff up to
 * MAX_ATTEMPTS, then the job is marked failed and its `onGiveUp` hook records the failure.
 *
 * Idle runners poll the store every `pollMs`; `wake()` (called after an enqueue in the same process)
 * skips the wait. A schedule is a keyed job whose handler answers RunAgain: it goes back to the queue
 * for that time instead of being marked done, so N engines share one schedule instead of N timers.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from '../../domain/logger.js';
import type { JobRecord, Store } from '../../storage/store.js';

/** What a finished run may ask for: a schedule (a keyed job that re-queues itself) runs again at `runAfter` (Unix ms). */
export interface RunAgain {
  runAfter: number;
}

export interface JobHandler {
  /** Resolves when the job is done, or with RunAgain when it is a schedule that must run again. */
  run(job: JobRecord, signal: AbortSignal): Promise<void | RunAgain>;
  /** Called once when the job will not be retried again. */
  onGiveUp?(job: JobRecord, error: unknown): Promise<void>;
}

export interface RunnerOptions {
  store: Store;
  logger: Logger;
  handlers: Record<string, JobHandler>;
  /** Jobs run at the same time. */
  concurrency: number;
  /** Lease length, milliseconds. */
  leaseMs: number;
  /** Idle wait between polls, milliseconds. */
  pollMs: number;
  /** Told of every failed attempt (the metrics' job failures); `giveUp` when it will not be retried. */
  onFailure?: (kind: string, giveUp: boolean) => void;
}

export const MAX_ATTEMPTS = 5;

/**
 * Thrown by a handler that must wait (a provider's rate limit, a daily quota): the job goes back to the
 * queue until `runAfter` (Unix ms) without the attempt counting against MAX_ATTEMPTS; its own progress is
 * whatever it persisted before throwing.
 */
export class RescheduleJob extends Error {
  constructor(readonly runAfter: number, reason: string) {
    super(reason);
    this.name = 'RescheduleJob';
  }
}
const BACKOFF_BASE_MS = 2000;

export interface JobRunner {
  readonly owner: string;
  wake(): void;
  /** Stops claiming, aborts running jobs (their leases then expire and they run again elsewhere). */
  close(): Promise<void>;
}

export function startJobRunner(options: RunnerOptions): JobRunner {
  const owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const kinds = Object.keys(options.handlers);
  const stop = new AbortController();
  const wakers = new Set<() => void>();

  const idle = () =>
    new Promise<void>((resolve) => {
      // Closed while this loop was claiming: the abort has fired already and would not end the wait.
      if (stop.signal.aborted) return resolve();
      const timer = setTimeout(done, options.pollMs);
      function done() {
        clearTimeout(timer);
        wakers.delete(done);
        stop.signal.removeEventListener('abort', done);
        resolve();
      }
      wakers.add(done);
      stop.signal.addEventListener('abort', done, { once: true });
    });

  async function loop(): Promise<void> {
    while (!stop.signal.aborted) {
      let job: JobRecord | null = null;
      try {
        job = await options.store.claimJob(kinds, owner, options.leaseMs);
      } catch (error) {
        options.logger.error({ err: error }, 'jobs: claim failed');
      }
      if (job) await runOne(job);
      else await idle();
    }
  }

  async function runOne(job: JobRecord): Promise<void> {
    const handler = options.handlers[job.kind]!;
    const abort = new AbortController();
    const onStop = () => abort.abort(stop.signal.reason);
    stop.signal.addEventListener('abort', onStop, { once: true });
    const renew = setInterval(() => {
      void options.store.jobs
        .updateOne({ id: job.id, lease_owner: owner, status: 'running' }, { set: { lease_until: Date.now() + options.leaseMs } })
        .then((renewed) => {
          if (!renewed) abort.abort(new Error('lease lost'));
        }, (error: unknown) => options.logger.warn({ err: error, job: job.id }, 'jobs: lease renewal failed'));
    }, Math.max(50, Math.floor(options.leaseMs / 3)));
    const started = Date.now();
    try {
      const again = await handler.run(job, abort.signal);
      const settled = again
        ? { status: 'queued' as const, run_after: again.runAfter, attempts: 0 }
        : { status: 'done' as const, progress: 1 };
      await options.store.jobs.updateOne({ id: job.id, lease_owner: owner }, { set: { ...settled, lease_owner: null, lease_until: null, error: null, updated_at: Date.now() } });
      options.logger.info({ job: job.id, kind: job.kind, ms: Date.now() - started, ...(again && { again_at: again.runAfter }) }, again ? 'jobs: ran, queued again' : 'jobs: done');
    } catch (error) {
      if (stop.signal.aborted) {
        // Shutting down: hand the job back at once so the next runner need not wait for the lease.
        await options.store.jobs.updateOne({ id: job.id, lease_owner: owner }, { set: { status: 'queued', lease_owner: null, lease_until: null, updated_at: Date.now() } });
        return;
      }
      if (error instanceof RescheduleJob) {
        await options.store.jobs.updateOne({ id: job.id, lease_owner: owner }, {
          set: { status: 'queued', lease_owner: null, lease_until: null, run_after: error.runAfter, error: error.message, attempts: Math.max(0, job.attempts - 1), updated_at: Date.now() },
        });
        return;
      }
      await settleFailure(job, handler, error);
    } finally {
      clearInterval(renew);
      stop.signal.removeEventListener('abort', onStop);
    }
  }

  async function settleFailure(job: JobRecord, handler: JobHandler, error: unknown): Promise<void> {
    const message = error instanceof Error ? error.message : String(error);
    const giveUp = job.attempts >= MAX_ATTEMPTS;
    options.logger.error({ err: error, job: job.id, kind: job.kind, attempts: job.attempts, giving_up: giveUp }, 'jobs: failed');
    options.onFailure?.(job.kind, giveUp);
    const now = Date.now();
    const set: Partial<JobRecord> = giveUp
      ? { status: 'failed', error: message, lease_owner: null, lease_until: null, updated_at: now }
      : { status: 'queued', error: message, lease_owner: null, lease_until: null, run_after: now + BACKOFF_BASE_MS * 2 ** (job.attempts - 1), updated_at: now };
    await options.store.jobs.updateOne({ id: job.id, lease_owner: owner }, { set });
    if (giveUp) await handler.onGiveUp?.(job, error);
  }

  const loops = Array.from({ length: Math.max(1, options.concurrency) }, () => loop());
  return {
    owner,
    wake: () => {
      for (const wake of [...wakers]) wake();
    },
    async close() {
      stop.abort(new Error('job runner closing'));
      await Promise.allSettled(loops);
    },
  };
}
