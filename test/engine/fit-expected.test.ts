/**
 * FIT decoding against reference dumps made by other tools (the corpus files that come with
 * expected-value CSVs, ../shared/data/fit/MANIFEST.md "Files with expected values"): python-fitparse's
 * per-record CSVs and muktihari/fit's FitCSVTool dumps. Every sample of every file is compared. All of
 * them are MIT/BSD, read from the copies in test/fixtures/fit/.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import type { DecodedActivity, DecodedFile } from '../../engine/ingest/decoded.js';
import { DecodeError } from '../../engine/ingest/decode-error.js';
import { decodeFit, type FitDecodeOptions } from '../../engine/ingest/fit.js';
import type { SeriesMetric } from '../../engine/ingest/series.js';
import { FIT_FIXTURES } from '../support/fit-corpus.js';

/** FIT timestamps count seconds from 1989-12-31T00:00:00Z. */
const FIT_EPOCH_S = 631_065_600;
const DEGREES_PER_SEMICIRCLE = 180 / 2 ** 31;

async function decode(file: string, options?: FitDecodeOptions): Promise<DecodedFile> {
  return decodeFit(new Uint8Array(readFileSync(path.join(FIT_FIXTURES, file))), options);
}

function readCsv(file: string): string[][] {
  return parse(readFileSync(path.join(FIT_FIXTURES, file)), { relax_column_count: true, trim: true }) as string[][];
}

/** Every decoded sample by its UTC millisecond: the activity's column values at that row. */
function samplesByTime(decoded: DecodedFile): Map<number, (metric: SeriesMetric) => number> {
  const byTime = new Map<number, (metric: SeriesMetric) => number>();
  for (const activity of decoded.activities) {
    const columns = new Map(activity.series.metrics.map(({ name, values }) => [name, values]));
    activity.series.timestamps.forEach((ms, row) => {
      byTime.set(ms, (metric) => columns.get(metric)?.[row] ?? Number.NaN);
    });
  }
  return byTime;
}

function rows(activities: readonly DecodedActivity[]): number {
  return activities.reduce((sum, activity) => sum + activity.series.timestamps.length, 0);
}

/** Equal within `tolerance`, NaN equal to NaN; the message names the place. */
function near(actual: number, expected: number, tolerance: number, where: string): void {
  if (Number.isNaN(expected)) {
    assert.ok(Number.isNaN(actual), `${where}: expected no value, got ${actual}`);
    return;
  }
  assert.ok(Math.abs(actual - expected) <= tolerance, `${where}: expected ${expected}, got ${actual}`);
}

const num = (cell: string | undefined) => (cell === undefined || cell === '' || cell === 'null' ? Number.NaN : Number(cell));

test('matches python-fitparse on compressed timestamps and compressed speed/distance (relative time kept on request)', async () => {
  const decoded = await decode('python-fitparse/compressed-speed-distance.fit', { relativeTimestamps: 'keep' });
  const [header, ...csv] = readCsv('python-fitparse/compressed-speed-distance-records.csv');
  assert.equal(header, ['Timestamp', 'Heart Rate [bpm]', 'Speed [m/s]', 'Distance [m]', 'Cadence [rpm]']);
  assert.is(csv.length, 754);
  assert.is(decoded.activities.length, 1);
  // "records 2..755 (record 1 carries only the timestamp)": 755 samples, the CSV leaves out the first.
  assert.is(rows(decoded.activities), 755);
  assert.ok(decoded.warnings.some((warning) => warning.includes('device-relative')), 'the relative time is reported');
  const byTime = samplesByTime(decoded);
  for (const [seconds, heartRate, speed, distance, cadence] of csv) {
    // The CSV keeps the raw FIT seconds: here device-relative, so the dates read as 1990.
    const sample = byTime.get((Number(seconds) + FIT_EPOCH_S) * 1000);
    assert.ok(sample, `a sample at FIT time ${seconds}`);
    near(sample('heart_rate'), num(heartRate), 0, `${seconds} heart_rate`);
    near(sample('speed'), num(speed), 1e-9, `${seconds} speed`);
    near(sample('distance'), num(distance), 1e-9, `${seconds} distance`);
    near(sample('cadence'), num(cadence), 0, `${seconds} cadence`);
  }
});

