/**
 * Record batches → table file bytes, Parquet (parquet-wasm, the Rust `parquet` crate compiled to
 * WebAssembly) or Arrow IPC stream, whole or incrementally. Runs inside pool workers only.
 *
 * Parquet as gaps.md "Wire conventions" pins it: timestamp[ms, UTC] columns become INT64
 * TIMESTAMP(MILLIS, isAdjustedToUTC=true), naive ones TIMESTAMP(MILLIS, isAdjustedToUTC=false); the
 * Arrow schema is embedded (`ARROW:schema`), so pyarrow and polars get the exact Arrow types back.
 * Compression is Snappy, not zstd: every reader gaps.md names reads both, but hyparquet decodes only
 * Snappy without its separate hyparquet-compressors plug-in.
 *
 * Streaming (`streamTableFile`) writes one file while pulling batches one activity at a time: Parquet
 * through parquet-wasm's `transformParquetStream`, which flushes each row group (ROW_GROUP_ROWS rows)
 * as it fills, so memory holds one row group plus the batch being added; Arrow IPC by framing each
 * batch's messages after one schema message. test/engine/parquet.test.ts reads both back.
 */
import { Table, tableToIPC, type RecordBatch, type Schema } from 'apache-arrow';
import {
  Compression, Table as WasmTable, WriterPropertiesBuilder, transformParquetStream, writeParquet,
  type RecordBatch as WasmRecordBatch, type WriterProperties,
} from 'parquet-wasm';
import { parquetRowCount } from './footer.js';

export type TableFileFormat = 'parquet' | 'arrow_ipc';

/** Snappy (see the header); gaps.md allows snappy or zstd. */
export const PARQUET_COMPRESSION = Compression.SNAPPY;
/**
 * Rows per row group of a streamed Parquet file: about 36 h of 1 Hz samples, a few MB encoded. Bounds
 * the writer's memory; large enough that readers scan efficiently.
 */
export const ROW_GROUP_ROWS = 131_072;

/** The end-of-stream marker of the Arrow IPC stream format: continuation token, zero length. */
const IPC_END = new Uint8Array([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]);

/** A fresh set each time: parquet-wasm consumes the properties it is given. */
function writerProperties(): WriterProperties {
  return new WriterPropertiesBuilder().setCompression(PARQUET_COMPRESSION).setMaxRowGroupSize(ROW_GROUP_ROWS).build();
}

/** A whole file of `batches` (each of `schema`; none gives a valid file with zero rows). */
export function encodeTableFile(schema: Schema, batches: RecordBatch[], format: TableFileFormat): Uint8Array {
  // new Table(schema, batches) throws unless every batch has exactly this schema.
  const ipc = tableToIPC(new Table(schema, batches), 'stream');
  return format === 'arrow_ipc' ? ipc : writeParquet(WasmTable.fromIPCStream(ipc), writerProperties());
}

/** The next activity's batches, or null at the end. */
export type NextBatches = () => Promise<RecordBatch[] | null>;

/**
 * Writes one file of `schema` while pulling batches from `next` until it answers null; `emit` gets the
 * file's bytes in order, as they are produced. Resolves with the number of rows written. A rejection
 * of `next` ends the file early and rejects (the bytes emitted so far are not a valid file).
 */
export function streamTableFile(schema: Schema, format: TableFileFormat, next: NextBatches, emit: (bytes: Uint8Array) => void): Promise<number> {
  return format === 'arrow_ipc' ? streamIpc(schema, next, emit) : streamParquet(schema, next, emit);
}

async function streamParquet(schema: Schema, next: NextBatches, emit: (bytes: Uint8Array) => void): Promise<number> {
  let rows = 0;
  const queue: WasmRecordBatch[] = [];
  const pull = async (): Promise<WasmRecordBatch | null> => {
    while (queue.length === 0) {
      const batches = await next();
      if (batches === null) return null;
      const filled = batches.filter((batch) => batch.numRows > 0);
      if (filled.length === 0) continue;
      const table = WasmTable.fromIPCStream(tableToIPC(new Table(schema, filled), 'stream'));
      queue.push(...table.recordBatches());
      table.free();
      for (const batch of filled) rows += batch.numRows;
    }
    return queue.shift()!;
  };

  const first = await pull();
  if (first === null) {
    // transformParquetStream needs a first batch for the schema; an empty file is written whole.
    emit(encodeTableFile(schema, [], 'parquet'));
    return 0;
  }
  let failure: unknown = null;
  const input = new ReadableStream<WasmRecordBatch>(
    {
      start(controller) {
        controller.enqueue(first);
      },
      async pull(controller) {
        try {
          const batch = await pull();
          if (batch === null) controller.close();
          else controller.enqueue(batch);
        } catch (error) {
          // Never error the input: parquet-wasm skips a failed read and keeps reading. Close it, finish
          // the file, and reject below.
          failure = error;
          controller.close();
        }
      },
    },
    { highWaterMark: 0 },
  );
  const output = (await transformParquetStream(input, writerProperties())) as ReadableStream<Uint8Array>;
  // A copy of the latest chunk is kept (emit may transfer it away): the last one holds the footer,
  // checked below (see footer.ts for why).
  let last: Uint8Array | null = null;
  for await (const chunk of output) {
    last = chunk.slice();
    emit(chunk);
  }
  if (failure !== null) throw failure;
  if (last === null) throw new Error('parquet stream: the writer produced no bytes');
  const written = parquetRowCount(last);
  if (written !== rows) throw new Error(`parquet stream: fed ${rows} rows but the file holds ${written}`);
  return rows;
}

async function streamIpc(schema: Schema, next: NextBatches, emit: (bytes: Uint8Array) => void): Promise<number> {
  // The schema message is what an empty stream holds before its end marker; every one-table stream of
  // this schema starts with the same bytes, and only its record batch messages are kept.
  const empty = tableToIPC(new Table(schema), 'stream');
  const head = empty.subarray(0, empty.length - IPC_END.length);
  emit(head.slice());
  let rows = 0;
  for (let batches = await next(); batches !== null; batches = await next()) {
    const filled = batches.filter((batch) => batch.numRows > 0);
    if (filled.length === 0) continue;
    const ipc = tableToIPC(new Table(schema, filled), 'stream');
    if (!startsWith(ipc, head)) throw new Error('arrow stream: a batch was encoded with another schema message');
    emit(ipc.slice(head.length, ipc.length - IPC_END.length));
    for (const batch of filled) rows += batch.numRows;
  }
  emit(IPC_END.slice());
  return rows;
}

function startsWith(bytes: Uint8Array, prefix: Uint8Array): boolean {
  if (bytes.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[i] !== prefix[i]) return false;
  return true;
}
