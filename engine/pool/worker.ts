/**
 * The worker entry: one named export per task (pool.ts runs them by name). Each receives its input
 * buffers by transfer and returns its result with `Piscina.move`, transferring the output buffers.
 * Failures the caller should see (undecodable files) are returned as values; thrown errors are bugs.
 */
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { encodeSeriesIpc } from '../ingest/arrow.js';
import { decodeCsv, type DecodedCsv } from '../ingest/csv.js';
import { decodeFit } from '../ingest/fit.js';
import type { DecodedActivity, DecodedFile } from '../ingest/decoded.js';
import { indexAtOrAfter, sampleWeights, summarize } from '../kernels/summary.js';
import { DecodeError } from '../ingest/decode-error.js';
import type { DecodeFileTask, DecodeOutcome, DecodedActivityResult } from './tasks.js';
import type { EncodeSeriesTableTask, StreamSeriesTableTask, StreamedSeriesTable } from './tasks.js';
import { encodeSeriesFile, streamSeriesFile } from '../parquet/series-file.js';
import { canonicalSport } from '../../domain/sport.js';
import { standalone } from './standalone.js';
import { analyzeActivity, encodeAnalysis } from '../analysis/activity-analysis.js';
import { canonicalSeries } from '../analysis/canonical-series.js';
import * as analyses from '../analysis/analysis-tasks.js';
import type {
  ActivityAwdTask, ActivityMeanMaxTask, AfterBestsTask, AnalyzeSeriesTask, LongitudinalAwdTask, MeanMaxTableTask, TableFile,
} from './tasks.js';

/**
 * decodeFile: a file's bytes → its activities, each with its series as Arrow IPC, its summary and its
 * laps' statistics (computed here from the decoded columns, never taken from the file's summaries).
 * Also the activity's analysis cache, so a new activity is ready for longitudinal curves at once.
 * An undecodable file is a value (`ok: false` with the decoder's code), not a thrown error.
 */
export async function decodeFile(task: DecodeFileTask): Promise<unknown> {
  let decoded: DecodedFile;
  try {
    decoded = task.type === 'fit' ? await decodeFit(new Uint8Array(task.bytes)) : csvAsFile(await decodeCsv(new Uint8Array(task.bytes), { canonicalSport }));
  } catch (error) {
    if (error instanceof DecodeError) return { ok: false, code: error.code, message: error.message } satisfies DecodeOutcome;
    throw error;
  }
  const activities = decoded.activities.map(describeActivity);
  const outcome: DecodeOutcome = { ok: true, activities, warnings: decoded.warnings };
  return move({ [transferableSymbol]: activities.flatMap((activity) => [activity.series, activity.analysis]), [valueSymbol]: outcome });
}

function csvAsFile(csv: DecodedCsv): DecodedFile {
  return { activities: [{ sport: csv.sport, start: csv.start, end: csv.end, offset: csv.offset, series: csv.series, laps: [], devices: [] }], warnings: csv.warnings };
}

function describeActivity(activity: DecodedActivity): DecodedActivityResult {
  const { series } = activity;
  const weights = sampleWeights(series.timestamps);
  const n = series.timestamps.length;
  const summary = summarize(series, weights, 0, n);
  const laps = activity.laps.map((lap) => ({
    start: lap.start,
    end: lap.end,
    offset: activity.offset,
    blocks: summarize(series, weights, indexAtOrAfter(series.timestamps, lap.start), indexAtOrAfter(series.timestamps, lap.end + 1)),
  }));
  return {
    sport: activity.sport,
    start: activity.start,
    end: activity.end,
    offset: activity.offset,
    samples: n,
    metrics: series.metrics.map((column) => column.name),
    summary,
    laps,
    devices: activity.devices,
    distance: summary.distance?.sum ?? null,
    series: standalone(encodeSeriesIpc(series)),
    analysis: standalone(encodeAnalysis(analyzeActivity(canonicalSeries(series)))),
  };
}

// ---------------------------------------------------------------------------------------------------------
// Series tables (engine/parquet/): Parquet or Arrow IPC files of stored series

/** encodeSeriesTable: one activity's stored series → a whole table file, its bytes moved back. */
export function encodeSeriesTable(task: EncodeSeriesTableTask): unknown {
  const encoded = encodeSeriesFile(task);
  return move({ [transferableSymbol]: [encoded.data], [valueSymbol]: encoded });
}

/** streamSeriesTable: activities fed through the task's port → one file, streamed back through it. */
export function streamSeriesTable(task: StreamSeriesTableTask): Promise<StreamedSeriesTable> {
  return streamSeriesFile(task);
}

// ---------------------------------------------------------------------------------------------------------
// Analyses (engine/analysis/analysis-tasks.ts): result tables and caches, their buffers moved back

function moveTable(file: TableFile): unknown {
  return move({ [transferableSymbol]: [file.data], [valueSymbol]: file });
}

export function analyzeSeries(task: AnalyzeSeriesTask): unknown {
  const result = analyses.analyzeSeries(task);
  return move({ [transferableSymbol]: [result.analysis], [valueSymbol]: result });
}

export function activityMeanMax(task: ActivityMeanMaxTask): unknown {
  return moveTable(analyses.activityMeanMax(task));
}

export function activityAwd(task: ActivityAwdTask): unknown {
  return moveTable(analyses.activityAwd(task));
}

export function afterBests(task: AfterBestsTask): unknown {
  const result = analyses.afterBests(task);
  return move({ [transferableSymbol]: [result.values.buffer, result.starts.buffer, result.holders.buffer], [valueSymbol]: result });
}

export function meanMaxTable(task: MeanMaxTableTask): unknown {
  return moveTable(analyses.meanMaxTable(task));
}

export function longitudinalAwd(task: LongitudinalAwdTask): unknown {
  return moveTable(analyses.longitudinalAwd(task));
}
