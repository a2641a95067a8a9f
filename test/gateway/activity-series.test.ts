/**
 * `GET /activities/{id}/data` and `GET /activities/longitudinal-data` on the real stack (gateway →
 * gRPC → engine pool → store), the Parquet read back with hyparquet and, for every route, also with
 * DuckDB (test/support/duckdb.ts): the exact DuckDB types, and the same rows as hyparquet.
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { parquetMetadata, parquetReadObjects, type FileMetaData } from 'hyparquet';
import { mintAccessToken } from '../../gateway/auth/access-tokens.js';
import { SigningKeys } from '../../gateway/auth/signing-keys.js';
import { createUser } from '../../gateway/services/accounts.js';
import { startStack as startRealStack, type RunningStack } from '../../cli/stack.js';
import { openStore } from '../../storage/open-store.js';
import type { ActivityRecord, Blobs, Store } from '../../storage/store.js';
import { insertActivity } from '../support/activities.js';
import { readWithDuckDb } from '../support/duckdb.js';
import { startStack, tempDir, type TestStack } from '../support/stack.js';

interface Context {
  stack: TestStack;
  /** Owner of `ride` (activities:read). */
  token: string;
  ride: ActivityRecord;
  /** The same owner's ride without a power meter (speed and heart rate only). */
  noPower: ActivityRecord;
  /** A user with the longitudinal fixtures. */
  longToken: string;
  long: Record<'road' | 'run' | 'lateNight' | 'trainer' | 'swim', ActivityRecord>;
}

const series = suite<Context>('activity series');

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const RIDE_START = Date.UTC(2024, 4, 1, 5, 0, 0); // 2024-05-01T05:00:00Z
const nan = Number.NaN;

type Row = Record<string, unknown>;

/**
 * DuckDB's types for the time columns: gaps.md "UTC instants are `timestamp[ms, UTC]`, `_local` columns
 * `timestamp[ms]` without zone" (DuckDB reads MILLIS as its microsecond types; the values pin the unit).
 */
const TIME_TYPES: [string, string][] = [['timestamp', 'TIMESTAMP WITH TIME ZONE'], ['timestamp_local', 'TIMESTAMP']];
/** The leading columns of every /longitudinal-data file. */
const LONGITUDINAL_TYPES: [string, string][] = [...TIME_TYPES, ['activity_id', 'VARCHAR'], ['sport', 'VARCHAR'], ['duration', 'DOUBLE']];

interface ParquetResponse {
  /** From sending the request to the last byte, milliseconds. */
  ms: number;
  status: number;
  type: string | null;
  bytes: Buffer;
  metadata: FileMetaData;
  columns: string[];
  rows: Row[];
}

/** GET as Parquet: status, media type, metadata, column names and rows (timestamps as epoch ms). */
async function getParquet(stack: TestStack, url: string, token: string): Promise<ParquetResponse> {
  const started = performance.now();
  const response = await stack.get(url, token);
  const bytes = Buffer.from(await response.arrayBuffer());
  const ms = performance.now() - started;
  assert.is(response.status, 200, bytes.toString('utf8', 0, 300));
  const file = new Uint8Array(bytes).buffer as ArrayBuffer;
  const metadata = parquetMetadata(file);
  const rows = await parquetReadObjects({ file, metadata, parsers: { timestampFromMilliseconds: (ms: bigint) => Number(ms) } });
  return { ms, status: response.status, type: response.headers.get('content-type'), bytes, metadata, columns: metadata.schema.slice(1).map((entry) => entry.name), rows };
}

