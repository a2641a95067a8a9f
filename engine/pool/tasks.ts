/**
 * The messages between the engine's event loop and its workers, one entry per task (the Piscina
 * `name` option selects the worker export of the same name). Buffers travel by transfer.
 */
import type { DecodeErrorCode } from '../ingest/decode-error.js';
import type { LapRecord, SummaryBlocks } from '../../storage/records.js';
import type { MessagePort } from 'node:worker_threads';
import type { TableFileFormat } from '../parquet/table-file.js';
import type { CurveMetric } from '../analysis/canonical-series.js';
import type { MetricCurve } from '../analysis/curves.js';

export interface DecodeFileTask {
  /** The file's bytes, a standalone buffer transferred to the worker. */
  bytes: ArrayBuffer;
  type: 'csv' | 'fit';
}

/** One activity of a decoded file, with what ingest stores: summary, laps with their statistics, series. */
export interface DecodedActivityResult {
  sport: string;
  /** UTC epoch milliseconds: the first sample, and the end of the last one's hold (1 s after it). */
  start: number;
  end: number;
  /** Minutes east of UTC. */
  offset: number;
  samples: number;
  /** Series metrics present (interface names). */
  metrics: string[];
  summary: SummaryBlocks;
  laps: LapRecord[];
  devices: string[];
  /** Metres, from the cumulative distance channel; null without one. */
  distance: number | null;
  /** Arrow IPC stream bytes, transferred back. */
  series: ArrayBuffer;
  /** The analysis cache (engine/analysis/activity-analysis.ts), transferred back. */
  analysis: ArrayBuffer;
}

/**
 * A decode either yields activities or fails with a `DecodeError`'s code and message (errors do not keep
 * their fields across threads), or with `decode_failed` when the decoder itself threw: a bug that would
 * throw again on the same bytes, so it is as permanent as a bad file (the bytes stay stored for a re-run).
 */
export type DecodeOutcome =
  | { ok: true; activities: DecodedActivityResult[]; warnings: string[] }
  | { ok: false; code: DecodeErrorCode | 'decode_failed'; message: string };

/** encodeSeriesTable: one activity's stored series → a whole table file (engine/parquet/series-file.ts). */
export interface EncodeSeriesTableTask {
  /** The stored series (Arrow IPC stream), a standalone buffer transferred to the worker. */
  series: ArrayBuffer;
  /** Requested metrics (interface names, validated, no repeats), in request order; one column each, all null where the series lacks it. */
  metrics: string[];
  /** Minutes east of UTC, for `timestamp_local`. */
  offset: number;
  /** For messages. */
  activityId: string;
  /** The activity's sport: picks the speed cap of the canonical series (ANALYTICS.md §1.3). */
  sport: string;
  format: TableFileFormat;
  /** Rows are adaptive segments on this metric's cumulative curve instead of samples; null = every sample. */
  segmentation: CurveMetric | null;
}

export interface EncodedSeriesTable {
  /** The file's bytes, transferred back. */
  data: ArrayBuffer;
  rows: number;
  /** Metric columns written, in order. */
  metrics: string[];
}

/**
 * streamSeriesTable: the activities fed through `port` → one table file with `activity_id` and `sport`
 * columns, its bytes posted back through `port` as they are produced (engine/parquet/stream-protocol.ts).
 */
export interface StreamSeriesTableTask {
  /** Transferred to the worker; the handler keeps the other end. */
  port: MessagePort;
  /** Metric columns in output order, written for every activity (null where one lacks a metric). */
  metrics: string[];
  format: TableFileFormat;
  /** As EncodeSeriesTableTask.segmentation. */
  segmentation: CurveMetric | null;
}

export interface StreamedSeriesTable {
  rows: number;
  bytes: number;
}

// ---------------------------------------------------------------------------------------------------------
// Analyses (engine/analysis/analysis-tasks.ts)

/** A result table file. */
export interface TableFile {
  /** The file's bytes, transferred back. */
  data: ArrayBuffer;
  rows: number;
}

/** analyzeSeries: a stored series → its analysis cache. */
export interface AnalyzeSeriesTask {
  /** Stored series (Arrow IPC), transferred. */
  series: ArrayBuffer;
  /** The activity's sport: picks the speed cap of the canonical series (ANALYTICS.md §1.3). */
  sport: string;
}

/** activityMeanMax: one activity's curve, exact at each duration. */
export interface ActivityMeanMaxTask {
  series: ArrayBuffer;
  /** The activity's sport: picks the speed cap of the canonical series (ANALYTICS.md §1.3). */
  sport: string;
  metric: CurveMetric;
  /** Ascending, distinct seconds; null = the full grid up to the activity's longest section. */
  durations: Int32Array | null;
  format: TableFileFormat;
}

/** activityAwd: one activity's AWD table. */
export interface ActivityAwdTask {
  series: ArrayBuffer;
  /** The activity's sport: picks the speed cap of the canonical series (ANALYTICS.md §1.3). */
  sport: string;
  metric: CurveMetric;
  format: TableFileFormat;
}

/** curveFile: one activity's curve, read from its cache, as a table file (copied in: the memory keeps it). */
export interface CurveFileTask {
  metric: CurveMetric;
  curve: MetricCurve;
  format: TableFileFormat;
}

