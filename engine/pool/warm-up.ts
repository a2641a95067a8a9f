/**
 * The warm-up each worker thread runs once at start (issue 27, item 5: the first call after a restart
 * stays within the warm goals' order of magnitude). A thread that has only loaded its modules still runs
 * the hot paths in the interpreter; one pass over a synthetic ride — the stored series' Arrow IPC decode,
 * the 1 s canonical grid, prefix sums, mean-max after fatigue states, the longitudinal table in both
 * formats — has V8 compile them before the first real call pays for it. It costs tens of milliseconds of
 * each thread's time at start, and reads and writes nothing outside the thread.
 * bench/first-call.bench.ts measures the first call after a restart against the warm call.
 */
import { DEFAULT_DURATIONS } from '../kernels/duration-grid.js';
import { encodeSeriesIpc } from '../ingest/arrow.js';
import { threadId } from 'node:worker_threads';
import { afterBests, meanMaxTable } from '../analysis/analysis-tasks.js';
import type { WarmUpTask } from './tasks.js';

/** Length of the synthetic ride, seconds at 1 Hz: long enough for V8 to optimize the per-sample loops. */
const RIDE_S = 3600;
/** Fatigue states, J (as a request's after = 0, 100, 200, 400, 800 kJ). */
const THRESHOLDS_J = [0, 100_000, 200_000, 400_000, 800_000];

/** How long a thread waits for the others at the end of its warm-up, milliseconds (a thread that never starts does not hold the rest up longer). */
const GATHER_MS = 10_000;

/**
 * Runs the longitudinal `after` path once on a synthetic ride, then waits until every thread has done the
 * same: a thread done early cannot take a second warm-up task, so each thread runs exactly one. Returns
 * the tables' size (so nothing is optimized away) and the thread's id.
 */
export function warmUp({ arrived, threads }: WarmUpTask): { bytes: number; thread: number } {
  const timestamps = new Float64Array(RIDE_S);
  const power = new Float64Array(RIDE_S);
  const distance = new Float64Array(RIDE_S);
  for (let i = 0; i < RIDE_S; i++) {
    timestamps[i] = 1_700_000_000_000 + i * 1000;
    power[i] = 200 + 100 * Math.sin(i / 97) + (i % 300 < 20 ? 400 : 0); // W: waves and a sprint every 5 min
    distance[i] = i === 0 ? 0 : distance[i - 1]! + 8 + power[i]! / 100; // m
  }
  const bytes = encodeSeriesIpc({ timestamps, metrics: [{ name: 'power', values: power }, { name: 'distance', values: distance }] });
  const durations = Int32Array.from(DEFAULT_DURATIONS);
  const series = [bytes.slice().buffer as ArrayBuffer, bytes.slice().buffer as ArrayBuffer];
  const bests = afterBests({ series, sports: ['cycling.road', 'cycling.road'], metric: 'power', durations, thresholds: THRESHOLDS_J });
  const activities = [{ id: 'warm-up-a', sport: 'cycling.road' }, { id: 'warm-up-b', sport: 'cycling.road' }];
  const after = THRESHOLDS_J.map((joules) => joules / 1000);
  let size = 0;
  for (const format of ['parquet', 'arrow_ipc'] as const) size += meanMaxTable({ ...bests, metric: 'power', durations, activities, after, format }).data.byteLength;
  Atomics.add(arrived, 0, 1);
  Atomics.notify(arrived, 0);
  const deadline = Date.now() + GATHER_MS;
  for (let seen = Atomics.load(arrived, 0); seen < threads && Date.now() < deadline; seen = Atomics.load(arrived, 0)) {
    Atomics.wait(arrived, 0, seen, deadline - Date.now());
  }
  return { bytes: size, thread: threadId };
}
