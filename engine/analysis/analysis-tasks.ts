/**
 * The analysis tasks as the pool's workers run them (engine/pool/worker.ts dispatches to them by name; their
 * inputs and results are declared in engine/pool/tasks.ts). Each takes stored series (Arrow IPC) or
 * folded results, computes with the kernels (only the metric asked for) and writes the result table
 * (Parquet or Arrow IPC) itself, so the event loop only moves buffers. curveFile and awdFile write one
 * activity's curve and AWD read from its cache.
 */
import { decodeSeriesIpc } from '../ingest/arrow.js';
import { fullGrid } from '../kernels/duration-grid.js';
import { recordingEnd } from '../kernels/summary.js';
import { encodeTableFile, type TableFileFormat } from '../parquet/table-file.js';
import { standalone } from '../pool/standalone.js';
import type {
  ActivityAwdTask, ActivityMeanMaxTask, AfterBests, AfterBestsTask, AnalyzeSeriesTask, AwdFileTask, CurveFileTask,
  LongitudinalAwdTask, MeanMaxTableTask, TableFile, TrainingLoadTableTask,
} from '../pool/tasks.js';
import { dateToEpochDay, epochDayToDate } from '../../domain/time.js';
import { impulseResponse } from '../models/training-load.js';
import { awdRows, longitudinalAwdRows } from './accumulated-work.js';
import { analyzeRecorded, AWD_RESOLUTION, histogramOf } from './activity-analysis.js';
import { encodeAnalysis } from './analysis-codec.js';
import { canonicalOptions, canonicalSeries, longestSection, metricValues, type CurveMetric } from './canonical-series.js';
import { afterCurves, emptyBest, foldCurve, meanMaxCurve, prefixOf, type BestCurve, type MetricCurve } from './curves.js';
import { resultTable, type Column, type ResultTable } from './tables.js';

/** The activity's cache, from its stored series, and where the activity ends (recordingEnd of its last sample; null without samples). */
export function analyzeSeries(task: AnalyzeSeriesTask): { analysis: ArrayBuffer; end: number | null } {
  const recorded = decodeSeriesIpc(new Uint8Array(task.series));
  const analysis = encodeAnalysis(analyzeRecorded(recorded, task.sport));
  const n = recorded.timestamps.length;
  return { analysis: standalone(analysis), end: n > 0 ? recordingEnd(recorded.timestamps[n - 1]!) : null };
}

/** GetTrainingLoad's day table (engine.proto): the impulse-response averages over the days, from `skip` on. */
export function trainingLoadTable(task: TrainingLoadTableTask): TableFile {
  const days = task.loads.length;
  const fitness = new Float64Array(days);
  const fatigue = new Float64Array(days);
  const form = new Float64Array(days);
  impulseResponse(task.loads, fitness, fatigue, form);
  const first = dateToEpochDay(task.from) + task.skip;
  const skip = task.skip;
  return tableFile(resultTable([
    { name: 'date', type: 'utf8', values: Array.from({ length: days - skip }, (_, d) => epochDayToDate(first + d)) },
    { name: 'load', type: 'float64', values: task.loads.subarray(skip) },
    { name: 'fitness', type: 'float64', values: fitness.subarray(skip) },
    { name: 'fatigue', type: 'float64', values: fatigue.subarray(skip) },
    { name: 'form', type: 'float64', values: form.subarray(skip) },
    { name: 'activities', type: 'int64', values: task.activities.subarray(skip) },
    { name: 'activities_without_load', type: 'int64', values: task.unloaded.subarray(skip) },
    { name: 'activity_ids', type: 'utf8', values: task.ids.slice(skip) },
  ]), task.format);
}

/**
 * One activity's curve, exact at every requested duration ("for a single activity compute them exactly"). The
 * engine answers from the activity's cache instead when it can (service/analyses.ts, task curveFile); both
 * write the file with curveFile, and test/gateway/analytics.test.ts compares their bytes.
 */
export function activityMeanMax(task: ActivityMeanMaxTask): TableFile {
  const series = canonicalSeries(decodeSeriesIpc(new Uint8Array(task.series)), [task.metric], canonicalOptions(task.sport));
  const values = metricValues(series, task.metric);
  // "A metric the activity does not have gives an empty table, not an error."
  const curve = values === null ? emptyCurve() : meanMaxCurve(series, prefixOf(values), task.durations ?? fullGrid(longestSection(series.grid)));
  return curveFile({ metric: task.metric, curve, format: task.format });
}

/** The file of one activity's curve (interface §4: duration, the metric column, start). */
export function curveFile({ metric, curve, format }: CurveFileTask): TableFile {
  return tableFile(curveTable(metric, curve.durations, curve.values, curve.starts, null), format);
}

/** One activity's AWD table, highest intensity first. */
export function activityAwd(task: ActivityAwdTask): TableFile {
  const series = canonicalSeries(decodeSeriesIpc(new Uint8Array(task.series)), [task.metric], canonicalOptions(task.sport));
  const values = metricValues(series, task.metric);
  const histogram = values === null ? new Float64Array(0) : histogramOf(values, series.grid.coverage, AWD_RESOLUTION[task.metric]);
  return awdFile({ metric: task.metric, histogram, format: task.format });
}

