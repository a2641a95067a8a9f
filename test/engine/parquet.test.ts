/**
 * Series tables in the worker pool, read back with hyparquet (a reader independent of the writer):
 * exact values, nulls, Parquet logical types, the streamed multi-activity file, Arrow IPC, the footer
 * reader and the time kernels against BigInt twins.
 */
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { MessageChannel } from 'node:worker_threads';
import { tableFromIPC } from 'apache-arrow';
import { parquetMetadata, parquetReadObjects, type FileMetaData, type SchemaElement } from 'hyparquet';
import { encodeSeriesIpc } from '../../engine/ingest/arrow.js';
import type { RecordedSeries } from '../../engine/ingest/series.js';
import { parquetRowCount } from '../../engine/parquet/footer.js';
import { PortInbox } from '../../engine/parquet/stream-protocol.js';
import { ROW_GROUP_ROWS, type TableFileFormat } from '../../engine/parquet/table-file.js';
import { millisAt, secondsSince, shiftMillis } from '../../engine/parquet/time-columns.js';
import { createPool } from '../../engine/pool/pool.js';
import { syntheticSeries } from '../support/activities.js';

const pool = createPool({ threads: 1 });

const T0 = Date.UTC(2024, 4, 1, 5, 0, 0); // 2024-05-01T05:00:00Z
const HOUR = 3_600_000;

type Row = Record<string, unknown>;

/** The file's metadata and rows; timestamps as epoch milliseconds (hyparquet's default makes Dates). */
async function readParquet(bytes: Uint8Array): Promise<{ metadata: FileMetaData; rows: Row[] }> {
  const file = standalone(bytes);
  const metadata = parquetMetadata(file);
  const rows = await parquetReadObjects({ file, metadata, parsers: { timestampFromMilliseconds: (ms: bigint) => Number(ms) } });
  return { metadata, rows };
}

function element(metadata: FileMetaData, name: string): SchemaElement {
  const found = metadata.schema.find((entry) => entry.name === name);
  assert.ok(found, `no column ${name}`);
  return found!;
}

function columnNames(metadata: FileMetaData): string[] {
  return metadata.schema.slice(1).map((entry) => entry.name);
}

/** A copy in an ArrayBuffer of its own (a Buffer's `slice` is a view into a shared pool). */
function standalone(bytes: Uint8Array): ArrayBuffer {
  return new Uint8Array(bytes).buffer as ArrayBuffer;
}

/** A 5-row ride at 1 Hz with holes: power NaN in row 2, heart_rate NaN in rows 0 and 4. */
function ride(): RecordedSeries {
  const nan = Number.NaN;
  return syntheticSeries(T0, {
    rows: 5,
    metrics: {
      power: (i) => (i === 2 ? nan : 200 + i * 10.5),
      speed: (i) => 8 + i / 4,
      heart_rate: (i) => (i === 0 || i === 4 ? nan : 120 + i),
      cadence: (i) => 90 - i,
    },
  });
}

async function encode(series: RecordedSeries, metrics: string[], offset: number, format: TableFileFormat = 'parquet') {
  const buffer = standalone(encodeSeriesIpc(series));
  const result = await pool.run('encodeSeriesTable', { series: buffer, metrics, offset, activityId: 'a1', sport: 'cycling', format, segmentation: null }, { transferList: [buffer] });
  assert.is(buffer.byteLength, 0, 'the series was transferred to the worker, not copied');
  return result;
}

test('writes one activity as Parquet: UTC and naive local timestamps, requested metrics in order, nulls for missing values', async () => {
  const result = await encode(ride(), ['heart_rate', 'duration', 'power'], 120);
  assert.instance(result.data, ArrayBuffer);
  assert.equal(result.metrics, ['heart_rate', 'duration', 'power']);
  assert.is(result.rows, 5);
  const { metadata, rows } = await readParquet(new Uint8Array(result.data));
  assert.equal(columnNames(metadata), ['timestamp', 'timestamp_local', 'heart_rate', 'duration', 'power']);
  assert.equal(rows, [0, 1, 2, 3, 4].map((i) => ({
    timestamp: T0 + i * 1000,
    timestamp_local: T0 + 2 * HOUR + i * 1000,
    heart_rate: i === 0 || i === 4 ? null : 120 + i,
    duration: i,
    power: i === 2 ? null : 200 + i * 10.5,
  })));
});

