/**
 * The analysis endpoints on the real stack: the fixture rides uploaded through the API, then their
 * mean-max curves, AWD, longitudinal curves (with fatigue states) and segmented series read back as
 * Parquet and compared with the goldens the reference twins computed (test/support/analytics-golden.ts);
 * each route's file is also read by DuckDB (test/support/duckdb.ts): its exact DuckDB types, and the same
 * rows as hyparquet.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { CANONICAL_DEFAULTS } from '../../engine/kernels/canonical.js';
import * as canonical from '../../engine/kernels/reference/canonical.js';
import * as meanMax from '../../engine/kernels/reference/mean-max.js';
import { DEFAULT_DURATIONS } from '../../engine/kernels/duration-grid.js';
import { readWithDuckDb, type DuckDbRead } from '../support/duckdb.js';
import { GOLDEN_DIR, GOLDEN_RIDES, decodeRide, readGolden, type CurveRow, type RideGolden } from '../support/analytics-golden.js';
import { startStack, type TestStack } from '../support/stack.js';
import { settled, upload, type SourceBody } from '../support/uploads.js';

type Row = Record<string, unknown>;

/** DuckDB's type of a UTC instant (gaps.md: "UTC instants are `timestamp[ms, UTC]`"). */
const UTC = 'TIMESTAMP WITH TIME ZONE';
/** DuckDB's types of a mean-max curve: "Mean-max `duration` is a … integer of seconds" (gaps.md). */
const CURVE_TYPES: [string, string][] = [['duration', 'BIGINT'], ['power', 'DOUBLE'], ['start', UTC]];

let stack: TestStack;
let token: string;
/** Activity id, local date and golden of each uploaded ride, oldest first. */
let rides: { file: string; id: string; date: string; start: number; golden: RideGolden }[] = [];

test.before(async () => {
  stack = await startStack({ JOB_POLL_MS: '20' });
  ({ token } = await stack.userWithToken(['activities:read', 'activities:write']));
  const response = await upload(stack, token, GOLDEN_RIDES.map((file) => ({ name: file, bytes: readFileSync(path.join(GOLDEN_DIR, file)) })));
  const { sources } = (await response.json()) as { sources: SourceBody[] };
  for (const [index, accepted] of sources.entries()) {
    const source = await settled(stack, token, accepted.id);
    assert.is(source.status, 'processed', JSON.stringify(source.error));
    const id = source.activity_ids[0]!;
    const details = (await (await stack.get(`/api/v1/activities/${id}`, token)).json()) as { start: string; start_local: string };
    rides.push({ file: GOLDEN_RIDES[index]!, id, date: details.start_local.slice(0, 10), start: Date.parse(details.start), golden: readGolden(GOLDEN_RIDES[index]!)! });
  }
  rides = rides.sort((a, b) => a.start - b.start);
});

test.after(() => stack.close());

async function parquetFile(url: string): Promise<ArrayBuffer> {
  const response = await stack.get(url, token);
  assert.is(response.status, 200, `${url}: ${response.status}`);
  assert.is(response.headers.get('content-type'), 'application/vnd.apache.parquet');
  return response.arrayBuffer();
}

/** The rows as hyparquet reads them, timestamps as epoch milliseconds. */
async function hyparquetRows(file: ArrayBuffer): Promise<Row[]> {
  const metadata = parquetMetadata(file);
  return (await parquetReadObjects({ file, metadata, parsers: { timestampFromMilliseconds: (ms: bigint) => Number(ms) } })) as Row[];
}

async function parquet(url: string): Promise<Row[]> {
  return hyparquetRows(await parquetFile(url));
}

/** DuckDB's read of the response, after checking that it holds exactly hyparquet's rows. */
async function duckRead(url: string): Promise<DuckDbRead> {
  const file = await parquetFile(url);
  const duck = await readWithDuckDb(new Uint8Array(file));
  assert.equal(duck.rows, await hyparquetRows(file), `${url}: DuckDB and hyparquet disagree`);
  return duck;
}

async function columnsOf(url: string): Promise<string[]> {
  const file = await (await stack.get(url, token)).arrayBuffer();
  return parquetMetadata(file).schema.slice(1).map((element) => element.name);
}

