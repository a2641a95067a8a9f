import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { decodeCsv, type CsvDecodeOptions } from '../../engine/ingest/csv.js';
import { DecodeError } from '../../engine/ingest/decode-error.js';
import { csvBytes, decodeFailure } from './support.js';

const T0 = Date.UTC(2024, 4, 1, 5, 0, 0); // 2024-05-01T05:00:00Z

function decode(lines: string[], options?: CsvDecodeOptions) {
  return decodeCsv(csvBytes(lines), options);
}

function column(decoded: Awaited<ReturnType<typeof decodeCsv>>, name: string): number[] {
  const found = decoded.series.metrics.find((metric) => metric.name === name);
  assert.ok(found, `column ${name} present`);
  return Array.from(found.values);
}

test('decodes Z and +02:00 timestamps into UTC milliseconds with the first row\'s offset', async () => {
  const decoded = await decode([
    'timestamp,sport,power,heart_rate',
    '2024-05-01T07:00:00+02:00,cycling.road,200,120',
    '2024-05-01T05:00:01Z,cycling.road,,121',
    '2024-05-01T07:00:02.500+02:00,cycling.road,210.5,',
  ]);
  assert.equal(Array.from(decoded.series.timestamps), [T0, T0 + 1000, T0 + 2500]);
  assert.is(decoded.offset, 120);
  assert.is(decoded.start, T0);
  assert.is(decoded.end, T0 + 2500);
  assert.is(decoded.sport, 'cycling.road');
  assert.equal(decoded.series.metrics.map((metric) => metric.name), ['power', 'heart_rate']);
  assert.equal(column(decoded, 'power'), [200, Number.NaN, 210.5]);
  assert.equal(column(decoded, 'heart_rate'), [120, 121, Number.NaN]);
  assert.equal(decoded.warnings, []);
});

test('reads negative offsets as minutes west of UTC', async () => {
  const decoded = await decode(['timestamp,sport', '2024-05-01T00:00:00-05:30,running']);
  assert.is(decoded.offset, -330);
  assert.is(decoded.start, T0 + 30 * 60_000);
});

test('orders metric columns canonically whatever the header order', async () => {
  const decoded = await decode(['cadence,sport,speed,timestamp,power', '90,cycling,8.5,2024-05-01T05:00:00Z,250']);
  assert.equal(decoded.series.metrics.map((metric) => metric.name), ['power', 'speed', 'cadence']);
});

test('matches header names case-insensitively and ignores surrounding spaces', async () => {
  const decoded = await decode([' Timestamp , SPORT ,Power', '2024-05-01T05:00:00Z, cycling ,100']);
  assert.is(decoded.sport, 'cycling');
  assert.equal(column(decoded, 'power'), [100]);
});

test('fails a naive timestamp with csv_naive_timestamp naming the line', async () => {
  const error = await decodeFailure(decode(['timestamp,sport', '2024-05-01T07:00:00Z,cycling', '2024-05-01T07:00:01,cycling']));
  assert.is(error.code, 'csv_naive_timestamp');
  assert.is(error.message, "csv decode: line 3 column timestamp: '2024-05-01T07:00:01' has no UTC offset");
});

test('fails a timestamp that is not a date-time with csv_bad_timestamp', async () => {
  const error = await decodeFailure(decode(['timestamp,sport', '1714539600,cycling']));
  assert.is(error.code, 'csv_bad_timestamp');
  assert.is(error.message, "csv decode: line 2 column timestamp: '1714539600' is not an ISO 8601 date-time");
  const empty = await decodeFailure(decode(['timestamp,sport,power', ',cycling,100']));
  assert.is(empty.code, 'csv_bad_timestamp');
  const impossible = await decodeFailure(decode(['timestamp,sport', '2023-02-29T00:00:00Z,cycling']));
  assert.is(impossible.code, 'csv_bad_timestamp');
});

test('fails a file without a sport column with csv_missing_column', async () => {
  const error = await decodeFailure(decode(['timestamp,power', '2024-05-01T05:00:00Z,100']));
  assert.is(error.code, 'csv_missing_column');
  assert.is(error.message, "csv decode: required column 'sport' missing from the header");
  const both = await decodeFailure(decode(['power', '100']));
  assert.is(both.message, "csv decode: required columns 'timestamp' and 'sport' missing from the header");
});

test('fails a header naming a column twice with csv_duplicate_column', async () => {
  const error = await decodeFailure(decode(['timestamp,sport,power,Power', '2024-05-01T05:00:00Z,cycling,1,2']));
  assert.is(error.code, 'csv_duplicate_column');
  assert.is(error.message, "csv decode: line 1: column 'power' appears twice (columns 3 and 4)");
});

test('reports unknown and non-series columns in warnings and ignores them', async () => {
  const decoded = await decode(['timestamp,sport,watts,lap,power,notes,', '2024-05-01T05:00:00Z,cycling,1,1,100,hi,x']);
  assert.equal(decoded.series.metrics.map((metric) => metric.name), ['power']);
  assert.equal(decoded.warnings, [
    'csv decode: column lap is not a numeric series; ignored',
    'csv decode: column notes is not a numeric series; ignored',
    "csv decode: unknown columns ignored: 'watts', (column 7 has no name)",
  ]);
});

