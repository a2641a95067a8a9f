/**
 * The warm-up each worker thread runs once at start (issue 27, item 5: the first call after a restart
 * stays within the warm goals' order of magnitude). A thread that has only loaded its modules still runs
 * the hot paths in the interpreter; one pass over a synthetic ride has V8 compile them before the first
 * real call pays for it. The ride looks like a recorded one (power, speed, heart rate, cadence, altitude,
 * distance, a pause) so the canonical grid's gap and speed-cap paths run too. It runs every analysis task
 * a thread serves, each in both table formats: the stored series' Arrow IPC decode, the analysis cache
 * (analyzeSeries: curves, AWD histograms, numbers), per-activity mean-max (default durations and the full
 * grid) and AWD, the longitudinal `after` path and table, the longitudinal AWD from the cache's decoded
 * histogram, the training-load table, and the series table of GET …/series (samples and segments).
 * Kernel work that does not depend on the format (the full grid, segments) runs once. It reads and
 * writes nothing outside the thread; measured with two threads on a loaded 2-core machine, the pool's
 * start (threads, modules, warm-up) went from 0.6–0.8 s to 0.9–1.2 s (medians of four starts). The cache it built goes back to the event loop, which warms its own part (pool.ts).
 * bench/first-call.bench.ts measures the first call after a restart against the warm call;
 * test/engine/pool.test.ts checks that every thread runs this once and what it returns.
 */
import { DEFAULT_DURATIONS } from '../kernels/duration-grid.js';
import { encodeSeriesIpc } from '../ingest/arrow.js';
import type { MetricColumn } from '../ingest/series.js';
import { threadId } from 'node:worker_threads';
import * as analyses from '../analysis/analysis-tasks.js';
import { decodeAnalysisPart } from '../analysis/analysis-codec.js';
import { encodeSeriesFile } from '../parquet/series-file.js';
import type { TableFileFormat } from '../parquet/table-file.js';
import type { TaskName, WarmUpResult, WarmUpTask } from './tasks.js';

/** Length of the synthetic ride, seconds at 1 Hz: long enough for V8 to optimize the per-sample loops. */
const RIDE_S = 3600;
/** A pause in the ride: samples from PAUSE_AT_S on are recorded PAUSE_S later, seconds. */
const PAUSE_AT_S = 2400;
const PAUSE_S = 300;
/** Fatigue states, J (as a request's after = 0, 100, 200, 400, 800 kJ). */
const THRESHOLDS_J = [0, 100_000, 200_000, 400_000, 800_000];
const SPORT = 'cycling.road';
const FORMATS: readonly TableFileFormat[] = ['parquet', 'arrow_ipc'];

/** How long a thread waits for the others at the end of its warm-up, milliseconds (a thread that never starts does not hold the rest up longer). */
const GATHER_MS = 10_000;

/**
 * Runs every analysis path once on a synthetic ride, then waits until every thread has done the same: a
 * thread done early cannot take a second warm-up task, so each thread runs exactly one. Returns the
 * bytes each task wrote (so nothing is optimized away, and a test sees what ran), the thread's id and the
 * ride's analysis cache.
 */
