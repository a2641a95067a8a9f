/**
 * The messages between the engine's event loop and its workers, one entry per task (the Piscina
 * `name` option selects the worker export of the same name). Buffers travel by transfer.
 */
import type { DecodeErrorCode } from '../ingest/decode-error.js';

export interface DecodeCsvTask {
  /** The file's bytes, a standalone buffer transferred to the worker. */
  bytes: ArrayBuffer;
}

export interface DecodedActivityResult {
  sport: string;
  /** UTC epoch milliseconds. */
  start: number;
  end: number;
  /** Minutes east of UTC. */
  offset: number;
  samples: number;
  metrics: string[];
  /** Arrow IPC stream bytes, transferred back. */
  series: ArrayBuffer;
}

/** A decode either yields activities or fails with a `DecodeError`'s code and message (errors do not keep their fields across threads). */
export type DecodeOutcome =
  | { ok: true; activities: DecodedActivityResult[]; warnings: string[] }
  | { ok: false; code: DecodeErrorCode; message: string };

export interface PoolTasks {
  decodeCsv: { task: DecodeCsvTask; result: DecodeOutcome };
}

export type TaskName = keyof PoolTasks;