test('reads a non-numeric cell as no value and names its line and column', async () => {
  const decoded = await decode([
    'timestamp,sport,power,speed',
    '2024-05-01T05:00:00Z,cycling,100,1e1',
    '2024-05-01T05:00:01Z,cycling,abc,0x10',
    '2024-05-01T05:00:02Z,cycling,-5.5,Infinity',
  ]);
  assert.equal(column(decoded, 'power'), [100, Number.NaN, -5.5]);
  assert.equal(column(decoded, 'speed'), [10, Number.NaN, Number.NaN]);
  assert.equal(decoded.warnings, [
    "csv decode: line 3 column power: 'abc' is not a number; read as no value",
    "csv decode: line 3 column speed: '0x10' is not a number; read as no value",
    "csv decode: line 4 column speed: 'Infinity' is not a number; read as no value",
  ]);
});

test('lists ten warnings of a kind and counts the rest', async () => {
  const rows = Array.from({ length: 15 }, (_, i) => `2024-05-01T05:00:${String(i).padStart(2, '0')}Z,cycling,1,x`);
  const decoded = await decode(['timestamp,sport,power,cadence', ...rows]);
  assert.is(decoded.warnings.length, 12);
  assert.is(decoded.warnings[10], 'csv decode: 5 more non-numeric cells (read as no value) not listed');
  assert.is(decoded.warnings[11], 'csv decode: column cadence has no values; omitted');
  assert.equal(decoded.series.metrics.map((metric) => metric.name), ['power']);
});

test('drops a row earlier than the previous one and a repeated timestamp, keeping the first', async () => {
  const decoded = await decode([
    'timestamp,sport,power',
    '2024-05-01T05:00:00Z,cycling,1',
    '2024-05-01T05:00:02Z,cycling,2',
    '2024-05-01T05:00:01Z,cycling,3',
    '2024-05-01T07:00:02+02:00,cycling,4',
    '2024-05-01T05:00:03Z,cycling,5',
  ]);
  assert.equal(Array.from(decoded.series.timestamps), [T0, T0 + 2000, T0 + 3000]);
  assert.equal(column(decoded, 'power'), [1, 2, 5]);
  assert.equal(decoded.warnings, [
    "csv decode: line 4: timestamp '2024-05-01T05:00:01Z' is earlier than the previous row's '2024-05-01T05:00:02Z'; row dropped",
    "csv decode: line 5: timestamp '2024-05-01T07:00:02+02:00' repeats the previous row's; row dropped, the first kept",
  ]);
});

test('strips a byte-order mark and reads CRLF line ends', async () => {
  const bytes = new TextEncoder().encode('\uFEFFtimestamp,sport,power\r\n2024-05-01T05:00:00Z,running,1\r\n\r\n2024-05-01T05:00:01Z,running,2\r\n');
  const decoded = await decodeCsv(bytes);
  assert.is(decoded.sport, 'running');
  assert.equal(column(decoded, 'power'), [1, 2]);
  assert.equal(decoded.warnings, []);
});

test('skips blank lines and rows of empty cells but keeps line numbers true', async () => {
  const error = await decodeFailure(decode(['timestamp,sport', '', ',', '2024-05-01T05:00:00,cycling']));
  assert.is(error.message, "csv decode: line 4 column timestamp: '2024-05-01T05:00:00' has no UTC offset");
});

test('fails an empty file with csv_empty and a header-only file with csv_no_rows', async () => {
  assert.is((await decodeFailure(decodeCsv(new Uint8Array(0)))).code, 'csv_empty');
  assert.is((await decodeFailure(decodeCsv(new TextEncoder().encode('\uFEFF\n\n')))).code, 'csv_empty');
  const headerOnly = await decodeFailure(decode(['timestamp,sport,power']));
  assert.is(headerOnly.code, 'csv_no_rows');
  assert.is(headerOnly.message, 'csv decode: the file has a header but no rows');
});

test('takes the first non-empty sport and accepts empty sport cells after it', async () => {
  const decoded = await decode(['timestamp,sport', '2024-05-01T05:00:00Z,', '2024-05-01T05:00:01Z,cycling+stationary', '2024-05-01T05:00:02Z,']);
  assert.is(decoded.sport, 'cycling+stationary');
  const none = await decodeFailure(decode(['timestamp,sport', '2024-05-01T05:00:00Z,']));
  assert.is(none.code, 'csv_bad_sport');
  assert.is(none.message, 'csv decode: column sport has no value on any row');
});

test('fails a malformed sport with csv_bad_sport and a second sport with csv_mixed_sport', async () => {
  const bad = await decodeFailure(decode(['timestamp,sport', '2024-05-01T05:00:00Z,Cycling Road']));
  assert.is(bad.code, 'csv_bad_sport');
  assert.is(bad.message, "csv decode: line 2 column sport: 'Cycling Road' is not an Open Sport Taxonomy string");
  const mixed = await decodeFailure(decode(['timestamp,sport', '2024-05-01T05:00:00Z,cycling', '2024-05-01T05:00:01Z,running']));
  assert.is(mixed.code, 'csv_mixed_sport');
  assert.is(mixed.message, "csv decode: line 3 column sport: 'running' differs from 'cycling' on line 2; a CSV file holds one activity");
});