function asCurve(rows: Row[], metric: string): CurveRow[] {
  return rows.map((row) => ({ duration: Number(row.duration), value: row[metric] as number, start: new Date(row.start as number).toISOString() }));
}

function ride(file: string) {
  return rides.find((candidate) => candidate.file === file)!;
}

async function problem(url: string): Promise<{ status: number; loc: unknown[] }> {
  const response = await stack.get(url, token);
  const body = (await response.json()) as { detail: { loc: unknown[] }[] };
  return { status: response.status, loc: body.detail?.[0]?.loc ?? [] };
}

test('GET /mean-max returns the golden curve at the 19 defaults and on the full grid', async () => {
  const { id, golden } = ride('4078723797.fit');
  assert.equal(await columnsOf(`/api/v1/activities/${id}/mean-max`), ['duration', 'power', 'start']);
  assert.equal(asCurve(await parquet(`/api/v1/activities/${id}/mean-max`), 'power'), golden.power!.default_grid);
  assert.equal(asCurve(await parquet(`/api/v1/activities/${id}/mean-max?durations=all`), 'power'), golden.power!.full_grid);
  for (const file of GOLDEN_RIDES) {
    const { id: other, golden: expected } = ride(file);
    if (expected.speed) assert.equal(asCurve(await parquet(`/api/v1/activities/${other}/mean-max?metric=speed`), 'speed'), expected.speed.default_grid, file);
  }
});

test('GET /mean-max computes a listed duration exactly, even between grid points, and leaves out durations the ride did not last', async () => {
  const { id, file } = ride('4078723797.fit');
  const rows = asCurve(await parquet(`/api/v1/activities/${id}/mean-max?durations=1234,5,1234,99999`), 'power');
  assert.equal(rows.map((row) => row.duration), [5, 1234]);
  // The reference twin on the raw ride at 1234 s (not a grid point: 1230 and 1260 are).
  const series = await decodeRide(file);
  const grid = canonical.canonicalGrid(series.timestamps, CANONICAL_DEFAULTS);
  const power = new Float64Array(grid.length);
  canonical.canonicalPower(series.timestamps, series.metrics.find((metric) => metric.name === 'power')!.values, grid, CANONICAL_DEFAULTS, power);
  const prefix = new Float64Array(power.length + 1);
  meanMax.prefixSums(power, prefix);
  const value = new Float64Array(1);
  const start = new Int32Array(1);
  meanMax.meanMax(prefix, grid.sectionStarts, Int32Array.of(1234), value, start);
  assert.is(rows[1]!.value, value[0]);
  assert.is(rows[1]!.start, new Date(grid.sectionAnchors[0]! + start[0]! * 1000).toISOString());
});

test('DuckDB reads /mean-max as BIGINT seconds, DOUBLE W or m/s and a UTC start: the golden curve', async () => {
  const { id, golden } = ride('4078723797.fit');
  const power = await duckRead(`/api/v1/activities/${id}/mean-max`);
  assert.equal(power.columns, CURVE_TYPES);
  assert.equal(asCurve(power.rows, 'power'), golden.power!.default_grid);
  const first = golden.power!.default_grid[0]!;
  assert.equal(power.rows[0], { duration: BigInt(first.duration), power: first.value, start: Date.parse(first.start) });
  const runner = ride('4801048867.fit');
  const speed = await duckRead(`/api/v1/activities/${runner.id}/mean-max?metric=speed&durations=all`);
  assert.equal(speed.columns, [['duration', 'BIGINT'], ['speed', 'DOUBLE'], ['start', UTC]]);
  assert.equal(asCurve(speed.rows, 'speed'), runner.golden.speed!.full_grid);
});

test('a metric the activity does not have gives an empty table with the columns, not an error', async () => {
  const { id } = ride('4801048867.fit');
  assert.equal(await parquet(`/api/v1/activities/${id}/mean-max?metric=power`), []);
  assert.equal(await columnsOf(`/api/v1/activities/${id}/mean-max?metric=power`), ['duration', 'power', 'start']);
  assert.equal(await parquet(`/api/v1/activities/${id}/accumulated-work-duration?metric=power`), []);
});

