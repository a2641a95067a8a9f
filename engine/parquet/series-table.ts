/**
 * A stored activity series (engine/ingest/arrow.ts: `timestamp` as timestamp[ms, UTC], then Float64
 * metric columns, null where a row has no value) → record batches of the table the API serves
 * (interface §4 "Activities", `/data` and `/longitudinal-data`):
 *
 *   timestamp        timestamp[ms, UTC]   the stored instants
 *   timestamp_local  timestamp[ms]        naive wall-clock time: instant + the activity's UTC offset
 *   activity_id      utf8                 longitudinal tables only
 *   sport            utf8                 longitudinal tables only (canonical OST)
 *   <metric>…        in request order, one column for every requested metric (gaps.md: "a column for
 *                    every requested metric, null where an activity lacks it"), typed by metricType:
 *                    float64 for `duration` (seconds since the first sample), every per-sample series and
 *                    lactate; int32 for lap and rpe; utf8 for notes
 *
 * Stored metric columns are reused as they are (no copy); the derived columns are built by the kernels
 * in time-columns.ts. A layout is one Schema object, and every batch is built against it, so all the
 * batches of a streamed file share one schema (the Parquet stream writer silently drops a batch whose
 * schema differs; see footer.ts). test/engine/parquet.test.ts reads the results back with hyparquet.
 */
import {
  DataType, Field, Float64, Int32, RecordBatch, Schema, Struct, TimeUnit, TimestampMillisecond, Utf8, makeData, makeVector,
  type Data, type Table,
} from 'apache-arrow';
import { millisAt, secondsSince, shiftMillis } from './time-columns.js';
import { float64WithNulls, toInt64 } from '../ingest/arrow.js';
import type { Segments } from '../analysis/segments.js';

export interface SeriesLayout {
  schema: Schema;
  /** Metric columns, in output order. */
  metrics: string[];
  activityColumns: boolean;
}

/** What a series table says about its activity. */
export interface SeriesActivity {
  id: string;
  /** Canonical Open Sport Taxonomy string. */
  sport: string;
  /** Minutes east of UTC, for `timestamp_local`. */
  offset: number;
}

const MS_PER_MINUTE = 60_000;
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const ENCODER = new TextEncoder();

/**
 * The Arrow type of a metric's column, the same whether or not an activity has the metric, so an
 * all-null column reads as the type the metric has where it is recorded and the activities of a
 * longitudinal file share one schema. Recorded series are stored as float64 (engine/ingest/arrow.ts);
 * the metrics that are not per-sample columns (lap, lactate, rpe, notes: always null here) take their
 * interface types: lactate "number" (mmol/L), rpe "integer", notes "string", lap a lap number.
 */
export function metricType(name: string): Float64 | Int32 | Utf8 {
  switch (name) {
    case 'lap':
    case 'rpe':
      return new Int32();
    case 'notes':
      return new Utf8();
    default:
      return new Float64();
  }
}

/** The columns of a series table: timestamp, timestamp_local, [activity_id, sport,] then `metrics` (repeats dropped). */
export function seriesLayout(metrics: readonly string[], options: { activityColumns: boolean }): SeriesLayout {
  const fields: Field[] = [
    new Field('timestamp', new TimestampMillisecond('UTC'), false),
    new Field('timestamp_local', new TimestampMillisecond(), false),
  ];
  if (options.activityColumns) fields.push(new Field('activity_id', new Utf8(), false), new Field('sport', new Utf8(), false));
  // `duration` exists on every row; any other metric is null where the row (or the activity) has no value.
  const unique = [...new Set(metrics)];
  for (const name of unique) fields.push(new Field(name, metricType(name), name !== 'duration'));
  return { schema: new Schema(fields), metrics: unique, activityColumns: options.activityColumns };
}

/**
 * The stored series as record batches of `layout` (one per stored batch; none for an empty series).
 * A metric of the layout that the series lacks becomes an all-null column of the metric's type.
 */
export function seriesBatches(stored: Table, layout: SeriesLayout, activity: SeriesActivity): RecordBatch[] {
  const timestampIndex = stored.schema.fields.findIndex((field) => field.name === 'timestamp');
  const timestampType = stored.schema.fields[timestampIndex]?.type;
  if (!DataType.isTimestamp(timestampType) || timestampType.unit !== TimeUnit.MILLISECOND) {
    throw new Error(`series table: activity ${activity.id} has no timestamp[ms] column`);
  }
  const offsetMs = activity.offset * MS_PER_MINUTE;
  let firstMs: number | null = null;
  const out: RecordBatch[] = [];
  for (const batch of stored.batches) {
    const length = batch.numRows;
    if (length === 0) continue;
    const instants = int64Values(batch.getChildAt(timestampIndex)!.data[0]!);
    firstMs ??= firstMillis(instants);
    const children: Data[] = [
      makeData({ type: new TimestampMillisecond('UTC'), length, nullCount: 0, data: instants }),
      makeData({ type: new TimestampMillisecond(), length, nullCount: 0, data: localInstants(instants, offsetMs) }),
    ];
    if (layout.activityColumns) children.push(constantUtf8(activity.id, length), constantUtf8(activity.sport, length));
    for (const name of layout.metrics) {
      if (name === 'duration') {
        children.push(makeData({ type: new Float64(), length, nullCount: 0, data: durations(instants, firstMs) }));
        continue;
      }
      const type = metricType(name);
      const column = DataType.isFloat(type) ? batch.getChild(name) : null;
      children.push(column === null ? allNull(type, length) : asFloat64(column.data[0]!, activity.id, name));
    }
    out.push(new RecordBatch(layout.schema, makeData({ type: new Struct(layout.schema.fields), length, nullCount: 0, children })));
  }
  return out;
}