test('fails the compressed-speed-distance file by default: its timestamps are device-relative', async () => {
  try {
    await decode('python-fitparse/compressed-speed-distance.fit');
    assert.unreachable('the decode should fail');
  } catch (error) {
    assert.instance(error, DecodeError);
    assert.is((error as DecodeError).code, 'fit_relative_time');
  }
});

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "Sun Sep 25 06:00:22 PDT 2011" (the FIT SDK dump tool's Java Date.toString in US Pacific time) → UTC ms. */
function pacificTime(text: string): number {
  const match = /^\w{3} (\w{3}) (\d{1,2}) (\d\d):(\d\d):(\d\d) (PDT|PST) (\d{4})$/.exec(text);
  assert.ok(match, `a Pacific timestamp: ${text}`);
  const [, month, day, hours, minutes, seconds, zone, year] = match;
  const utcHours = Number(hours) + (zone === 'PDT' ? 7 : 8);
  return Date.UTC(Number(year), MONTHS.indexOf(month!), Number(day), utcHours, Number(minutes), Number(seconds));
}

const PACIFIC_DUMPS = [
  { fit: 'garmin-edge-500-activity', rows: 10_686, duplicates: 15 },
  { fit: 'garmin-fenix-5-bike', rows: 19, duplicates: 0 },
  { fit: 'garmin-fenix-5-run', rows: 21, duplicates: 0 },
  { fit: 'garmin-fenix-5-walk', rows: 17, duplicates: 0 },
  { fit: 'garmin-edge-820-bike', rows: 15, duplicates: 0 },
];

for (const dump of PACIFIC_DUMPS) {
  test(`matches the FIT SDK dump of python-fitparse/${dump.fit}.fit sample by sample`, async () => {
    const decoded = await decode(`python-fitparse/${dump.fit}.fit`);
    const [header, ...csv] = readCsv(`python-fitparse/${dump.fit}-records.csv`);
    assert.equal(header, ['timestamp', 'heart_rate', 'cadence', 'speed', 'distance', 'position_lat', 'position_long', 'altitude', 'temperature']);
    assert.is(csv.length, dump.rows);
    // Repeated timestamps are merged into one sample (the first record's values win).
    assert.is(rows(decoded.activities), dump.rows - dump.duplicates);
    const byTime = samplesByTime(decoded);
    let previousTime = Number.NaN;
    let lastLat = Number.NaN;
    let lastLong = Number.NaN;
    for (const [stamp, heartRate, cadence, speed, distance, lat, long, altitude, temperature] of csv) {
      const ms = pacificTime(stamp!);
      const repeat = ms === previousTime;
      previousTime = ms;
      const sample = byTime.get(ms);
      assert.ok(sample, `a sample at ${stamp}`);
      const where = `${dump.fit} ${new Date(ms).toISOString()}`;
      const latitude = Number(lat) * DEGREES_PER_SEMICIRCLE;
      const longitude = Number(long) * DEGREES_PER_SEMICIRCLE;
      if (!repeat) {
        near(sample('heart_rate'), num(heartRate), 0, `${where} heart_rate`);
        near(sample('speed'), num(speed), 1e-9, `${where} speed`);
        near(sample('distance'), num(distance), 1e-9, `${where} distance`);
        near(sample('altitude'), num(altitude), 1e-9, `${where} altitude`);
        near(sample('temperature'), num(temperature), 0, `${where} temperature`);
        // The dump tool writes an invalid cadence as 0; ours is no value there. A valid one may carry
        // fractional_cadence (1/128 rpm) on top of the integer the dump shows.
        const ours = sample('cadence');
        if (Number.isNaN(ours)) assert.is(Number(cadence), 0, `${where} cadence: no value is dumped as 0`);
        else assert.ok(ours - Number(cadence) >= 0 && ours - Number(cadence) < 1, `${where} cadence ${ours} vs ${cadence}`);
        // It writes an invalid position as the last valid one; ours is no value there.
        if (Number.isNaN(sample('latitude'))) {
          assert.ok(latitude === lastLat && longitude === lastLong, `${where}: no position is dumped as the last valid one`);
        } else {
          near(sample('latitude'), latitude, 1e-9, `${where} latitude`);
          near(sample('longitude'), longitude, 1e-9, `${where} longitude`);
        }
      }
      if (!Number.isNaN(sample('latitude'))) {
        lastLat = latitude;
        lastLong = longitude;
      }
    }
  });
}

interface CsvToolRecord {
  timestamp: number;
  fields: Map<string, string>;
}

/**
 * The FIT "invalid" value of each compared field as FitCSVTool prints it (raw sentinel, scaled): unlike
 * the python-fitparse dumps, these dumps write invalid fields instead of leaving them out, e.g.
 * position_lat "2147483647" (0x7FFFFFFF) while the watch has no GPS fix.
 */
const CSV_TOOL_INVALID: Readonly<Record<string, number>> = {
  position_lat: 0x7fffffff,
  position_long: 0x7fffffff,
  heart_rate: 0xff,
  cadence: 0xff,
  fractional_cadence: 0xff / 128,
  power: 0xffff,
  temperature: 0x7f,
  speed: 0xffff / 1000,
  enhanced_speed: 0xffffffff / 1000,
  distance: 0xffffffff / 100,
  altitude: 0xffff / 5 - 500,
  enhanced_altitude: 0xffffffff / 5 - 500,
};

/** `Data,…,record,<name>,"<value>",<units>,…` rows of a FitCSVTool dump; the first value of a name wins. */
function csvToolRecords(file: string): CsvToolRecord[] {
  const records: CsvToolRecord[] = [];
  for (const cells of readCsv(file)) {
    if (cells[0] !== 'Data' || cells[2] !== 'record') continue;
    const fields = new Map<string, string>();
    for (let i = 3; i + 1 < cells.length; i += 3) {
      const name = cells[i]!;
      if (name !== '' && name !== 'unknown' && !fields.has(name)) fields.set(name, cells[i + 1]!);
    }
    records.push({ timestamp: (Number(fields.get('timestamp')) + FIT_EPOCH_S) * 1000, fields });
  }
  return records;
}

function compareCsvToolRecord(record: CsvToolRecord, sample: (metric: SeriesMetric) => number, where: string): void {
  const field = (name: string) => {
    const value = num(record.fields.get(name));
    const invalid = CSV_TOOL_INVALID[name];
    return invalid !== undefined && Math.abs(value - invalid) < 1e-6 ? Number.NaN : value;
  };
  const either = (a: string, b: string) => (Number.isNaN(field(a)) ? field(b) : field(a));
  near(sample('heart_rate'), field('heart_rate'), 0, `${where} heart_rate`);
  near(sample('power'), field('power'), 0, `${where} power`);
  near(sample('speed'), either('enhanced_speed', 'speed'), 1e-9, `${where} speed`);
  near(sample('distance'), field('distance'), 1e-9, `${where} distance`);
  near(sample('altitude'), either('enhanced_altitude', 'altitude'), 1e-9, `${where} altitude`);
  near(sample('temperature'), field('temperature'), 0, `${where} temperature`);
  const fraction = field('fractional_cadence');
  near(sample('cadence'), field('cadence') + (Number.isNaN(fraction) ? 0 : fraction), 1e-9, `${where} cadence`);
  near(sample('latitude'), field('position_lat') * DEGREES_PER_SEMICIRCLE, 1e-9, `${where} latitude`);
  near(sample('longitude'), field('position_long') * DEGREES_PER_SEMICIRCLE, 1e-9, `${where} longitude`);
}

for (const layout of ['first', 'last']) {
  test(`matches the FitCSVTool dump of muktihari triathlon_summary_${layout} on every record outside the transitions`, async () => {
    const decoded = await decode(`muktihari-fit/triathlon_summary_${layout}.fit`);
    const records = csvToolRecords(`muktihari-fit/triathlon_summary_${layout}.csv`);
    assert.is(records.length, 4043);
    assert.equal(decoded.activities.map((activity) => activity.sport), ['swimming.open_water', 'cycling.road', 'running.road']);
    const skipped = /(\d+) transition sessions \((\d+) samples\) skipped/.exec(decoded.warnings.join('\n'));
    assert.ok(skipped, 'the skipped transitions are reported');
    assert.is(rows(decoded.activities) + Number(skipped[2]), records.length);
    const byTime = samplesByTime(decoded);
    let compared = 0;
    for (const record of records) {
      const sample = byTime.get(record.timestamp);
      if (sample === undefined) continue; // a transition sample
      compareCsvToolRecord(record, sample, `${layout} ${new Date(record.timestamp).toISOString()}`);
      compared++;
    }
    assert.is(compared, rows(decoded.activities));
  });
}

/** Activities as plain data, NaN as null (deep equality treats NaN as unequal to itself). */
function plain(activities: readonly DecodedActivity[]): unknown {
  return JSON.parse(JSON.stringify(activities, (_key, value: unknown) =>
    value instanceof Float64Array ? Array.from(value, (v) => (Number.isNaN(v) ? null : v)) : value));
}

test('decodes the summary-first and summary-last layouts of the same triathlon identically', async () => {
  const first = await decode('muktihari-fit/triathlon_summary_first.fit');
  const last = await decode('muktihari-fit/triathlon_summary_last.fit');
  assert.equal(plain(first.activities), plain(last.activities));
});

test('rejects valid_only_contain_fileid (one record, no session) as no activity, yet reads that record as dumped', async () => {
  try {
    await decode('muktihari-fit/valid_only_contain_fileid.fit');
    assert.unreachable('the decode should fail');
  } catch (error) {
    assert.instance(error, DecodeError);
    assert.is((error as DecodeError).code, 'fit_no_activity');
  }
  const decoded = await decode('muktihari-fit/valid_only_contain_fileid.fit', { minSamples: 1 });
  const records = csvToolRecords('muktihari-fit/valid_only_contain_fileid.csv');
  assert.is(records.length, 1);
  assert.is(rows(decoded.activities), 1);
  const sample = samplesByTime(decoded).get(records[0]!.timestamp);
  assert.ok(sample, 'the record is decoded at its timestamp');
  compareCsvToolRecord(records[0]!, sample, 'valid_only_contain_fileid');
  assert.is(sample('heart_rate'), 112);
});

test.run();