test('GET /accumulated-work-duration defaults to power for a ride and returns the golden AWD, highest intensity first', async () => {
  for (const file of GOLDEN_RIDES) {
    const { id, golden } = ride(file);
    const metric = golden.power ? 'power' : 'speed';
    const rows = await parquet(`/api/v1/activities/${id}/accumulated-work-duration${golden.power ? '' : '?metric=speed'}`);
    assert.equal(rows.map((row) => ({ intensity: row[metric], duration: row.duration })), golden[metric]!.awd, file);
  }
});

test('DuckDB reads /accumulated-work-duration as DOUBLE intensity and DOUBLE seconds: the golden AWD', async () => {
  for (const file of GOLDEN_RIDES) {
    const { id, golden } = ride(file);
    for (const metric of ['power', 'speed'] as const) {
      if (!golden[metric]) continue;
      const awd = await duckRead(`/api/v1/activities/${id}/accumulated-work-duration?metric=${metric}`);
      assert.equal(awd.columns, [[metric, 'DOUBLE'], ['duration', 'DOUBLE']], file);
      assert.equal(awd.rows.map((row) => ({ intensity: row[metric], duration: row.duration })), golden[metric].awd, `${file} ${metric}`);
    }
  }
});

/** The expected longitudinal best at each default duration: the highest of the rides' curves, the earliest on ties. */
function bestOf(curves: { id: string; sport: string; curve: CurveRow[] }[]): Row[] {
  const out: Row[] = [];
  for (const duration of DEFAULT_DURATIONS) {
    let best: Row | null = null;
    for (const { id, sport, curve } of curves) {
      const point = curve.find((row) => row.duration === duration);
      if (point && (best === null || point.value > (best.value as number))) best = { duration, value: point.value, start: point.start, activity_id: id, sport };
    }
    if (best) out.push(best);
  }
  return out;
}

test('GET /longitudinal-mean-max is the element-wise best of the rides, naming the ride that holds each best', async () => {
  const rows = await parquet('/api/v1/activities/longitudinal-mean-max?sport=cycling&start=2000-01-01&end=2030-12-31');
  const expected = bestOf(rides.filter((r) => r.golden.power).map((r) => ({ id: r.id, sport: 'cycling.road', curve: r.golden.power!.default_grid })));
  assert.equal(rows.map((row) => ({ duration: Number(row.duration), value: row.power, start: new Date(row.start as number).toISOString(), activity_id: row.activity_id, sport: row.sport })), expected);
  assert.equal(await columnsOf('/api/v1/activities/longitudinal-mean-max?sport=cycling&start=2000-01-01'), ['duration', 'power', 'start', 'activity_id', 'sport']);
});

test('GET /longitudinal-mean-max?durations=all over one ride is that ride\'s full grid, read from its cache', async () => {
  const { id, date, golden } = ride('4078723797.fit');
  const rows = await parquet(`/api/v1/activities/longitudinal-mean-max?sport=cycling&start=${date}&end=${date}&durations=all`);
  assert.ok(rows.every((row) => row.activity_id === id));
  assert.equal(asCurve(rows, 'power'), golden.power!.full_grid);
});

test('GET /longitudinal-mean-max with after states gives each state its curve from the raw rides, omitting states none reaches', async () => {
  const anchor = ride('4078723797.fit');
  const end = anchor.date;
  const start = `${Number(end.slice(0, 4)) - 1}${end.slice(4)}`;
  const inRange = rides.filter((r) => r.golden.power && r.date >= start && r.date <= end);
  const rows = await parquet(`/api/v1/activities/longitudinal-mean-max?sport=cycling&start=${start}&end=${end}&after=1000&after=100&after=50000&by=duration`);
  assert.equal(await columnsOf(`/api/v1/activities/longitudinal-mean-max?sport=cycling&start=${start}&end=${end}&after=100`), ['duration', 'power', 'start', 'activity_id', 'sport', 'after']);
  const expected: Row[] = [];
  for (const state of [100, 1000]) {
    for (const row of bestOf(inRange.filter((r) => r.golden.power!.after[String(state)]).map((r) => ({ id: r.id, sport: 'cycling.road', curve: r.golden.power!.after[String(state)]! })))) {
      expected.push({ ...row, after: state });
    }
  }
  assert.ok(expected.length > 0);
  assert.equal(rows.map((row) => ({ duration: Number(row.duration), value: row.power, start: new Date(row.start as number).toISOString(), activity_id: row.activity_id, sport: row.sport, after: row.after })), expected);
});

