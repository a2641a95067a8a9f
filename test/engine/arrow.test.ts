import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { DataType, TimeUnit, tableFromIPC, type Timestamp } from 'apache-arrow';
import { decodeSeriesIpc, encodeSeriesIpc } from '../../engine/ingest/arrow.js';
import { decodeCsv } from '../../engine/ingest/csv.js';
import { csvBytes } from './support.js';

const T0 = Date.UTC(2024, 4, 1, 5, 0, 0);

test('writes timestamp as non-nullable timestamp[ms, UTC] and metrics as nullable Float64', () => {
  const table = tableFromIPC(encodeSeriesIpc({
    timestamps: Float64Array.of(T0, T0 + 1000),
    metrics: [{ name: 'power', values: Float64Array.of(100, 200) }],
  }));
  const [timestamp, power] = table.schema.fields;
  assert.is(timestamp!.name, 'timestamp');
  assert.ok(DataType.isTimestamp(timestamp!.type));
  assert.is((timestamp!.type as Timestamp).unit, TimeUnit.MILLISECOND);
  assert.is((timestamp!.type as Timestamp).timezone, 'UTC');
  assert.is(timestamp!.nullable, false);
  assert.is(power!.name, 'power');
  assert.ok(DataType.isFloat(power!.type));
  assert.is(power!.nullable, true);
});

test('round-trips timestamps exactly, including before 1970 and beyond 2^32 ms', () => {
  const timestamps = Float64Array.of(-86_400_000 * 365 * 80 - 1, -1, 0, 1, 2 ** 32, 2 ** 32 + 1, T0, 253_402_300_799_999);
  const table = tableFromIPC(encodeSeriesIpc({ timestamps, metrics: [] }));
  assert.is(table.numRows, timestamps.length);
  assert.equal(Array.from(table.getChild('timestamp')!.toArray() as BigInt64Array, Number), Array.from(timestamps));
  assert.is(table.getChild('timestamp')!.get(6), T0);
});

test('turns NaN into null and keeps every other value', () => {
  const values = Float64Array.of(1.5, Number.NaN, -3, Number.NaN, 0, 7, 8, 9, Number.NaN);
  const timestamps = Float64Array.from(values, (_, i) => T0 + i * 1000);
  const table = tableFromIPC(encodeSeriesIpc({ timestamps, metrics: [{ name: 'heart_rate', values }] }));
  const column = table.getChild('heart_rate')!;
  assert.is(column.nullCount, 3);
  assert.equal(Array.from({ length: values.length }, (_, i) => column.get(i)), [1.5, null, -3, null, 0, 7, 8, 9, null]);
});

test('writes a column without nulls without a validity bitmap', () => {
  const table = tableFromIPC(encodeSeriesIpc({ timestamps: Float64Array.of(T0), metrics: [{ name: 'speed', values: Float64Array.of(4.2) }] }));
  assert.is(table.getChild('speed')!.nullCount, 0);
  assert.is(table.getChild('speed')!.get(0), 4.2);
});

test('encodes a decoded CSV into a table with the same rows', async () => {
  const decoded = await decodeCsv(csvBytes([
    'timestamp,sport,power,altitude',
    '2024-05-01T07:00:00+02:00,cycling,200,',
    '2024-05-01T07:00:01+02:00,cycling,,12.5',
  ]));
  const table = tableFromIPC(encodeSeriesIpc(decoded.series));
  assert.equal(table.schema.fields.map((field) => field.name), ['timestamp', 'power', 'altitude']);
  assert.equal(table.toArray().map((row) => row.toJSON()), [
    { timestamp: T0, power: 200, altitude: null },
    { timestamp: T0 + 1000, power: null, altitude: 12.5 },
  ]);
});

test('rejects a metric column whose length differs from the timestamps', () => {
  assert.throws(
    () => encodeSeriesIpc({ timestamps: Float64Array.of(T0), metrics: [{ name: 'power', values: Float64Array.of(1, 2) }] }),
    /arrow encode: column power has 2 rows, timestamp has 1/,
  );
});

test('decodes stored bytes back into the same timestamps and metric columns, null as NaN', () => {
  const timestamps = Float64Array.of(-1, 0, 2 ** 32 + 1, T0, 253_402_300_799_999);
  const power = Float64Array.of(1.5, Number.NaN, 0, 300, Number.NaN);
  const speed = Float64Array.of(Number.NaN, 2, 3, 4, 5);
  const decoded = decodeSeriesIpc(encodeSeriesIpc({ timestamps, metrics: [{ name: 'speed', values: speed }, { name: 'power', values: power }] }));
  assert.equal(Array.from(decoded.timestamps), Array.from(timestamps));
  // SERIES_METRICS order: power before speed.
  assert.equal(decoded.metrics.map((column) => column.name), ['power', 'speed']);
  assert.equal(Array.from(decoded.metrics[0]!.values), Array.from(power));
  assert.equal(Array.from(decoded.metrics[1]!.values), Array.from(speed));
});

test.run();
