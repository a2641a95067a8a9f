/**
 * Recorded series → Arrow IPC stream bytes, the form activity series are stored and sent in:
 * column `timestamp` as timestamp[ms, UTC] (not nullable), then one Float64 column per metric,
 * null where the series holds NaN.
 *
 * Columns are built straight from the typed arrays (one pass for the int64 timestamps, one pass per
 * metric for the validity bitmap); no per-row objects. test/engine/arrow.test.ts reads the bytes back.
 */
import {
  Field, Float64, RecordBatch, Schema, Struct, Table, TimestampMillisecond, makeData, tableToIPC, type Data,
} from 'apache-arrow';
import type { RecordedSeries } from './series.js';

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
function toInt64(ms: Float64Array): BigInt64Array {
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
function float64WithNulls(values: Float64Array): Data<Float64> {
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