export function warmUp({ arrived, threads }: WarmUpTask): WarmUpResult {
  const stored = encodeSeriesIpc(syntheticRide());
  const series = (): ArrayBuffer => stored.slice().buffer as ArrayBuffer;
  const durations = Int32Array.from(DEFAULT_DURATIONS);
  const { analysis } = analyses.analyzeSeries({ series: series(), sport: SPORT });
  const bytes: WarmUpResult['bytes'] = { analyzeSeries: analysis.byteLength };
  const add = (name: TaskName, table: { data: ArrayBuffer }): void => void (bytes[name] = (bytes[name] ?? 0) + table.data.byteLength);
  for (const format of FORMATS) {
    for (const metric of ['power', 'speed'] as const) {
      // The full grid once (its kernel work does not depend on the format), the defaults in both formats.
      add('activityMeanMax', analyses.activityMeanMax({ series: series(), sport: SPORT, metric, durations: format === 'parquet' ? null : durations, format }));
      add('activityMeanMax', analyses.activityMeanMax({ series: series(), sport: SPORT, metric, durations, format }));
    }
    add('activityAwd', analyses.activityAwd({ series: series(), sport: SPORT, metric: 'power', format }));
    const bests = analyses.afterBests({ series: [series(), series()], sports: [SPORT, SPORT], metric: 'power', durations, thresholds: THRESHOLDS_J });
    bytes.afterBests = bests.values.byteLength;
    const after = THRESHOLDS_J.map((joules) => joules / 1000);
    add('meanMaxTable', analyses.meanMaxTable({ ...bests, metric: 'power', durations, activities: [{ id: 'warm-up-a', sport: SPORT }, { id: 'warm-up-b', sport: SPORT }], after, format }));
    const histogram = decodeAnalysisPart(new Uint8Array(analysis), 'awd', 'power') ?? new Float64Array(0);
    add('longitudinalAwd', analyses.longitudinalAwd({ days: [{ date: '2023-11-14', histogram }], metric: 'power', format }));
    add('trainingLoadTable', analyses.trainingLoadTable({
      from: '2023-11-01', loads: Float64Array.of(0, 80, 0, 120), activities: Int32Array.of(0, 1, 0, 1), unloaded: new Int32Array(4),
      ids: ['', 'warm-up-a', '', 'warm-up-b'], skip: 1, format,
    }));
    // Samples (Arrow IPC) and adaptive segments (Parquet): both row builders, both writers.
    add('encodeSeriesTable', encodeSeriesFile({
      series: series(), metrics: ['power', 'heart_rate', 'speed'], offset: 60, activityId: 'warm-up-a', sport: SPORT, format, segmentation: format === 'parquet' ? 'power' : null,
    }));
  }
  Atomics.add(arrived, 0, 1);
  Atomics.notify(arrived, 0);
  const deadline = Date.now() + GATHER_MS;
  for (let seen = Atomics.load(arrived, 0); seen < threads && Date.now() < deadline; seen = Atomics.load(arrived, 0)) {
    Atomics.wait(arrived, 0, seen, deadline - Date.now());
  }
  return { bytes, thread: threadId, analysis };
}

/** A recorded ride at 1 Hz with a pause: waves and a sprint every 5 minutes, the metrics a head unit records. */
function syntheticRide(): { timestamps: Float64Array; metrics: MetricColumn[] } {
  const timestamps = new Float64Array(RIDE_S);
  const columns = { power: new Float64Array(RIDE_S), speed: new Float64Array(RIDE_S), heart_rate: new Float64Array(RIDE_S), cadence: new Float64Array(RIDE_S), altitude: new Float64Array(RIDE_S), distance: new Float64Array(RIDE_S) };
  for (let i = 0; i < RIDE_S; i++) {
    timestamps[i] = 1_700_000_000_000 + (i + (i >= PAUSE_AT_S ? PAUSE_S : 0)) * 1000;
    const power = 200 + 100 * Math.sin(i / 97) + (i % 300 < 20 ? 400 : 0); // W
    columns.power[i] = power;
    columns.speed[i] = 8 + power / 100; // m/s
    columns.distance[i] = i === 0 ? 0 : columns.distance[i - 1]! + columns.speed[i]!; // m
    columns.heart_rate[i] = 120 + power / 10; // bpm
    columns.cadence[i] = i % 600 < 5 ? Number.NaN : 85 + (i % 7); // rpm; NaN: not recorded
    columns.altitude[i] = 300 + 50 * Math.sin(i / 600); // m
  }
  // Present metrics in SERIES_METRICS order (engine/ingest/series.ts).
  const metrics: MetricColumn[] = (['power', 'speed', 'heart_rate', 'cadence', 'altitude', 'distance'] as const).map((name) => ({ name, values: columns[name] }));
  return { timestamps, metrics };
}
