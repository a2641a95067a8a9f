/**
 * Result tables of the analyses as Arrow record batches, for engine/parquet/table-file.ts to write as
 * Parquet or Arrow IPC. Column types follow gaps.md "Wire conventions": mean-max `duration` is an int64
 * of seconds, instants are timestamp[ms, UTC], values float64 (NaN written as null).
 */
import {
  Field, Float64, Int64, RecordBatch, Schema, Struct, TimestampMillisecond, Utf8, makeData, type Data, type DataType,
} from 'apache-arrow';
import { float64WithNulls, toInt64 } from '../ingest/arrow.js';

export type Column =
  | { name: string; type: 'int64'; values: Int32Array }
  | { name: string; type: 'float64'; values: Float64Array }
  | { name: string; type: 'timestamp'; values: Float64Array }
  | { name: string; type: 'utf8'; values: readonly string[] };

export interface ResultTable {
  schema: Schema;
  /** One batch, or none for an empty table. */
  batches: RecordBatch[];
  rows: number;
}

/** One batch of equally long columns (none when they are empty; the schema still says what they are). */
export function resultTable(columns: readonly Column[]): ResultTable {
  const length = columns[0]?.values.length ?? 0;
  const fields = columns.map((column) => new Field(column.name, arrowType(column), column.type === 'float64'));
  const schema = new Schema(fields);
  if (length === 0) return { schema, batches: [], rows: 0 };
  const children = columns.map((column) => {
    if (column.values.length !== length) throw new Error(`result table: column ${column.name} has ${column.values.length} rows, not ${length}`);
    return columnData(column);
  });
  const batch = new RecordBatch(schema, makeData({ type: new Struct(fields), length, nullCount: 0, children }));
  return { schema, batches: [batch], rows: length };
}

function arrowType(column: Column): DataType {
  switch (column.type) {
    case 'int64': return new Int64();
    case 'float64': return new Float64();
    case 'timestamp': return new TimestampMillisecond('UTC');
    case 'utf8': return new Utf8();
  }
}

function columnData(column: Column): Data {
  const length = column.values.length;
  switch (column.type) {
    case 'int64': return makeData({ type: new Int64(), length, nullCount: 0, data: BigInt64Array.from(column.values, (value) => BigInt(value)) });
    case 'float64': return float64WithNulls(column.values);
    case 'timestamp': return makeData({ type: new TimestampMillisecond('UTC'), length, nullCount: 0, data: toInt64(column.values) });
    case 'utf8': return utf8(column.values);
  }
}

function utf8(values: readonly string[]): Data<Utf8> {
  const encoder = new TextEncoder();
  const encoded = values.map((value) => encoder.encode(value));
  const valueOffsets = new Int32Array(values.length + 1);
  for (let i = 0; i < encoded.length; i++) valueOffsets[i + 1] = valueOffsets[i]! + encoded[i]!.length;
  const data = new Uint8Array(valueOffsets[values.length]!);
  for (let i = 0; i < encoded.length; i++) data.set(encoded[i]!, valueOffsets[i]!);
  return makeData({ type: new Utf8(), length: values.length, nullCount: 0, valueOffsets, data });
}
