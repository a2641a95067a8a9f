/**
 * The messages between the engine's event loop and its workers, one entry per task (the Piscina
 * `name` option selects the worker export of the same name). Buffers travel by transfer.
 */
import type { DecodeErrorCode } from '../ingest/decode-error.js';
import type { LapRecord, SummaryBlocks } from '../../storage/records.js';
import type { MessagePort } from 'node:worker_threads';
import type { TableFileFormat } from '../parquet/table-file.js';

export interface DecodeFileTask {
  /** The file's bytes, a standalone buffer transferred to the worker. */
  bytes: ArrayBuffer;
  type: 'csv' | 'fit';
}

/** One activity of a decoded file, with what ingest stores: summary, laps with their statistics, series. */
export interface DecodedActivityResult {
  sport: string;
  /** UTC epoch milliseconds. */
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
}

/** A decode either yields activities or fails with a `DecodeError`'s code and message (errors do not keep their fields across threads). */
export type DecodeOutcome =
  | { ok: true; activities: DecodedActivityResult[]; warnings: string[] }
  | { ok: false; code: DecodeErrorCode; message: string };

/** encodeSeriesTable: one activity's stored series → a whole table file (engine/parquet/series-file.ts). */
export interface EncodeSeriesTableTask {
  /** The stored series (Arrow IPC stream), a standalone buffer transferred to the worker. */
  series: ArrayBuffer;
  /** Requested metrics (interface names, validated), in request order; those the series lacks are left out. */
  metrics: string[];
  /** Minutes east of UTC, for `timestamp_local`. */
  offset: number;
  /** For messages. */
  activityId: string;
  format: TableFileFormat;
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
}

export interface StreamedSeriesTable {
  rows: number;
  bytes: number;
}

export interface PoolTasks {
  decodeFile: { task: DecodeFileTask; result: DecodeOutcome };
  encodeSeriesTable: { task: EncodeSeriesTableTask; result: EncodedSeriesTable };
  streamSeriesTable: { task: StreamSeriesTableTask; result: StreamedSeriesTable };
}

export type TaskName = keyof PoolTasks;