test('DuckDB reads /longitudinal-mean-max with BIGINT duration, a UTC start, VARCHAR activity_id and sport, and a DOUBLE after', async () => {
  const plain = await duckRead('/api/v1/activities/longitudinal-mean-max?sport=cycling&start=2000-01-01&end=2030-12-31');
  assert.equal(plain.columns, [...CURVE_TYPES, ['activity_id', 'VARCHAR'], ['sport', 'VARCHAR']]);
  const expected = bestOf(rides.filter((r) => r.golden.power).map((r) => ({ id: r.id, sport: 'cycling.road', curve: r.golden.power!.default_grid })));
  assert.is(plain.rows.length, expected.length);
  const best = expected.at(-1)!;
  assert.equal(plain.rows.at(-1), { duration: BigInt(best.duration as number), power: best.value, start: Date.parse(best.start as string), activity_id: best.activity_id, sport: best.sport });
  const end = ride('4078723797.fit').date;
  const start = `${Number(end.slice(0, 4)) - 1}${end.slice(4)}`;
  const after = await duckRead(`/api/v1/activities/longitudinal-mean-max?sport=cycling&start=${start}&end=${end}&after=1000&after=100`);
  assert.equal(after.columns, [...CURVE_TYPES, ['activity_id', 'VARCHAR'], ['sport', 'VARCHAR'], ['after', 'DOUBLE']]);
  assert.equal([...new Set(after.rows.map((row) => row.after))], [100, 1000]);
});

test('GET /longitudinal-accumulated-work-duration gives max, hard, medium and easy per intensity, as Parquet or JSON', async () => {
  const json = await stack.get('/api/v1/activities/longitudinal-accumulated-work-duration?sport=cycling&start=2000-01-01&format=json', token);
  assert.is(json.status, 200);
  const rows = (await json.json()) as { power: number; max: number; hard: number; medium: number; easy: number }[];
  const zero = rows[rows.length - 1]!;
  assert.is(zero.power, 0);
  // At 0 W every recorded second counts: max is the longest training day.
  const days = new Map<string, number>();
  for (const r of rides.filter((candidate) => candidate.golden.power)) days.set(r.date, (days.get(r.date) ?? 0) + r.golden.power!.awd.at(-1)!.duration);
  assert.is(zero.max, Math.max(...days.values()));
  assert.ok(zero.easy <= zero.medium && zero.medium <= zero.hard && zero.hard <= zero.max);
  assert.is(rows[0]!.power, 1022);
  const parquetRows = await parquet('/api/v1/activities/longitudinal-accumulated-work-duration?sport=cycling&start=2000-01-01');
  assert.is(parquetRows.length, rows.length);
  assert.equal(Object.keys(parquetRows[0]!), ['power', 'max', 'hard', 'medium', 'easy']);
});

test('DuckDB reads /longitudinal-accumulated-work-duration as DOUBLE columns holding the rows format=json gives', async () => {
  const url = '/api/v1/activities/longitudinal-accumulated-work-duration?sport=cycling&start=2000-01-01';
  const duck = await duckRead(`${url}&format=parquet`);
  assert.equal(duck.columns, ['power', 'max', 'hard', 'medium', 'easy'].map((name) => [name, 'DOUBLE']));
  const json = await stack.get(`${url}&format=json`, token);
  assert.is(json.status, 200);
  assert.equal(duck.rows, await json.json());
});

