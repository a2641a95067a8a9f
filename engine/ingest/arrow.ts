/**
 * Recorded series ↔ Arrow IPC stream bytes, the form activity series are stored and sent in:
 * column `timestamp` as timestamp[ms, UTC] (not nullable), then one Float64 column per metric,
 * null where the series holds NaN.
 *
 * Columns are built straight from the typed arrays (one pass for the int64 timestamps, one pass per
 * metric for the validity bitmap); no per-row objects. `decodeSeriesIpc` reads them back into typed
 * arrays for the kernels. test/engine/arrow.test.ts round-trips both ways.
 */
import {
  DataType, Field, Float64, RecordBatch, Schema, Struct, Table, TimestampMillisecond, makeData, tableFromIPC, tableToIPC, type Data,
} from 'apache-arrow';
import { SERIES_METRICS, type MetricColumn, type RecordedSeries, type SeriesMetric } from './series.js';

export function encodeSeriesIpc(series: RecordedSeries): Uint8Array {
  const length = series.timestamps.length;
  const fields: Field[] = [new Field('timestamp', new TimestampMillisecond('UTC'), false)];
  const children: Data[] = [
    makeData({ type: new TimestampMillisecond('UTC'), length, nullCount: 0, data: toInt64(series.timestamps) }),
  ];
  for (const { name, values } of series.metrics) {
    if (values.length !== length) throw new Error(`arrow encode: column ${name} has ${values.length} rows, timestamp has ${length}`);
    fields.push(new Field(name, new Float64(), true));
    children.push(float64WithNulls(values));
  }
  const schema = new Schema(fields);
  const batch = new RecordBatch(schema, makeData({ type: new Struct(fields), length, nullCount: 0, children }));
  return tableToIPC(new Table([batch]), 'stream');
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const TWO_32 = 4_294_967_296;

/** Whole milliseconds (|ms| < 2^53) as int64, written as two int32 words to avoid a BigInt per row. */
export function toInt64(ms: Float64Array): BigInt64Array {
  const out = new BigInt64Array(ms.length);
  if (!LITTLE_ENDIAN) {
    for (let i = 0; i < ms.length; i++) out[i] = BigInt(ms[i]!);
    return out;
  }
  const words = new Int32Array(out.buffer);
  for (let i = 0; i < ms.length; i++) {
    const v = ms[i]!;
    const hi = Math.floor(v / TWO_32);
    words[2 * i] = (v - hi * TWO_32) | 0;
    words[2 * i + 1] = hi;
  }
  return out;
}

/** A Float64 column whose validity bitmap marks NaN as null (LSB-first bits, as Arrow lays them out). */
export function float64WithNulls(values: Float64Array): Data<Float64> {
  const length = values.length;
  const bitmap = new Uint8Array((length + 7) >> 3);
  let nullCount = 0;
  for (let i = 0; i < length; i++) {
    const v = values[i]!;
    if (v === v) bitmap[i >> 3]! |= 1 << (i & 7);
    else nullCount++;
  }
  return makeData({ type: new Float64(), length, nullCount, nullBitmap: nullCount > 0 ? bitmap : null, data: values });
}

/**
 * Stored Arrow IPC stream bytes → the recorded series: timestamps as epoch-ms Float64, each known metric
 * column as Float64 with NaN for null, in SERIES_METRICS order. Columns of other names are ignored.
 */
export function decodeSeriesIpc(bytes: Uint8Array): RecordedSeries {
  const table = tableFromIPC(bytes);
  const length = table.numRows;
  const timestamps = new Float64Array(length);
  const stamp = table.getChild('timestamp');
  if (stamp === null || !DataType.isTimestamp(stamp.type)) throw new Error('arrow decode: the series has no timestamp column');
  let row = 0;
  for (const data of stamp.data) {
    const values = data.values as BigInt64Array;
    if (LITTLE_ENDIAN) {
      const words = new Int32Array(values.buffer, values.byteOffset + data.offset * 8, data.length * 2);
      for (let i = 0; i < data.length; i++) timestamps[row++] = words[2 * i + 1]! * TWO_32 + (words[2 * i]! >>> 0);
    } else {
      for (let i = 0; i < data.length; i++) timestamps[row++] = Number(values[data.offset + i]!);
    }
  }
  const metrics: MetricColumn[] = [];
  for (const name of SERIES_METRICS) {
    const column = table.getChild(name);
    if (column === null) continue;
    metrics.push({ name: name as SeriesMetric, values: float64WithNaN(column.data, length) });
  }
  return { timestamps, metrics };
}

/** Float64 (or other numeric) chunks → one Float64Array with NaN where a row is null. */
function float64WithNaN(chunks: readonly Data[], length: number): Float64Array {
  const out = new Float64Array(length);
  let row = 0;
  for (const data of chunks) {
    const values = data.values as ArrayLike<number>;
    const bitmap = data.nullCount > 0 ? data.nullBitmap : null;
    for (let i = 0; i < data.length; i++) {
      const at = data.offset + i;
      out[row++] = bitmap !== null && bitmap !== undefined && (bitmap[at >> 3]! & (1 << (at & 7))) === 0 ? Number.NaN : Number(values[at]!);
    }
  }
  return out;
}