series.before(async (context) => {
  context.stack = await startStack();
  const { store } = context.stack;
  const owner = await context.stack.userWithToken(['activities:read']);
  context.token = owner.token;
  context.ride = await insertActivity(store, owner.userId, {
    sport: 'cycling.road',
    start: RIDE_START,
    offset: 120,
    series: {
      rows: 10,
      metrics: {
        power: (i) => (i === 3 ? nan : 200 + i),
        speed: (i) => 8 + i / 10,
        heart_rate: (i) => (i === 0 ? nan : 130 + i),
        cadence: () => 90,
      },
    },
  });

  context.noPower = await insertActivity(store, owner.userId, {
    sport: 'cycling.road',
    start: RIDE_START + 24 * HOUR,
    offset: 120,
    series: { rows: 4, metrics: { speed: (i) => 7 + i / 2, heart_rate: (i) => 120 + i } },
  });

  const long = await context.stack.userWithToken(['activities:read']);
  context.longToken = long.token;
  const at = (day: number, hour: number, minute = 0) => Date.UTC(2024, 2, day, hour, minute);
  context.long = {
    road: await insertActivity(store, long.userId, { sport: 'cycling.road', start: at(1, 6), offset: 60, series: { rows: 4, metrics: { power: (i) => 100 + i } } }),
    run: await insertActivity(store, long.userId, { sport: 'running', start: at(2, 7), offset: 0, series: { rows: 3, metrics: { heart_rate: (i) => 150 + i, speed: (i) => 3 + i } } }),
    // 23:30 UTC on 5 March is 01:30 on 6 March at UTC+2: its own local date is the 6th.
    lateNight: await insertActivity(store, long.userId, { sport: 'cycling', start: at(5, 23, 30), offset: 120, series: { rows: 2, metrics: { power: (i) => 300 + i, heart_rate: () => 140 } } }),
    trainer: await insertActivity(store, long.userId, { sport: 'cycling.trainer', start: at(8, 18), offset: -300, series: { rows: 2, metrics: { power: () => 250 } } }),
    swim: await insertActivity(store, long.userId, { sport: 'swimming', start: at(9, 12), offset: 0, series: { rows: 2, metrics: { heart_rate: () => 120 } } }),
  };
  // Another user's cycling in the same range never shows up.
  const other = await context.stack.userWithToken(['activities:read']);
  await insertActivity(store, other.userId, { sport: 'cycling', start: at(3, 8), series: { rows: 2, metrics: { power: () => 999 } } });
});

series.after(async (context) => {
  await context.stack.close();
});

// ---------------------------------------------------------------------------------------------------------
// /activities/{activity_id}/data