test("4078723797.fit: the activity's duration, its AWD at zero and its segments agree to the second (8,357 s, 8,357 samples at 1 Hz)", async () => {
  const { id, golden } = ride('4078723797.fit');
  const details = (await (await stack.get(`/api/v1/activities/${id}`, token)).json()) as { start: string; end: string; duration: string };
  // The last sample (16:29:19) holds one second, as in the series the analyses use.
  assert.equal([details.start, details.end, details.duration], ['2019-09-20T14:10:03Z', '2019-09-20T16:29:20Z', 'PT2H19M17S']);
  assert.is(golden.bins, 8357);
  const awd = await parquet(`/api/v1/activities/${id}/accumulated-work-duration?metric=power`);
  assert.is(awd.at(-1)!.duration, 8357, 'AWD at 0 W');
  const segments = await parquet(`/api/v1/activities/${id}/data?metrics=power&segmentation_on=power`);
  assert.is(segments.reduce((sum, row) => sum + (row.duration as number), 0), 8357, 'segment durations');
});

test('the AWD endpoints and segmented rows name their algorithm version in Threshold-Algorithm; plain samples name none', async () => {
  const { id } = ride('4078723797.fit');
  const header = async (url: string) => {
    const response = await stack.get(url, token);
    assert.is(response.status, 200, url);
    await response.arrayBuffer();
    return response.headers.get('threshold-algorithm');
  };
  assert.is(await header(`/api/v1/activities/${id}/accumulated-work-duration`), 'analysis/5', 'AWD bins are part of the analysis version');
  assert.is(await header('/api/v1/activities/longitudinal-accumulated-work-duration?sport=cycling&start=2000-01-01'), 'analysis/5', 'AWD bins are part of the analysis version');
  assert.is(await header('/api/v1/activities/longitudinal-accumulated-work-duration?sport=cycling&start=2000-01-01&format=json'), 'analysis/5', 'AWD bins are part of the analysis version');
  assert.is(await header(`/api/v1/activities/${id}/data?metrics=power&segmentation_on=power`), 'segments/3');
  assert.is(await header('/api/v1/activities/longitudinal-data?sport=cycling&start=2000-01-01&metrics=power&segmentation_on=speed'), 'segments/3');
  assert.is(await header(`/api/v1/activities/${id}/data?metrics=power`), null);
});

test('segmentation_on=power turns /data rows into segments that keep the length and the total work', async () => {
  const { id, golden } = ride('4078723797.fit');
  const rows = await parquet(`/api/v1/activities/${id}/data?metrics=power&segmentation_on=power`);
  assert.ok(rows.length * 15 <= golden.samples, `${rows.length} segments for ${golden.samples} samples`);
  const seconds = rows.reduce((sum, row) => sum + (row.duration as number), 0);
  assert.is(seconds, golden.bins);
  const work = rows.reduce((sum, row) => sum + (row.power as number) * (row.duration as number), 0);
  const reference = await parquet(`/api/v1/activities/${id}/data?metrics=power`);
  const recorded = reference.reduce((sum, row) => sum + ((row.power as number | null) ?? 0), 0);
  assert.ok(Math.abs(work - recorded) < 1e-6 * recorded, `segments ${work} J vs samples ${recorded} J`);
  const longitudinal = await parquet(`/api/v1/activities/longitudinal-data?sport=cycling&start=2000-01-01&metrics=power&segmentation_on=power`);
  assert.ok(longitudinal.length < 2000 && longitudinal.some((row) => row.activity_id === id));
});

test('DuckDB reads segmented /data and /longitudinal-data with a UTC timestamp, a naive timestamp_local and DOUBLE durations', async () => {
  const { id, golden, start } = ride('4078723797.fit');
  const power = await duckRead(`/api/v1/activities/${id}/data?metrics=power&segmentation_on=power`);
  // A segment's length is always there, ahead of the requested metrics (engine/service/activity-series.ts).
  assert.equal(power.columns, [['timestamp', UTC], ['timestamp_local', 'TIMESTAMP'], ['duration', 'DOUBLE'], ['power', 'DOUBLE']]);
  assert.is(power.rows[0]!.timestamp, start);
  assert.is(power.rows.reduce((sum, row) => sum + (row.duration as number), 0), golden.bins);
  const runner = ride('4801048867.fit');
  const speed = await duckRead(`/api/v1/activities/${runner.id}/data?metrics=speed&segmentation_on=speed`);
  assert.equal(speed.columns, [['timestamp', UTC], ['timestamp_local', 'TIMESTAMP'], ['duration', 'DOUBLE'], ['speed', 'DOUBLE']]);
  assert.is(speed.rows[0]!.timestamp, runner.start);
  assert.is(speed.rows.reduce((sum, row) => sum + (row.duration as number), 0), runner.golden.bins);
  const longitudinal = await duckRead('/api/v1/activities/longitudinal-data?sport=cycling&start=2000-01-01&metrics=power&segmentation_on=power');
  assert.equal(longitudinal.columns, [['timestamp', UTC], ['timestamp_local', 'TIMESTAMP'], ['activity_id', 'VARCHAR'], ['sport', 'VARCHAR'], ['duration', 'DOUBLE'], ['power', 'DOUBLE']]);
  assert.equal(longitudinal.rows.filter((row) => row.activity_id === id), power.rows.map((row) => ({ ...row, activity_id: id, sport: 'cycling.road' })));
});

