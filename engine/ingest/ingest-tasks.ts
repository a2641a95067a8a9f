/**
 * The ingest task as the pool's workers run it (engine/pool/worker.ts dispatches to it by name; its
 * input and result are declared in engine/pool/tasks.ts), beside the analysis tasks
 * (engine/analysis/analysis-tasks.ts): a file's bytes → its activities, each with its series as Arrow
 * IPC, its summary and its laps' statistics (computed here from the decoded columns, never taken from
 * the file's summaries), and its analysis cache, so a new activity is ready for longitudinal curves at
 * once. An undecodable file is a value (`ok: false` with the decoder's code), not a thrown error:
 * errors do not keep their fields across threads. So is a decoder that throws anything else: the same
 * bytes would make it throw again, so retrying cannot help (issue: imports that fail fast).
 */
import { canonicalSport } from '../../domain/sport.js';
import { analyzeRecorded } from '../analysis/activity-analysis.js';
import { encodeAnalysis } from '../analysis/analysis-codec.js';
import { indexAtOrAfter, recordingEnd, sampleWeights } from '../kernels/summary.js';
import { standalone } from '../pool/standalone.js';
import type { DecodeFileTask, DecodeOutcome, DecodedActivityResult } from '../pool/tasks.js';
import { encodeSeriesIpc } from './arrow.js';
import { decodeCsv, type DecodedCsv } from './csv.js';
import { DecodeError } from './decode-error.js';
import type { DecodedActivity, DecodedFile } from './decoded.js';
import { decodeFit } from './fit.js';
import { summarize } from './summary.js';

export async function decodeFile(task: DecodeFileTask): Promise<DecodeOutcome> {
  let decoded: DecodedFile;
  try {
    decoded = task.type === 'fit' ? await decodeFit(new Uint8Array(task.bytes)) : csvAsFile(await decodeCsv(new Uint8Array(task.bytes), { canonicalSport }));
  } catch (error) {
    return failedDecode(error);
  }
  return { ok: true, activities: decoded.activities.map(describeActivity), warnings: decoded.warnings };
}

/** A decoder's error as a permanent failure: its own code, or `decode_failed` naming what it threw. */
export function failedDecode(error: unknown): DecodeOutcome & { ok: false } {
  if (error instanceof DecodeError) return { ok: false, code: error.code, message: error.message };
  const what = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return { ok: false, code: 'decode_failed', message: `decode: the decoder failed on this file (${what.slice(0, 300)})` };
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
    end: recordingEnd(activity.end), // the last sample holds 1 s, as in the series
    offset: activity.offset,
    samples: n,
    metrics: series.metrics.map((column) => column.name),
    summary,
    laps,
    devices: activity.devices,
    distance: summary.distance?.sum ?? null,
    series: standalone(encodeSeriesIpc(series)),
    analysis: standalone(encodeAnalysis(analyzeRecorded(series, activity.sport))),
  };
}