/** awdFile: one activity's AWD table from its cached histogram (empty without the metric). */
export interface AwdFileTask {
  metric: CurveMetric;
  histogram: Float64Array;
  format: TableFileFormat;
}

/** Who holds a longitudinal best: the table's activity_id and sport columns. */
export interface ActivityLabel {
  id: string;
  sport: string;
}

/** afterBests: the best windows after each fatigue state among a batch of activities, from raw series. */
export interface AfterBestsTask {
  /** Stored series, oldest first, transferred. */
  series: ArrayBuffer[];
  /** Each series' activity sport (the speed cap, ANALYTICS.md §1.3). */
  sports: string[];
  metric: CurveMetric;
  /** Ascending, distinct seconds. */
  durations: Int32Array;
  /** J (power) or m (speed), one per state. */
  thresholds: number[];
}

/** State-major (state × duration) bests; `holders` index the batch, −1 = no activity reached it. */
export interface AfterBests {
  values: Float64Array;
  starts: Float64Array;
  holders: Int32Array;
}

/** meanMaxTable: the longitudinal table of folded bests (from caches, or from afterBests). */
export interface MeanMaxTableTask extends AfterBests {
  metric: CurveMetric;
  durations: Int32Array;
  activities: ActivityLabel[];
  /** The states as requested (kJ or m) for the `after` column, state-major like the bests; null without states. */
  after: number[] | null;
  format: TableFileFormat;
}

/** longitudinalAwd: the AWD levels over local days from cached histograms. */
export interface LongitudinalAwdTask {
  /** Each activity's own local date and its AWD histogram (recorded ms per intensity bin). */
  days: { date: string; histogram: Float64Array }[];
  metric: CurveMetric;
  format: TableFileFormat;
}

/** trainingLoadTable: fitness, fatigue and form over consecutive local days, and the day table (ANALYTICS.md §10). */
export interface TrainingLoadTableTask {
  /** The first day, YYYY-MM-DD: nothing came before it (fitness and fatigue 0 the day before). */
  from: string;
  /** Per day from `from`: the summed activity loads, the activities, those without a load, their ids (comma-joined). */
  loads: Float64Array;
  activities: Int32Array;
  unloaded: Int32Array;
  ids: string[];
  /** Days left out at the start of the table (before the requested start). */
  skip: number;
  format: TableFileFormat;
}

// ---------------------------------------------------------------------------------------------------------
// Physiological models (engine/analysis/intensity-model.ts)

/** fitIntensityModel: the 90-day curve and max efforts → the OmPD fit and the bests the relations read. */
export interface FitIntensityModelTask {
  metric: CurveMetric;
  /** The longitudinal best curve: ascending seconds and values (W or m/s; NaN where none reached it). */
  curveDurations: Int32Array;
  curveValues: Float64Array;
  /** The max efforts in the window: seconds and values, any order. */
  effortDurations: Float64Array;
  effortValues: Float64Array;
  /** An activity of at least 15 minutes lies in the window. */
  hasLongActivity: boolean;
}

export interface FittedIntensityModel {
  /** OmPD parameters in ompd.ts's order (CP, W′, Pmax, A); null when there is too little data to fit. */
  params: number[] | null;
  /** The best value held 5 minutes (W or m/s), null when no effort lasted that long. */
  bestFiveMinutes: number | null;
  /** Speed only: the best VDOT (mL/kg/min) over 5–60-minute efforts, null without one. */
  runningVo2max: number | null;
}

/** warmUp: once per thread at start (warm-up.ts). */
export interface WarmUpTask {
  /** Threads that have finished their warm-up (one Int32 on a SharedArrayBuffer, shared by every thread's task). */
  arrived: Int32Array;
  threads: number;
}

/** What a thread's warm-up returns. */
export interface WarmUpResult {
  /** Bytes each task it ran wrote (so nothing is optimized away; test/engine/pool.test.ts reads which ran). */
  bytes: Partial<Record<TaskName, number>>;
  /** The thread's id. */
  thread: number;
  /** The synthetic ride's analysis cache, for the event loop's own warm-up (pool.ts); copied, not moved. */
  analysis: ArrayBuffer;
}

export interface PoolTasks {
  decodeFile: { task: DecodeFileTask; result: DecodeOutcome };
  encodeSeriesTable: { task: EncodeSeriesTableTask; result: EncodedSeriesTable };
  streamSeriesTable: { task: StreamSeriesTableTask; result: StreamedSeriesTable };
  analyzeSeries: { task: AnalyzeSeriesTask; result: { analysis: ArrayBuffer; end: number | null } };
  activityMeanMax: { task: ActivityMeanMaxTask; result: TableFile };
  activityAwd: { task: ActivityAwdTask; result: TableFile };
  curveFile: { task: CurveFileTask; result: TableFile };
  awdFile: { task: AwdFileTask; result: TableFile };
  afterBests: { task: AfterBestsTask; result: AfterBests };
  meanMaxTable: { task: MeanMaxTableTask; result: TableFile };
  longitudinalAwd: { task: LongitudinalAwdTask; result: TableFile };
  trainingLoadTable: { task: TrainingLoadTableTask; result: TableFile };
  fitIntensityModel: { task: FitIntensityModelTask; result: FittedIntensityModel };
  warmUp: { task: WarmUpTask; result: WarmUpResult };
}

export type TaskName = keyof PoolTasks;