test('applies the canonicalSport hook and treats legacy spellings of one sport as the same', async () => {
  const canonicalSport = (sport: string) => (sport === 'cycling.trainer' ? 'cycling+stationary' : sport === 'cycling.unicycle' ? null : sport);
  const decoded = await decode(
    ['timestamp,sport', '2024-05-01T05:00:00Z,cycling.trainer', '2024-05-01T05:00:01Z,cycling+stationary'],
    { canonicalSport },
  );
  assert.is(decoded.sport, 'cycling+stationary');
  const unknown = await decodeFailure(decode(['timestamp,sport', '2024-05-01T05:00:00Z,cycling.unicycle'], { canonicalSport }));
  assert.is(unknown.code, 'csv_bad_sport');
  assert.is(unknown.message, "csv decode: line 2 column sport: 'cycling.unicycle' is not a known Open Sport Taxonomy sport");
});

test('fails a row with more fields than the header with csv_malformed naming the line', async () => {
  const error = await decodeFailure(decode(['timestamp,sport', '2024-05-01T05:00:00Z,cycling', '2024-05-01T05:00:01Z,cycling,1']));
  assert.is(error.code, 'csv_malformed');
  assert.is(error.message, 'csv decode: line 3: 3 fields where the header has 2');
});

test('fails an unclosed quote and an overlong line with csv_malformed', async () => {
  const quote = await decodeFailure(decode(['timestamp,sport', '2024-05-01T05:00:00Z,"cycling']));
  assert.is(quote.code, 'csv_malformed');
  assert.match(quote.message, /^csv decode: line \d+: a quoted field is never closed$/);
  const long = await decodeFailure(decode(['timestamp,sport,notes', `2024-05-01T05:00:00Z,cycling,${'x'.repeat(100)}`], { maxLineChars: 64 }));
  assert.is(long.code, 'csv_malformed');
  assert.is(long.message, 'csv decode: line 2: a line is longer than 64 characters');
});

test('fails a file with more rows than the limit with csv_too_many_rows', async () => {
  const rows = Array.from({ length: 4 }, (_, i) => `2024-05-01T05:00:0${i}Z,cycling`);
  const error = await decodeFailure(decode(['timestamp,sport', ...rows], { maxRows: 3 }));
  assert.is(error.code, 'csv_too_many_rows');
  assert.is(error.message, 'csv decode: more than 3 rows');
  assert.is((await decode(['timestamp,sport', ...rows.slice(0, 3)], { maxRows: 3 })).series.timestamps.length, 3);
});

test('decodes identically when fed one byte at a time, multi-byte characters included', async () => {
  const lines = ['timestamp,sport,größe,power', '2024-05-01T05:00:00+01:00,cycling,ä,1', '2024-05-01T05:00:01+01:00,cycling,é,2'];
  const whole = await decode(lines);
  const bytewise = await decode(lines, { chunkBytes: 1 });
  assert.equal(bytewise, whole);
  assert.equal(whole.warnings, ["csv decode: unknown columns ignored: 'größe'"]);
});

test('grows its columns past the initial estimate', async () => {
  const rows = Array.from({ length: 5000 }, (_, i) => `${new Date(T0 + i * 1000).toISOString()},rowing,${i}`);
  const decoded = await decode(['timestamp,sport,power', ...rows]);
  assert.is(decoded.series.timestamps.length, 5000);
  assert.is(decoded.series.timestamps[4999], T0 + 4_999_000);
  assert.is(column(decoded, 'power')[4999], 4999);
  assert.instance(decoded.series.timestamps, Float64Array);
  assert.is(decoded.series.timestamps.buffer.byteLength, 5000 * 8);
});

test('fails at its first bad row with that row\'s error when the file spans many chunks (not an AbortError)', async () => {
  // The parser is still reading ahead when the row is refused; the refusal must win over the pipeline's teardown.
  const rows = Array.from({ length: 5000 }, (_, i) => `2024-05-01T05:00:${String(i % 60).padStart(2, '0')}Z,cycling,${i}`);
  const missing = await decodeFailure(decodeCsv(csvBytes(['timestamp,distance,heart_rate', ...rows]), { chunkBytes: 256 }));
  assert.is(missing.code, 'csv_missing_column');
  const naive = await decodeFailure(decodeCsv(csvBytes(['timestamp,sport,power', '2024-05-01T05:00:00,cycling,1', ...rows]), { chunkBytes: 256 }));
  assert.is(naive.code, 'csv_naive_timestamp');
});

test('throws DecodeError instances', async () => {
  try {
    await decode(['nothing']);
    assert.unreachable('should fail');
  } catch (error) {
    assert.instance(error, DecodeError);
  }
});

test.run();
