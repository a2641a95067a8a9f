/**
 * The worker entry: one named export per task (pool.ts runs them by name). Each receives its input
 * buffers by transfer and returns its result with `Piscina.move`, transferring the output buffers.
 * Failures the caller should see (undecodable files) are returned as values; thrown errors are bugs.
 */
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { encodeSeriesIpc } from '../ingest/arrow.js';
import { decodeCsv as decodeCsvBytes, type CsvDecodeOptions } from '../ingest/csv.js';
import { DecodeError } from '../ingest/decode-error.js';
import type { DecodeCsvTask, DecodeOutcome } from './tasks.js';
import { canonicalSport } from '../../domain/sport.js';

/** CSV `sport` cells are canonicalised through the Open Sport Taxonomy (legacy renames applied). */
const CANONICAL_SPORT: CsvDecodeOptions['canonicalSport'] = canonicalSport;

export async function decodeCsv(task: DecodeCsvTask): Promise<unknown> {
  let outcome: DecodeOutcome;
  try {
    const decoded = await decodeCsvBytes(new Uint8Array(task.bytes), { canonicalSport: CANONICAL_SPORT });
    const series = standalone(encodeSeriesIpc(decoded.series));
    outcome = {
      ok: true,
      activities: [{
        sport: decoded.sport,
        start: decoded.start,
        end: decoded.end,
        offset: decoded.offset,
        samples: decoded.series.timestamps.length,
        metrics: decoded.series.metrics.map((column) => column.name),
        series,
      }],
      warnings: decoded.warnings,
    };
    return move({ [transferableSymbol]: [series], [valueSymbol]: outcome });
  } catch (error) {
    if (error instanceof DecodeError) return { ok: false, code: error.code, message: error.message } satisfies DecodeOutcome;
    throw error;
  }
}

/** The bytes as an ArrayBuffer of their own, so transferring it moves nothing else. */
function standalone(bytes: Uint8Array): ArrayBuffer {
  const { buffer, byteOffset, byteLength } = bytes;
  if (buffer instanceof ArrayBuffer && byteOffset === 0 && byteLength === buffer.byteLength) return buffer;
  return bytes.slice().buffer as ArrayBuffer;
}