test('types the timestamps as INT64 TIMESTAMP(MILLIS), adjusted to UTC only for the UTC column, and compresses with snappy', async () => {
  const { metadata } = await readParquet(new Uint8Array((await encode(ride(), ['duration', 'power'], -300)).data));
  const utc = element(metadata, 'timestamp');
  assert.is(utc.type, 'INT64');
  assert.equal(utc.logical_type, { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' });
  assert.is(utc.repetition_type, 'REQUIRED');
  const local = element(metadata, 'timestamp_local');
  assert.is(local.type, 'INT64');
  assert.equal(local.logical_type, { type: 'TIMESTAMP', isAdjustedToUTC: false, unit: 'MILLIS' });
  assert.is(element(metadata, 'duration').type, 'DOUBLE');
  assert.is(element(metadata, 'power').type, 'DOUBLE');
  assert.is(element(metadata, 'power').repetition_type, 'OPTIONAL');
  for (const group of metadata.row_groups) for (const column of group.columns) assert.is(column.meta_data?.codec, 'SNAPPY');
  // The Arrow schema rides along, so pyarrow and polars restore timestamp[ms, tz=UTC] exactly.
  assert.ok(metadata.key_value_metadata?.some((entry) => entry.key === 'ARROW:schema'));
});

test('writes a column for every requested metric, null where the series lacks it, typed as the metric; repeats once', async () => {
  const result = await encode(ride(), ['power', 'altitude', 'power', 'lap', 'notes', 'speed', 'lactate', 'rpe'], 0);
  assert.equal(result.metrics, ['power', 'altitude', 'lap', 'notes', 'speed', 'lactate', 'rpe']);
  const { metadata, rows } = await readParquet(new Uint8Array(result.data));
  assert.equal(columnNames(metadata), ['timestamp', 'timestamp_local', 'power', 'altitude', 'lap', 'notes', 'speed', 'lactate', 'rpe']);
  assert.equal(['power', 'altitude', 'lap', 'notes', 'speed', 'lactate', 'rpe'].map((name) => element(metadata, name).type), ['DOUBLE', 'DOUBLE', 'INT32', 'BYTE_ARRAY', 'DOUBLE', 'DOUBLE', 'INT32']);
  assert.equal(element(metadata, 'notes').logical_type, { type: 'STRING' });
  assert.equal(rows.map((row) => [row.altitude, row.lap, row.notes, row.lactate, row.rpe]), Array(5).fill([null, null, null, null, null]));
  assert.equal(rows.map((row) => row.speed), [8, 8.25, 8.5, 8.75, 9]);
});

test('counts duration in seconds from the first sample, sub-second samples included', async () => {
  const series = syntheticSeries(T0 + 250, { rows: 4, intervalMs: 250, metrics: { power: () => 1 } });
  const { rows } = await readParquet(new Uint8Array((await encode(series, ['duration'], 0)).data));
  assert.equal(rows.map((row) => row.duration), [0, 0.25, 0.5, 0.75]);
  assert.equal(rows.map((row) => row.timestamp), [T0 + 250, T0 + 500, T0 + 750, T0 + 1000]);
});

test('shifts local time by negative and fractional-hour offsets across midnight', async () => {
  const series = syntheticSeries(Date.UTC(2024, 0, 1, 2, 0, 0), { rows: 2, intervalMs: 60_000, metrics: { power: () => 1 } });
  const { rows } = await readParquet(new Uint8Array((await encode(series, ['duration'], -330)).data));
  assert.equal(rows.map((row) => new Date(row.timestamp_local as number).toISOString()), ['2023-12-31T20:30:00.000Z', '2023-12-31T20:31:00.000Z']);
});

test('writes an empty series as a valid Parquet file with zero rows', async () => {
  const empty: RecordedSeries = { timestamps: new Float64Array(0), metrics: [{ name: 'power', values: new Float64Array(0) }] };
  const { metadata, rows } = await readParquet(new Uint8Array((await encode(empty, ['duration', 'power'], 0)).data));
  assert.is(metadata.num_rows, 0n);
  assert.equal(rows, []);
  assert.equal(columnNames(metadata), ['timestamp', 'timestamp_local', 'duration', 'power']);
});

test('answers Arrow IPC when asked, with the same columns and types', async () => {
  const table = tableFromIPC(new Uint8Array((await encode(ride(), ['duration', 'heart_rate'], 60, 'arrow_ipc')).data));
  assert.equal(table.schema.fields.map((field) => `${field.name}: ${String(field.type)}`), [
    'timestamp: Timestamp<MILLISECOND, UTC>',
    'timestamp_local: Timestamp<MILLISECOND>',
    'duration: Float64',
    'heart_rate: Float64',
  ]);
  assert.equal(table.getChild('heart_rate')!.toArray().length, 5);
  assert.is(table.getChild('heart_rate')!.get(0), null);
  assert.is(Number(table.getChild('timestamp_local')!.get(1)), T0 + HOUR + 1000);
});

// ---------------------------------------------------------------------------------------------------------
// The streamed file: the task driven the way engine/service/longitudinal-series.ts drives it

interface FedActivity {
  series: RecordedSeries;
  id: string;
  sport: string;
  offset: number;
}

async function streamTable(activities: FedActivity[], metrics: string[], format: TableFileFormat = 'parquet') {
  const channel = new MessageChannel();
  const inbox = new PortInbox(channel.port1, new AbortController().signal);
  const task = pool.run('streamSeriesTable', { port: channel.port2, metrics, format, segmentation: null }, { transferList: [channel.port2] });
  task.catch((error: unknown) => inbox.fail(error));
  const chunks: Buffer[] = [];
  let fed = 0;
  try {
    for (;;) {
      const message = await inbox.next();
      if (message.type === 'next') {
        const activity = activities[fed++];
        inbox.send(activity ? { type: 'activity', series: standalone(encodeSeriesIpc(activity.series)), id: activity.id, sport: activity.sport, offset: activity.offset } : { type: 'end' });
      } else if (message.type === 'chunk') {
        chunks.push(Buffer.from(message.data));
      } else {
        const result = await task;
        assert.equal(result, { rows: message.rows, bytes: message.bytes });
        break;
      }
    }
  } finally {
    inbox.close();
  }
  const bytes = Buffer.concat(chunks);
  return { bytes, chunks: chunks.length, result: await task };
}

test('streams activities into one file with activity_id and sport, nulls where an activity lacks a metric', async () => {
  const first = syntheticSeries(T0, { rows: 3, metrics: { power: (i) => 100 + i } });
  const second = syntheticSeries(T0 + 24 * HOUR, { rows: 2, metrics: { heart_rate: (i) => 140 + i } });
  const { bytes, result } = await streamTable([
    { series: first, id: 'ride1', sport: 'cycling.road', offset: 60 },
    { series: second, id: 'run1', sport: 'running', offset: -240 },
  ], ['duration', 'power', 'heart_rate']);
  assert.equal(result, { rows: 5, bytes: bytes.length });
  const { metadata, rows } = await readParquet(bytes);
  assert.equal(columnNames(metadata), ['timestamp', 'timestamp_local', 'activity_id', 'sport', 'duration', 'power', 'heart_rate']);
  assert.equal(rows, [
    { timestamp: T0, timestamp_local: T0 + HOUR, activity_id: 'ride1', sport: 'cycling.road', duration: 0, power: 100, heart_rate: null },
    { timestamp: T0 + 1000, timestamp_local: T0 + HOUR + 1000, activity_id: 'ride1', sport: 'cycling.road', duration: 1, power: 101, heart_rate: null },
    { timestamp: T0 + 2000, timestamp_local: T0 + HOUR + 2000, activity_id: 'ride1', sport: 'cycling.road', duration: 2, power: 102, heart_rate: null },
    { timestamp: T0 + 24 * HOUR, timestamp_local: T0 + 20 * HOUR, activity_id: 'run1', sport: 'running', duration: 0, power: null, heart_rate: 140 },
    { timestamp: T0 + 24 * HOUR + 1000, timestamp_local: T0 + 20 * HOUR + 1000, activity_id: 'run1', sport: 'running', duration: 1, power: null, heart_rate: 141 },
  ]);
  assert.equal(element(metadata, 'activity_id').logical_type, { type: 'STRING' });
});

test('emits row groups as they fill, so a long stream arrives in several chunks and every row survives', async () => {
  const rowsPerActivity = 50_000;
  const activities = [0, 1, 2].map((k) => ({
    series: syntheticSeries(T0 + k * 24 * HOUR, { rows: rowsPerActivity, metrics: { power: (i) => k * 1000 + (i % 1000) } }),
    id: `a${k}`,
    sport: 'cycling',
    offset: 0,
  }));
  const { bytes, chunks, result } = await streamTable(activities, ['duration', 'power']);
  assert.is(result.rows, 3 * rowsPerActivity);
  assert.ok(chunks >= 2, `expected a chunk per row group, got ${chunks}`);
  const { metadata, rows } = await readParquet(bytes);
  assert.is(metadata.row_groups.length, Math.ceil((3 * rowsPerActivity) / ROW_GROUP_ROWS));
  assert.is(rows.length, 3 * rowsPerActivity);
  assert.equal(rows[rowsPerActivity + 7], { timestamp: T0 + 24 * HOUR + 7000, timestamp_local: T0 + 24 * HOUR + 7000, activity_id: 'a1', sport: 'cycling', duration: 7, power: 1007 });
  assert.is(parquetRowCount(bytes), 3 * rowsPerActivity);
});

test('streams a valid file with zero rows when no activity is fed', async () => {
  const { bytes, result } = await streamTable([], ['duration', 'speed']);
  assert.is(result.rows, 0);
  const { metadata, rows } = await readParquet(bytes);
  assert.equal(rows, []);
  assert.equal(columnNames(metadata), ['timestamp', 'timestamp_local', 'activity_id', 'sport', 'duration', 'speed']);
});

test('streams Arrow IPC as one schema message, every batch, and the end marker', async () => {
  const activities = [0, 1].map((k) => ({ series: syntheticSeries(T0 + k * HOUR, { rows: 4, metrics: { speed: (i) => i + k } }), id: `s${k}`, sport: 'running', offset: 0 }));
  const { bytes, result } = await streamTable(activities, ['duration', 'speed'], 'arrow_ipc');
  assert.is(result.rows, 8);
  const table = tableFromIPC(bytes);
  assert.is(table.numRows, 8);
  assert.equal(table.getChild('activity_id')!.toArray(), ['s0', 's0', 's0', 's0', 's1', 's1', 's1', 's1']);
  assert.equal(Array.from(table.getChild('speed')!.toArray() as Float64Array), [0, 1, 2, 3, 1, 2, 3, 4]);
});

// ---------------------------------------------------------------------------------------------------------
// Footer reader and kernels

test('reads the row count from the footer as hyparquet does, and rejects bytes that are not Parquet', async () => {
  for (const rows of [0, 1, 4]) {
    const series = syntheticSeries(T0, { rows, metrics: { power: (i) => i } });
    const bytes = new Uint8Array((await encode(series, ['duration', 'power'], 0)).data);
    assert.is(parquetRowCount(bytes), Number(parquetMetadata(standalone(bytes)).num_rows));
  }
  assert.throws(() => parquetRowCount(new TextEncoder().encode('not a parquet file')), /PAR1/);
});

test('shifts int64 milliseconds exactly across 32-bit word boundaries, like BigInt addition', () => {
  const values = [0n, 1n, 4_294_967_295n, 4_294_967_296n, -1n, -4_294_967_296n, BigInt(T0), 9_007_199_254_740_000n];
  for (let i = 0; i < 200; i++) values.push(BigInt(Math.floor((Math.random() - 0.5) * 2 ** 52)));
  const input = new BigInt64Array(values);
  for (const offsetMinutes of [0, 60, -60, 840, -720, 345, -570]) {
    const out = new BigInt64Array(values.length);
    shiftMillis(new Int32Array(input.buffer), offsetMinutes * 60_000, new Int32Array(out.buffer));
    for (let i = 0; i < values.length; i++) assert.is(out[i], values[i]! + BigInt(offsetMinutes * 60_000), `row ${i}, offset ${offsetMinutes}`);
  }
});

test('counts seconds since the first sample like Number arithmetic on BigInt values', () => {
  const values = new BigInt64Array([BigInt(T0), BigInt(T0 + 1), BigInt(T0 + 4_294_967_296), BigInt(T0 - 1500)]);
  const words = new Int32Array(values.buffer);
  const out = new Float64Array(values.length);
  secondsSince(words, millisAt(words, 0), out);
  assert.equal(Array.from(out), [0, 0.001, 4_294_967.296, -1.5]);
});

test.after(() => pool.destroy());

test.run();