test('an absurd speed or distance jump in an upload is a spike of 0, not a failed source or a huge AWD table', async () => {
  const lines = ['timestamp,sport,speed,distance'];
  for (let i = 0; i < 60; i++) lines.push(`2024-05-01T07:00:${String(i).padStart(2, '0')}+02:00,running,${i === 30 ? '99999999999' : '3'},${i < 40 ? i * 3 : 1e9 + i * 3}`);
  const response = await upload(stack, token, [{ name: 'spiky.csv', bytes: `${lines.join('\n')}\n` }]);
  const [accepted] = ((await response.json()) as { sources: SourceBody[] }).sources;
  const source = await settled(stack, token, accepted!.id);
  assert.is(source.status, 'processed', JSON.stringify(source.error));
  const id = source.activity_ids[0]!;
  const awd = await parquet(`/api/v1/activities/${id}/accumulated-work-duration`);
  assert.is(awd[0]!.speed, 3, 'the spikes count as 0: 3 m/s is the highest intensity');
  const curve = await parquet(`/api/v1/activities/${id}/mean-max?metric=speed&durations=1`);
  assert.is(curve[0]!.speed, 3);
});

test('rejects malformed analysis queries with a 422 naming the parameter', async () => {
  const { id } = ride('4078723797.fit');
  const cases: [string, unknown[]][] = [
    [`/api/v1/activities/${id}/mean-max?metric=watts`, ['query', 'metric']],
    [`/api/v1/activities/${id}/mean-max?durations=5,abc`, ['query', 'durations']],
    [`/api/v1/activities/${id}/mean-max?durations=0`, ['query', 'durations']],
    [`/api/v1/activities/${id}/accumulated-work-duration?metric=cadence`, ['query', 'metric']],
    [`/api/v1/activities/${id}/data?segmentation_on=heart_rate`, ['query', 'segmentation_on']],
    ['/api/v1/activities/longitudinal-mean-max?start=2020-01-01', ['query', 'sport']],
    ['/api/v1/activities/longitudinal-mean-max?sport=cycling&after=1&after=2&after=3&after=4&after=5&after=6', ['query', 'after']],
    ['/api/v1/activities/longitudinal-mean-max?sport=cycling&after=-5', ['query', 'after', 0]],
    ['/api/v1/activities/longitudinal-mean-max?sport=cycling&after=100&start=2023-01-01&end=2024-06-01', ['query', 'start']],
    ['/api/v1/activities/longitudinal-mean-max?sport=cycling&by=activity', ['query', 'by']],
    ['/api/v1/activities/longitudinal-accumulated-work-duration?format=csv', ['query', 'format']],
  ];
  for (const [url, loc] of cases) assert.equal(await problem(url), { status: 422, loc }, url);
});

test("another user's activity is a 404 on every analysis endpoint", async () => {
  const { id } = ride('4078723797.fit');
  const other = await stack.userWithToken(['activities:read']);
  for (const suffix of ['mean-max', 'accumulated-work-duration']) {
    const response = await stack.get(`/api/v1/activities/${id}/${suffix}`, other.token);
    assert.is(response.status, 404, suffix);
  }
  const empty = await stack.get('/api/v1/activities/longitudinal-mean-max?sport=cycling&start=2000-01-01', other.token);
  assert.is(empty.status, 200);
});

test.run();