/**
 * Adaptive segments (engine/analysis/segments.ts) as one record batch of `layout`: `timestamp` is each
 * segment's start, `duration` its length in seconds, every other metric its mean (null without one).
 */
export function segmentBatches(segments: Segments, layout: SeriesLayout, activity: SeriesActivity): RecordBatch[] {
  const length = segments.starts.length;
  if (length === 0) return [];
  const local = new Float64Array(length);
  for (let i = 0; i < length; i++) local[i] = segments.starts[i]! + activity.offset * MS_PER_MINUTE;
  const children: Data[] = [
    makeData({ type: new TimestampMillisecond('UTC'), length, nullCount: 0, data: toInt64(segments.starts) }),
    makeData({ type: new TimestampMillisecond(), length, nullCount: 0, data: toInt64(local) }),
  ];
  if (layout.activityColumns) children.push(constantUtf8(activity.id, length), constantUtf8(activity.sport, length));
  for (const name of layout.metrics) {
    if (name === 'duration') {
      children.push(makeData({ type: new Float64(), length, nullCount: 0, data: segments.durations }));
      continue;
    }
    const means = segments.means.get(name);
    children.push(means === undefined ? allNull(metricType(name), length) : float64WithNulls(means));
  }
  return [new RecordBatch(layout.schema, makeData({ type: new Struct(layout.schema.fields), length, nullCount: 0, children }))];
}

/** The int64 values of a timestamp column as their own view (never the stored Data's own array object). */
function int64Values(data: Data): BigInt64Array {
  const values = data.values as unknown;
  if (!(values instanceof BigInt64Array)) throw new Error('series table: timestamp values are not 64-bit');
  return new BigInt64Array(values.buffer, values.byteOffset + data.offset * 8, data.length);
}

function words(values: BigInt64Array): Int32Array {
  return new Int32Array(values.buffer, values.byteOffset, values.length * 2);
}

function firstMillis(instants: BigInt64Array): number {
  return LITTLE_ENDIAN ? millisAt(words(instants), 0) : Number(instants[0]!);
}

function localInstants(instants: BigInt64Array, offsetMs: number): BigInt64Array {
  const out = new BigInt64Array(instants.length);
  if (LITTLE_ENDIAN) {
    shiftMillis(words(instants), offsetMs, words(out));
  } else {
    const shift = BigInt(offsetMs);
    for (let i = 0; i < instants.length; i++) out[i] = instants[i]! + shift;
  }
  return out;
}

function durations(instants: BigInt64Array, firstMs: number): Float64Array {
  const out = new Float64Array(instants.length);
  if (LITTLE_ENDIAN) {
    secondsSince(words(instants), firstMs, out);
  } else {
    for (let i = 0; i < instants.length; i++) out[i] = (Number(instants[i]!) - firstMs) / 1000;
  }
  return out;
}

/** A Utf8 column repeating one string (the Parquet writer dictionary-encodes it to almost nothing). */
function constantUtf8(text: string, length: number): Data<Utf8> {
  const bytes = ENCODER.encode(text);
  const width = bytes.length;
  const valueOffsets = new Int32Array(length + 1);
  const data = new Uint8Array(width * length);
  for (let i = 0; i < length; i++) {
    data.set(bytes, i * width);
    valueOffsets[i + 1] = (i + 1) * width;
  }
  return makeData({ type: new Utf8(), length, nullCount: 0, valueOffsets, data });
}

/** A column of `length` nulls: every validity bit clear, zeroed values (empty strings for utf8). */
function allNull(type: Float64 | Int32 | Utf8, length: number): Data {
  const nullBitmap = new Uint8Array((length + 7) >> 3);
  if (DataType.isUtf8(type)) {
    return makeData({ type, length, nullCount: length, nullBitmap, valueOffsets: new Int32Array(length + 1), data: new Uint8Array(0) });
  }
  if (DataType.isInt(type)) return makeData({ type, length, nullCount: length, nullBitmap, data: new Int32Array(length) });
  return makeData({ type, length, nullCount: length, nullBitmap, data: new Float64Array(length) });
}

/** A stored metric column as Float64: reused when it already is one, converted when it is another number type. */
function asFloat64(data: Data, activityId: string, name: string): Data<Float64> {
  if (DataType.isFloat(data.type) && data.type.ArrayType === Float64Array) return data as Data<Float64>;
  if (!DataType.isInt(data.type) && !DataType.isFloat(data.type)) {
    throw new Error(`series table: activity ${activityId} column ${name} is ${String(data.type)}, not a number`);
  }
  // Cold path: the stored format is Float64; other widths are converted row by row.
  const vector = makeVector(data);
  const length = data.length;
  const values = new Float64Array(length);
  const bitmap = new Uint8Array((length + 7) >> 3);
  let nullCount = 0;
  for (let i = 0; i < length; i++) {
    const cell: unknown = vector.get(i);
    const value = cell === null ? Number.NaN : Number(cell);
    if (value === value) bitmap[i >> 3]! |= 1 << (i & 7);
    else nullCount++;
    values[i] = value;
  }
  return makeData({ type: new Float64(), length, nullCount, nullBitmap: nullCount > 0 ? bitmap : null, data: values });
}