/** The file of one activity's AWD from its histogram (empty without the metric): the metric, then duration. */
export function awdFile({ metric, histogram, format }: AwdFileTask): TableFile {
  const rows = awdRows(histogram, AWD_RESOLUTION[metric]);
  return tableFile(resultTable([
    { name: metric, type: 'float64', values: rows.intensity },
    { name: 'duration', type: 'float64', values: rows.duration },
  ]), format);
}

/**
 * The best windows after each fatigue state among a batch of activities (oldest first), state-major; the
 * service folds the batches and writes the table with `meanMaxTable`.
 */
export function afterBests(task: AfterBestsTask): AfterBests {
  const states = task.thresholds.length;
  const bests = Array.from({ length: states }, () => emptyBest(task.durations));
  task.series.forEach((bytes, holder) => {
    const series = canonicalSeries(decodeSeriesIpc(new Uint8Array(bytes)), [task.metric], canonicalOptions(task.sports[holder]!));
    const values = metricValues(series, task.metric);
    if (values === null) return;
    afterCurves(series, prefixOf(values), task.durations, task.thresholds).forEach((curve, state) => {
      if (curve !== null) foldCurve(bests[state]!, curve, holder);
    });
  });
  const n = task.durations.length;
  const out: AfterBests = { values: new Float64Array(states * n), starts: new Float64Array(states * n), holders: new Int32Array(states * n) };
  bests.forEach((best, state) => {
    out.values.set(best.values, state * n);
    out.starts.set(best.starts, state * n);
    out.holders.set(best.holders, state * n);
  });
  return out;
}

/** The longitudinal mean-max table of folded bests (one per state, or one without states). */
export function meanMaxTable(task: MeanMaxTableTask): TableFile {
  const n = task.durations.length;
  const states = task.after?.length ?? 1;
  const bests: BestCurve[] = [];
  for (let state = 0; state < states; state++) {
    bests.push({
      durations: task.durations,
      values: task.values.subarray(state * n, (state + 1) * n),
      starts: task.starts.subarray(state * n, (state + 1) * n),
      holders: task.holders.subarray(state * n, (state + 1) * n),
    });
  }
  return tableFile(bestTable(task.metric, bests, task.after, task.activities), task.format);
}

/** Longitudinal AWD levels over the local days of the cached histograms. */
export function longitudinalAwd(task: LongitudinalAwdTask): TableFile {
  const rows = longitudinalAwdRows(task.days, AWD_RESOLUTION[task.metric]);
  return tableFile(resultTable([
    { name: task.metric, type: 'float64', values: rows.intensity },
    { name: 'max', type: 'float64', values: rows.max },
    { name: 'hard', type: 'float64', values: rows.hard },
    { name: 'medium', type: 'float64', values: rows.medium },
    { name: 'easy', type: 'float64', values: rows.easy },
  ]), task.format);
}

// ---------------------------------------------------------------------------------------------------------

/** Rows of every state's best curve where some activity reached the duration; states in the given order. */
function bestTable(metric: CurveMetric, bests: readonly BestCurve[], after: readonly number[] | null, activities: readonly { id: string; sport: string }[]): ResultTable {
  const durations: number[] = [];
  const values: number[] = [];
  const starts: number[] = [];
  const ids: string[] = [];
  const sports: string[] = [];
  const states: number[] = [];
  bests.forEach((best, state) => {
    for (let j = 0; j < best.durations.length; j++) {
      const holder = best.holders[j]!;
      if (holder < 0) continue;
      durations.push(best.durations[j]!);
      values.push(best.values[j]!);
      starts.push(best.starts[j]!);
      ids.push(activities[holder]!.id);
      sports.push(activities[holder]!.sport);
      if (after !== null) states.push(after[state]!);
    }
  });
  return curveTable(metric, Int32Array.from(durations), Float64Array.from(values), Float64Array.from(starts), {
    ids, sports, after: after === null ? null : Float64Array.from(states),
  });
}

/** Interface §4: duration, the metric column, start; longitudinal adds activity_id, sport, and after when used. */
function curveTable(
  metric: CurveMetric, durations: Int32Array, values: Float64Array, starts: Float64Array,
  longitudinal: { ids: string[]; sports: string[]; after: Float64Array | null } | null,
): ResultTable {
  const columns: Column[] = [
    { name: 'duration', type: 'int64', values: durations },
    { name: metric, type: 'float64', values },
    { name: 'start', type: 'timestamp', values: starts },
  ];
  if (longitudinal !== null) {
    columns.push({ name: 'activity_id', type: 'utf8', values: longitudinal.ids }, { name: 'sport', type: 'utf8', values: longitudinal.sports });
    if (longitudinal.after !== null) columns.push({ name: 'after', type: 'float64', values: longitudinal.after });
  }
  return resultTable(columns);
}

function emptyCurve(): MetricCurve {
  return { durations: new Int32Array(0), values: new Float64Array(0), starts: new Float64Array(0) };
}

function tableFile(table: ResultTable, format: TableFileFormat): TableFile {
  return { data: standalone(encodeTableFile(table.schema, table.batches, format)), rows: table.rows };
}
