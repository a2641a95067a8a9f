/**
 * The compute pool: a Piscina pool of worker threads running worker.ts's tasks by name. Callers pass
 * the call's AbortSignal, so a passed deadline or a cancelled call stops the task (Piscina removes
 * a queued task and terminates the thread of a running one).
 */
import { status } from '@grpc/grpc-js';
import { Piscina } from 'piscina';
import type { MessagePort } from 'node:worker_threads';
import { EngineError } from '../errors.js';
import { decodeAnalysisPart } from '../analysis/analysis-codec.js';
import { CURVE_METRICS } from '../analysis/canonical-series.js';
import { emptyBest, foldCurve } from '../analysis/curves.js';
import type { PoolTasks, TaskName, WarmUpResult } from './tasks.js';
import type { TaskMessage } from './worker.js';

export interface PoolOptions {
  /** Worker threads (ENGINE_THREADS). */
  threads: number;
  /** Tasks waiting for a thread (beyond one running per thread) before RESOURCE_EXHAUSTED; default max(64, threads²). */
  maxQueue?: number;
}

export interface RunOptions {
  signal?: AbortSignal;
  /** Buffers (and ports) moved, not copied, to the worker; they are detached on this side. */
  transferList?: (ArrayBuffer | MessagePort)[];
}

export interface EnginePool {
  run<K extends TaskName>(name: K, task: PoolTasks[K]['task'], options?: RunOptions): Promise<PoolTasks[K]['result']>;
  /** Resolves once every thread has started, loaded its modules and run the warm-up (warm-up.ts) once, and this thread has decoded its cache; with the threads' ids. */
  warmUp(): Promise<number[]>;
  /** Stops every thread; queued and running tasks reject. */
  destroy(): Promise<void>;
  /** What the metrics endpoint reports about the pool. */
  stats(): PoolStats;
}

export interface PoolStats {
  threads: number;
  /** Tasks admitted and not finished: running plus waiting. */
  admitted: number;
  /** Tasks waiting for a thread. */
  queued: number;
  /** Share of the pool's thread time spent running tasks since it started, 0–1 (Piscina's `utilization`). */
  utilization: number;
  /** Tasks finished since the pool started. */
  completed: number;
}

/** The compiled worker entry, beside this module in dist/engine/pool/. */
const WORKER_FILE = new URL('./worker.js', import.meta.url).href;

/**
 * Piscina loads the worker with require() first. On Node versions with require(esm), a thread terminated
 * while require() is instantiating the ES module graph (a pool closed or a task aborted just after a
 * thread started) aborts the whole process ("FATAL ERROR: v8::Module::IsGraphAsync … instantiated
 * module"; seen once in a CI run). Without require(esm) in the workers, Piscina falls back to import(),
 * which a termination interrupts safely.
 */
const WORKER_EXEC_ARGV = [...process.execArgv, ...('require_module' in process.features ? ['--no-experimental-require-module'] : [])];

/**
 * The event loop's part of the analysis paths, once: a longitudinal call from the caches decodes each
 * activity's curves and histograms here and folds the curves (engine/service/analyses.ts), so the first
 * such call after a restart finds them compiled. `analysis`: a cache a thread's warm-up built.
 */
function warmEventLoop(analysis: Uint8Array): void {
  for (const metric of CURVE_METRICS) {
    const curve = decodeAnalysisPart(analysis, 'curve', metric);
    if (curve !== null) foldCurve(emptyBest(curve.durations), curve, 0);
    decodeAnalysisPart(analysis, 'awd', metric);
  }
  decodeAnalysisPart(analysis, 'numbers', 'power');
}

export function createPool(options: PoolOptions): EnginePool {
  // Every thread stays up: a thread started on demand costs ~200 ms (loading the worker's modules),
  // more than most tasks, and Piscina would end an idle one at once (idleTimeout 0).
  const piscina = new Piscina({
    filename: WORKER_FILE,
    minThreads: options.threads,
    maxThreads: options.threads,
    execArgv: WORKER_EXEC_ARGV,
  });
  // Admission is counted here: Piscina keeps tasks that carry an AbortSignal (all of ours) in a
  // queue its maxQueue does not bound.
  const capacity = options.threads + (options.maxQueue ?? Math.max(64, options.threads * options.threads));
  let admitted = 0;
  return {
    async run(name, task, runOptions = {}) {
      if (admitted >= capacity) throw new EngineError(status.RESOURCE_EXHAUSTED, 'engine: worker pool queue is full');
      admitted += 1;
      try {
        const message: TaskMessage = { name, task };
        return await piscina.run(message, { signal: runOptions.signal ?? null, transferList: runOptions.transferList });
      } finally {
        admitted -= 1;
      }
    },
    async warmUp() {
      // One task per thread: each waits for the others at its end (warm-up.ts), so no thread takes two.
      const task = { arrived: new Int32Array(new SharedArrayBuffer(4)), threads: options.threads };
      const warmed: WarmUpResult[] = await Promise.all(Array.from({ length: options.threads }, () => piscina.run({ name: 'warmUp', task } satisfies TaskMessage<'warmUp'>)));
      if (warmed.length > 0) warmEventLoop(new Uint8Array(warmed[0]!.analysis));
      return warmed.map(({ thread }) => thread);
    },
    destroy: () => piscina.destroy(),
    stats: () => ({ threads: options.threads, admitted, queued: piscina.queueSize, utilization: piscina.utilization, completed: piscina.completed }),
  };
}