series('serves one row per sample with UTC and naive local timestamps and the requested metrics in order', async ({ stack, token, ride }) => {
  const file = await getParquet(stack, `/api/v1/activities/${ride.id}/data?metrics=heart_rate&metrics=duration&metrics=power`, token);
  assert.is(file.type, 'application/vnd.apache.parquet');
  assert.equal(file.columns, ['timestamp', 'timestamp_local', 'heart_rate', 'duration', 'power']);
  assert.equal(file.rows, Array.from({ length: 10 }, (_, i) => ({
    timestamp: RIDE_START + i * 1000,
    timestamp_local: RIDE_START + 2 * HOUR + i * 1000,
    heart_rate: i === 0 ? null : 130 + i,
    duration: i,
    power: i === 3 ? null : 200 + i,
  })));
  const timestamp = file.metadata.schema.find((entry) => entry.name === 'timestamp')!;
  assert.equal(timestamp.logical_type, { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' });
  const local = file.metadata.schema.find((entry) => entry.name === 'timestamp_local')!;
  assert.equal(local.logical_type, { type: 'TIMESTAMP', isAdjustedToUTC: false, unit: 'MILLIS' });
});

series('DuckDB reads /data with a UTC timestamp, a naive timestamp_local and DOUBLE metrics, row for row as hyparquet', async ({ stack, token, ride }) => {
  const file = await getParquet(stack, `/api/v1/activities/${ride.id}/data?metrics=heart_rate&metrics=duration&metrics=power`, token);
  const duck = await readWithDuckDb(file.bytes);
  assert.equal(duck.columns, [...TIME_TYPES, ['heart_rate', 'DOUBLE'], ['duration', 'DOUBLE'], ['power', 'DOUBLE']]);
  assert.is(duck.rows.length, 10);
  assert.equal(duck.rows[3], { timestamp: RIDE_START + 3000, timestamp_local: RIDE_START + 2 * HOUR + 3000, heart_rate: 133, duration: 3, power: null });
  assert.equal(duck.rows, file.rows);
});

series('defaults to duration, power, speed and heart_rate, with a column of nulls for each one the activity lacks', async ({ stack, token, ride, longToken, long }) => {
  const full = await getParquet(stack, `/api/v1/activities/${ride.id}/data`, token);
  assert.equal(full.columns, ['timestamp', 'timestamp_local', 'duration', 'power', 'speed', 'heart_rate']);
  assert.equal(full.rows[5], { timestamp: RIDE_START + 5000, timestamp_local: RIDE_START + 2 * HOUR + 5000, duration: 5, power: 205, speed: 8.5, heart_rate: 135 });
  const powerOnly = await getParquet(stack, `/api/v1/activities/${long.trainer.id}/data`, longToken);
  assert.equal(powerOnly.columns, ['timestamp', 'timestamp_local', 'duration', 'power', 'speed', 'heart_rate']);
  assert.equal(powerOnly.rows.map((row) => [row.power, row.speed, row.heart_rate]), [[250, null, null], [250, null, null]]);
});

// gaps.md: "Parquet /data and /longitudinal-data carry a column for every requested metric, null where an
// activity lacks it", with the type the metric has where it is recorded.
series('gives a ride without power a power column of nulls, DOUBLE as where power is recorded, by default and when asked for', async ({ stack, token, noPower }) => {
  for (const query of ['', '?metrics=power&metrics=heart_rate&metrics=duration']) {
    const file = await getParquet(stack, `/api/v1/activities/${noPower.id}/data${query}`, token);
    const names = query === '' ? ['duration', 'power', 'speed', 'heart_rate'] : ['power', 'heart_rate', 'duration'];
    assert.equal(file.columns, ['timestamp', 'timestamp_local', ...names], query);
    const power = file.metadata.schema.find((entry) => entry.name === 'power')!;
    assert.is(power.type, 'DOUBLE', query);
    assert.is(power.repetition_type, 'OPTIONAL', query);
    assert.is(file.rows.length, 4);
    assert.ok(file.rows.every((row) => row.power === null), query);
    assert.equal(file.rows.map((row) => row.heart_rate), [120, 121, 122, 123], query);
    const duck = await readWithDuckDb(file.bytes);
    assert.equal(duck.columns, [...TIME_TYPES, ...names.map((name): [string, string] => [name, 'DOUBLE'])], query);
    assert.equal(duck.rows, file.rows, query);
  }
  // Segment rows too: each segment's power mean is null.
  const segments = await getParquet(stack, `/api/v1/activities/${noPower.id}/data?metrics=power&metrics=notes&segmentation_on=speed`, token);
  assert.equal(segments.columns, ['timestamp', 'timestamp_local', 'duration', 'power', 'notes']);
  assert.ok(segments.rows.length > 0 && segments.rows.every((row) => row.power === null && row.notes === null));
  const duck = await readWithDuckDb(segments.bytes);
  assert.equal(duck.columns, [...TIME_TYPES, ['duration', 'DOUBLE'], ['power', 'DOUBLE'], ['notes', 'VARCHAR']]);
});

series('types the columns of metrics no series records as the interface does: lactate DOUBLE, lap and rpe INTEGER, notes VARCHAR, all null', async ({ stack, token, ride }) => {
  const file = await getParquet(stack, `/api/v1/activities/${ride.id}/data?metrics=power&metrics=lap&metrics=lactate&metrics=rpe&metrics=notes&metrics=altitude`, token);
  assert.equal(file.columns, ['timestamp', 'timestamp_local', 'power', 'lap', 'lactate', 'rpe', 'notes', 'altitude']);
  for (const name of ['lap', 'lactate', 'rpe', 'notes', 'altitude']) assert.ok(file.rows.every((row) => row[name] === null), name);
  const duck = await readWithDuckDb(file.bytes);
  assert.equal(duck.columns, [
    ...TIME_TYPES, ['power', 'DOUBLE'], ['lap', 'INTEGER'], ['lactate', 'DOUBLE'], ['rpe', 'INTEGER'], ['notes', 'VARCHAR'], ['altitude', 'DOUBLE'],
  ]);
  assert.equal(duck.rows, file.rows);
});

series('answers 404 with a detail for another user\'s activity and for an unknown id', async ({ stack, token, longToken, ride }) => {
  for (const [id, bearer] of [[ride.id, longToken], ['0123456789abcdef', token]] as const) {
    const response = await stack.get(`/api/v1/activities/${id}/data`, bearer);
    assert.is(response.status, 404);
    assert.equal(await response.json(), { detail: 'Activity not found' });
  }
});

series('answers 401 without a token and 403 naming the scope without activities:read', async ({ stack, ride }) => {
  for (const url of [`/api/v1/activities/${ride.id}/data`, '/api/v1/activities/longitudinal-data?sport=cycling']) {
    const anonymous = await stack.get(url);
    assert.is(anonymous.status, 401);
    const { token } = await stack.userWithToken(['activities:write']);
    const unscoped = await stack.get(url, token);
    assert.is(unscoped.status, 403);
    assert.equal(await unscoped.json(), { detail: 'Missing required scope: activities:read' });
  }
});

series('rejects an unknown metric with 422 in FastAPI\'s shape', async ({ stack, token, ride }) => {
  const response = await stack.get(`/api/v1/activities/${ride.id}/data?metrics=power&metrics=watts`, token);
  assert.is(response.status, 422);
  const body = (await response.json()) as { detail: { loc: unknown[]; type: string }[] };
  assert.equal(body.detail.map((issue) => [issue.loc, issue.type]), [[['query', 'metrics', 1], 'enum']]);
});

// ---------------------------------------------------------------------------------------------------------
// /activities/longitudinal-data

series('concatenates matching activities oldest first with activity_id and sport, across sports', async ({ stack, longToken, long }) => {
  const file = await getParquet(stack, '/api/v1/activities/longitudinal-data?sport=cycling&sport=running&metrics=power&metrics=heart_rate&start=2024-03-01&end=2024-03-31', longToken);
  assert.equal(file.columns, ['timestamp', 'timestamp_local', 'activity_id', 'sport', 'duration', 'power', 'heart_rate']);
  assert.equal(file.rows.map((row) => row.activity_id), [
    ...Array(4).fill(long.road.id), ...Array(3).fill(long.run.id), ...Array(2).fill(long.lateNight.id), ...Array(2).fill(long.trainer.id),
  ]);
  assert.equal(file.rows.slice(3, 6), [
    { timestamp: long.road.start + 3000, timestamp_local: long.road.start + HOUR + 3000, activity_id: long.road.id, sport: 'cycling.road', duration: 3, power: 103, heart_rate: null },
    { timestamp: long.run.start, timestamp_local: long.run.start, activity_id: long.run.id, sport: 'running', duration: 0, power: null, heart_rate: 150 },
    { timestamp: long.run.start + 1000, timestamp_local: long.run.start + 1000, activity_id: long.run.id, sport: 'running', duration: 1, power: null, heart_rate: 151 },
  ]);
  // Stored canonical: the legacy cycling.trainer is cycling+stationary, and it is a kind of cycling.
  assert.equal(file.rows.at(-1), { timestamp: long.trainer.start + 1000, timestamp_local: long.trainer.start - 5 * HOUR + 1000, activity_id: long.trainer.id, sport: 'cycling+stationary', duration: 1, power: 250, heart_rate: null });
});

series('DuckDB reads /longitudinal-data with UTC and naive timestamps and VARCHAR ids and sports, row for row as hyparquet, also when empty', async ({ stack, longToken, long }) => {
  const file = await getParquet(stack, '/api/v1/activities/longitudinal-data?sport=cycling&sport=running&metrics=power&metrics=heart_rate&start=2024-03-01&end=2024-03-31', longToken);
  const duck = await readWithDuckDb(file.bytes);
  assert.equal(duck.columns, [...LONGITUDINAL_TYPES, ['power', 'DOUBLE'], ['heart_rate', 'DOUBLE']]);
  assert.is(duck.rows.length, 11);
  assert.equal(duck.rows[9], { timestamp: long.trainer.start, timestamp_local: long.trainer.start - 5 * HOUR, activity_id: long.trainer.id, sport: 'cycling+stationary', duration: 0, power: 250, heart_rate: null });
  assert.equal(duck.rows, file.rows);
  const empty = await readWithDuckDb((await getParquet(stack, '/api/v1/activities/longitudinal-data?sport=rowing', longToken)).bytes);
  assert.equal(empty, { columns: [...LONGITUDINAL_TYPES, ['power', 'DOUBLE'], ['speed', 'DOUBLE'], ['heart_rate', 'DOUBLE']], rows: [] });
});

series('matches sub-sports of the filter only, and accepts the deprecated comma-separated sports', async ({ stack, longToken, long }) => {
  const road = await getParquet(stack, '/api/v1/activities/longitudinal-data?sport=cycling.road', longToken);
  assert.equal([...new Set(road.rows.map((row) => row.activity_id))], [long.road.id]);
  const legacy = await getParquet(stack, '/api/v1/activities/longitudinal-data?sports=cycling.road,running', longToken);
  assert.equal([...new Set(legacy.rows.map((row) => row.activity_id))], [long.road.id, long.run.id]);
});

series('always includes duration and keeps metrics no matching activity has, as columns of nulls', async ({ stack, longToken }) => {
  const file = await getParquet(stack, '/api/v1/activities/longitudinal-data?sport=cycling.road&metrics=heart_rate&metrics=cadence', longToken);
  assert.equal(file.columns, ['timestamp', 'timestamp_local', 'activity_id', 'sport', 'duration', 'heart_rate', 'cadence']);
  assert.equal(file.rows.map((row) => [row.duration, row.heart_rate, row.cadence]), [[0, null, null], [1, null, null], [2, null, null], [3, null, null]]);
  const duck = await readWithDuckDb(file.bytes);
  assert.equal(duck.columns, [...LONGITUDINAL_TYPES, ['heart_rate', 'DOUBLE'], ['cadence', 'DOUBLE']]);
  assert.equal(duck.rows, file.rows);
});

series('gives every activity a power column across a ride with power and one without, by default and when asked for', async ({ stack }) => {
  const { userId, token } = await stack.userWithToken(['activities:read']);
  const day = Date.UTC(2024, 6, 1, 6);
  const withPower = await insertActivity(stack.store, userId, { sport: 'cycling.road', start: day, series: { rows: 2, metrics: { power: (i) => 180 + i, heart_rate: () => 130 } } });
  const without = await insertActivity(stack.store, userId, { sport: 'cycling.road', start: day + 24 * HOUR, series: { rows: 2, metrics: { heart_rate: () => 140 } } });
  for (const query of ['', '&metrics=power&metrics=heart_rate']) {
    const file = await getParquet(stack, `/api/v1/activities/longitudinal-data?sport=cycling&start=2024-07-01&end=2024-07-31${query}`, token);
    const names = query === '' ? ['duration', 'power', 'speed', 'heart_rate'] : ['duration', 'power', 'heart_rate'];
    assert.equal(file.columns, ['timestamp', 'timestamp_local', 'activity_id', 'sport', ...names], query);
    assert.equal(file.rows.map((row) => [row.activity_id, row.power, row.heart_rate]), [
      [withPower.id, 180, 130], [withPower.id, 181, 130], [without.id, null, 140], [without.id, null, 140],
    ], query);
    assert.is(file.metadata.schema.find((entry) => entry.name === 'power')!.type, 'DOUBLE');
    const duck = await readWithDuckDb(file.bytes);
    assert.equal(duck.columns, [...LONGITUDINAL_TYPES, ...names.slice(1).map((name): [string, string] => [name, 'DOUBLE'])], query);
    assert.equal(duck.rows, file.rows, query);
  }
  // A range holding only the ride without power still has the column.
  const alone = await getParquet(stack, '/api/v1/activities/longitudinal-data?sport=cycling&start=2024-07-02&end=2024-07-02&metrics=power', token);
  assert.equal(alone.columns, ['timestamp', 'timestamp_local', 'activity_id', 'sport', 'duration', 'power']);
  assert.equal(alone.rows.map((row) => row.power), [null, null]);
});

series("bounds dates on each activity's own local date", async ({ stack, longToken, long }) => {
  const sixth = await getParquet(stack, '/api/v1/activities/longitudinal-data?sport=cycling&start=2024-03-06&end=2024-03-06', longToken);
  assert.equal([...new Set(sixth.rows.map((row) => row.activity_id))], [long.lateNight.id]);
  const untilFifth = await getParquet(stack, '/api/v1/activities/longitudinal-data?sport=cycling&end=2024-03-05', longToken);
  assert.equal([...new Set(untilFifth.rows.map((row) => row.activity_id))], [long.road.id]);
});

series('answers an empty match with a valid Parquet file of zero rows', async ({ stack, longToken }) => {
  const file = await getParquet(stack, '/api/v1/activities/longitudinal-data?sport=rowing', longToken);
  assert.is(file.metadata.num_rows, 0n);
  assert.equal(file.rows, []);
  assert.equal(file.columns, ['timestamp', 'timestamp_local', 'activity_id', 'sport', 'duration', 'power', 'speed', 'heart_rate']);
});

series('rejects a missing sport, a malformed sport, a bad date and start after end with 422', async ({ stack, longToken }) => {
  const cases: [string, unknown[], string][] = [
    ['', ['query', 'sport'], 'missing'],
    ['sport=Cycling!', ['query', 'sport'], 'value_error'],
    ['sport=cycling&start=2024-02-30', ['query', 'start'], 'value_error'],
    ['sport=cycling&start=2024-03-10&end=2024-03-01', ['query', 'start'], 'value_error'],
    ['sport=cycling&metrics=watts', ['query', 'metrics', 0], 'enum'],
  ];
  for (const [query, loc, type] of cases) {
    const response = await stack.get(`/api/v1/activities/longitudinal-data?${query}`, longToken);
    assert.is(response.status, 422, query);
    const body = (await response.json()) as { detail: { loc: unknown[]; type: string }[] };
    assert.equal(body.detail.map((issue) => [issue.loc, issue.type]), [[loc, type]], query);
  }
});

series('documents both routes with Parquet responses in /openapi.json', async ({ stack }) => {
  const document = (await (await stack.get('/openapi.json')).json()) as { paths: Record<string, { get: { parameters: { name: string; required: boolean }[]; responses: Record<string, { content?: Record<string, unknown> }> } }> };
  const data = document.paths['/api/v1/activities/{activity_id}/data']!.get;
  assert.equal(data.parameters.map((parameter) => parameter.name).sort(), ['activity_id', 'metrics', 'segmentation_on']);
  assert.ok(data.responses['200']!.content!['application/vnd.apache.parquet']);
  const longitudinal = document.paths['/api/v1/activities/longitudinal-data']!.get;
  assert.equal(longitudinal.parameters.map((parameter) => parameter.name).sort(), ['end', 'metrics', 'segmentation_on', 'sport', 'sports', 'start']);
  assert.ok(longitudinal.responses['200']!.content!['application/vnd.apache.parquet']);
});

series('streams 60 activities of 3,600 rows intact, readable by hyparquet and DuckDB', async ({ stack }) => {
  const { userId, token } = await stack.userWithToken(['activities:read']);
  const days = 60;
  const rowsPerActivity = 3600;
  const first = Date.UTC(2024, 0, 1, 6, 0, 0);
  const ids: string[] = [];
  for (let day = 0; day < days; day++) {
    const record = await insertActivity(stack.store, userId, {
      sport: day % 2 === 0 ? 'cycling.road' : 'cycling.mountain',
      start: first + day * 24 * HOUR,
      offset: 60,
      series: {
        rows: rowsPerActivity,
        metrics: {
          power: (i) => (i % 600 === 0 ? nan : 150 + ((i + day) % 250)),
          heart_rate: (i) => 110 + (i % 60),
          speed: (i) => 7 + (i % 100) / 50,
          cadence: (i) => 80 + (i % 20),
        },
      },
    });
    ids.push(record.id);
  }

  const file = await getParquet(stack, '/api/v1/activities/longitudinal-data?sport=cycling&start=2024-01-01&end=2024-12-31', token);
  console.log(`    longitudinal ${days} × ${rowsPerActivity} rows: ${(file.bytes.length / 1024 / 1024).toFixed(2)} MiB in ${Math.round(file.ms)} ms`);

  assert.is(file.rows.length, days * rowsPerActivity);
  assert.equal(file.columns, ['timestamp', 'timestamp_local', 'activity_id', 'sport', 'duration', 'power', 'speed', 'heart_rate']);
  for (const day of [0, 1, 37, 59]) {
    const row = file.rows[day * rowsPerActivity + 1234]!;
    assert.equal(row, {
      timestamp: first + day * 24 * HOUR + 1234_000,
      timestamp_local: first + day * 24 * HOUR + HOUR + 1234_000,
      activity_id: ids[day],
      sport: day % 2 === 0 ? 'cycling.road' : 'cycling.mountain',
      duration: 1234,
      power: 150 + ((1234 + day) % 250),
      speed: 7 + (1234 % 100) / 50,
      heart_rate: 110 + (1234 % 60),
    });
    assert.is(file.rows[day * rowsPerActivity + 600]!.power, null);
  }

  const duck = await readWithDuckDb(file.bytes);
  assert.equal(duck.columns, [...LONGITUDINAL_TYPES, ['power', 'DOUBLE'], ['speed', 'DOUBLE'], ['heart_rate', 'DOUBLE']]);
  assert.is(duck.rows.length, days * rowsPerActivity);
  assert.ok(file.metadata.row_groups.length > 1, 'the file spans several row groups');
  assert.equal(duck.rows, file.rows);
});

series.run();

// ---------------------------------------------------------------------------------------------------------
// A client that goes away: the engine call is cancelled and its pool task aborted. One engine thread,
// and a store whose read of one series blob waits on a gate the test opens: a longitudinal task stuck
// there holds the only worker until its call is cancelled, so a later request completes only if the
// cancellation reached the pool.

interface GatedContext {
  stack: RunningStack;
  store: Store;
  dataDir: string;
  token: string;
  userId: string;
  /** A small activity whose /data needs the (single) worker. */
  probe: ActivityRecord;
  gate: Gate;
}

class Gate {
  private keys = new Set<string>();
  private reachedResolve: (() => void) | null = null;
  private openResolve: (() => void) | null = null;
  private opened = Promise.resolve();

  /** Reads of `key` wait until `open()`; resolves when one arrives there. */
  close(key: string): Promise<void> {
    this.keys.add(key);
    this.opened = new Promise((resolve) => { this.openResolve = resolve; });
    return new Promise((resolve) => { this.reachedResolve = resolve; });
  }

  open(): void {
    this.keys.clear();
    this.openResolve?.();
  }

  async pass(key: string): Promise<void> {
    if (!this.keys.has(key)) return;
    this.reachedResolve?.();
    await this.opened;
  }
}

const cancellation = suite<GatedContext>('activity series: cancellation');

cancellation.before(async (context) => {
  context.dataDir = tempDir();
  const inner = await openStore({ mongodbUri: null, sqliteFile: path.join(context.dataDir, 'threshold.sqlite') });
  const gate = new Gate();
  const blobs: Blobs = {
    put: (key, bytes, owner) => inner.blobs.put(key, bytes, owner),
    get: async (key) => {
      await gate.pass(key);
      return inner.blobs.get(key);
    },
    getMany: (keys) => inner.blobs.getMany(keys),
    size: (key) => inner.blobs.size(key),
    delete: (key) => inner.blobs.delete(key),
    deletePrefix: (prefix) => inner.blobs.deletePrefix(prefix),
    deleteOwnedBatch: (userId, limit) => inner.blobs.deleteOwnedBatch(userId, limit),
  };
  context.store = { ...inner, blobs };
  context.gate = gate;
  context.stack = await startRealStack({
    env: { PORT: '0', HOST: '127.0.0.1', ENGINE_ADDRESS: '127.0.0.1:0', ENGINE_THREADS: '1', LOG_LEVEL: 'silent', DATA_DIR: context.dataDir },
    store: context.store,
  });
  const user = await createUser(context.store, { email: 'gone@example.com' });
  const keys = await SigningKeys.open(context.store);
  context.userId = user.id;
  context.token = (await mintAccessToken(keys, { issuer: context.stack.baseUrl, userId: user.id, applicationId: null, scopes: ['activities:read'] })).access_token;
  context.probe = await insertActivity(context.store, user.id, { sport: 'running', start: Date.UTC(2023, 0, 1), series: { rows: 3, metrics: { speed: () => 3 } } });
});

cancellation.after(async (context) => {
  context.gate.open();
  await context.stack.close();
  await context.store.close();
  fs.rmSync(context.dataDir, { recursive: true, force: true });
});

/**
 * A GET over its own connection (node:http without an agent), so the test decides when it closes:
 * fetch keeps a spare connection open after an abort, which the gateway's close() then waits out.
 */
function get(context: GatedContext, url: string): { request: http.ClientRequest; response: Promise<http.IncomingMessage> } {
  const request = http.get(`${context.stack.baseUrl}${url}`, { agent: false, headers: { authorization: `Bearer ${context.token}` } });
  const response = new Promise<http.IncomingMessage>((resolve, reject) => {
    request.once('response', resolve);
    request.once('error', reject);
  });
  return { request, response };
}

/** The probe's /data must complete while the gated longitudinal task would otherwise hold the only worker. */
async function probeCompletes(context: GatedContext): Promise<void> {
  const { request, response } = get(context, `/api/v1/activities/${context.probe.id}/data`);
  const timer = setTimeout(() => request.destroy(new Error('the probe got no answer: the worker is still held')), 20_000);
  try {
    const answer = await response;
    assert.is(answer.statusCode, 200);
    let bytes = 0;
    for await (const chunk of answer) bytes += (chunk as Buffer).length;
    assert.ok(bytes > 0);
  } finally {
    clearTimeout(timer);
  }
}

cancellation('cancels the engine call when the client leaves before the first byte', async (context) => {
  const { store, userId, gate } = context;
  const sport = 'rowing';
  await insertActivity(store, userId, { sport, start: Date.UTC(2024, 5, 1), series: { rows: 10, metrics: { power: () => 200 } } });
  const second = await insertActivity(store, userId, { sport, start: Date.UTC(2024, 5, 2), series: { rows: 10, metrics: { power: () => 210 } } });
  const reached = gate.close(second.series_key);
  const { request, response } = get(context, `/api/v1/activities/longitudinal-data?sport=${sport}`);
  const outcome = response.then(() => 'answered', (error: Error) => error.message);
  await reached; // the worker has the first activity and waits for the second: it holds the only thread
  request.destroy();
  assert.is(await outcome, 'socket hang up');
  await probeCompletes(context);
  gate.open();
});

cancellation('cancels the engine call when the client leaves mid-stream', async (context) => {
  const { store, userId, gate } = context;
  const sport = 'kayaking';
  // More rows than a row group: the first chunk goes out before the worker asks for the next activity.
  await insertActivity(store, userId, { sport, start: Date.UTC(2024, 6, 1), series: { rows: 140_000, metrics: { power: (i) => i % 400 } } });
  const second = await insertActivity(store, userId, { sport, start: Date.UTC(2024, 6, 5), series: { rows: 10, metrics: { power: () => 1 } } });
  const reached = gate.close(second.series_key);
  const { request, response } = get(context, `/api/v1/activities/longitudinal-data?sport=${sport}`);
  const answer = await response;
  assert.is(answer.statusCode, 200);
  assert.is(answer.headers['content-type'], 'application/vnd.apache.parquet');
  const first = await new Promise<Buffer>((resolve) => answer.once('data', resolve));
  assert.ok(first.length > 0, 'the response started');
  await reached;
  request.destroy();
  await probeCompletes(context);
  gate.open();
});

cancellation.run();
