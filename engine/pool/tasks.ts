/**
 * The messages between the engine's event loop and its workers, one entry per task (the Piscina
 * `name` option selects the worker export of the same name). Buffers travel by transfer.
 */
import type { DecodeErrorCode } from '../ingest/decode-error.js';
import type { LapRecord, SummaryBlocks } from '../../storage/records.js';

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

export interface PoolTasks {
  decodeFile: { task: DecodeFileTask; result: DecodeOutcome };
}

export type TaskName = keyof PoolTasks;
