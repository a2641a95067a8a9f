/**
 * Issue 23's "Done when", with the real Python readers: every Parquet answer reads in pyarrow, polars,
 * pandas and DuckDB with the documented columns (interface §4, gaps.md "Parquet files must be readable by
 * pyarrow ≥ 20, polars, DuckDB"), and the JSON answers with float fields build Float64 columns in polars,
 * pyarrow and pandas, as the official Python client builds its outputs (gaps.md: "Float-typed fields are
 * written with a decimal point (`4998.0`) … typed clients build float columns from them").
 *
 * The real stack is started, real FIT rides are uploaded (one with power, one cycling ride and one run
 * without), records with whole values are written, then every Parquet route (`sendParquet` in
 * gateway/routes) and the JSON answers with float fields are fetched into a temporary folder.
 * test/interop/python/readers.py reads them all and reports per answer; this file decides. Which fields
 * are floats comes from /openapi.json (`number` versus `integer`), not from a list kept here.
 *
 * A third test feeds the script deliberate deviations (an integer where a float is typed, a float where
 * an integer is, a missing column, a second-unit timestamp), so a script that stopped looking fails.
 *
 * Without python3 (or `$PYTHON`) or one of the four modules the suite is skipped with a line naming what
 * is missing (.ci/run installs them from a local index when there is one).
 */
import { skipUnless, suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { METRICS } from '../../engine/contract.js';
import { FIXTURES, REPO_ROOT } from '../support/paths.js';
import { startStack, tempDir, type TestStack } from '../support/stack.js';
import { settled, upload, type SourceBody } from '../support/uploads.js';

const SCRIPT = path.join(REPO_ROOT, 'test', 'interop', 'python', 'readers.py');
const PYTHON = process.env.PYTHON ?? 'python3';

/** What the Python side lacks, or null when python3 and all four readers are there. */
function pythonMissing(): string | null {
  const probe = spawnSync(PYTHON, [SCRIPT, '--check'], { encoding: 'utf8', timeout: 60_000 });
  if (probe.error) return `needs ${PYTHON} (${probe.error.message})`;
  if (probe.status !== 0) return `needs ${PYTHON} to run ${path.relative(REPO_ROOT, SCRIPT)} (${probe.stderr.trim().split('\n').at(-1)})`;
  const missing = probe.stdout.trim().split('\n').filter(Boolean);
  return missing.length > 0 ? `needs the Python modules ${missing.join(', ')} (python3 -m pip install ${missing.join(' ')})` : null;
}

interface ParquetEntry {
  name: string;
  file: string;
  /** The documented columns, in order. */
  columns: string[];
  /** pyarrow's type of each column, as documented (see `documentedTypes`). */
  types: Record<string, string>;
  /** Columns that must be all null (a metric the activity lacks). */
  null_columns?: string[];
  min_rows?: number;
}

interface JsonEntry {
  name: string;
  file: string;
  /** The OpenAPI schema of the 200 application/json answer. */
  schema: unknown;
}

interface Report {
  versions: Record<string, string>;
  parquet: Record<string, { rows: number | null; readers: string[]; problems: string[] }>;
  json: Record<string, { rows: number; float_fields: Record<string, number>; integer_fields: Record<string, number>; problems: string[] }>;
}

interface Context {
  stack: TestStack;
  dir: string;
  token: string;
  parquet: ParquetEntry[];
  json: JsonEntry[];
  report: Report;
}

const readers = suite<Context>('Python readers (pyarrow, polars, pandas, DuckDB)');
skipUnless(pythonMissing(), readers);

/** Corpus files (test/fixtures/fit/MANIFEST.md); their sports and metrics are pinned in fit-corpus.expected.json. */
const RIDES = {
  /** cycling.road, 2019-09-20, 8357 samples with power, speed, heart rate, cadence … */
  power: 'sweatpy/4078723797.fit',
  /** cycling.road, 2017-06-12, 19 samples: speed and heart rate, no power. */
  noPower: 'python-fitparse/garmin-fenix-5-bike.fit',
  /** running.road, 2017-06-11, 21 samples: speed and heart rate, no power. */
  run: 'python-fitparse/garmin-fenix-5-run.fit',
} as const;

const DEFAULT_COLUMNS = ['duration', 'power', 'speed', 'heart_rate'];
/** Covers the three rides (2017-06-11 to 2019-09-20). */
const RANGE = 'start=2017-01-01&end=2019-12-31';

/**
 * pyarrow's types of the documented columns. gaps.md: "UTC instants are `timestamp[ms, UTC]`, `_local`
 * columns `timestamp[ms]` without zone"; README "Analyses": metric columns "Float64, except `lap` and
 * `rpe` (int32) and `notes` (string)", mean-max `duration` "int64 s".
 */
function documentedTypes(columns: string[], meanMax = false): Record<string, string> {
  const typeOf = (column: string): string => {
    if (column === 'timestamp' || column === 'start') return 'timestamp[ms, tz=UTC]';
    if (column === 'timestamp_local') return 'timestamp[ms]';
    if (column === 'activity_id' || column === 'sport' || column === 'notes') return 'string';
    if (column === 'lap' || column === 'rpe') return 'int32';
    if (column === 'duration' && meanMax) return 'int64';
    return 'double';
  };
  return Object.fromEntries(columns.map((column) => [column, typeOf(column)]));
}

async function uploadRide(stack: TestStack, token: string, key: string): Promise<string> {
  const response = await upload(stack, token, [{ name: path.basename(key), bytes: fs.readFileSync(path.join(FIXTURES, 'fit', key)) }]);
  assert.is(response.status, 202, key);
  const [accepted] = ((await response.json()) as { sources: SourceBody[] }).sources;
  const source = await settled(stack, token, accepted!.id, 60_000);
  assert.is(source.status, 'processed', `${key}: ${JSON.stringify(source.error)}`);
  assert.is(source.activity_ids.length, 1, key);
  return source.activity_ids[0]!;
}

async function post(context: Context, url: string, body: unknown, token = context.token): Promise<void> {
  const response = await fetch(`${context.stack.baseUrl}${url}`, {
    method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  assert.ok(response.ok, `POST ${url}: ${response.status} ${await response.text()}`);
}

readers.before(async (context) => {
  context.stack = await startStack({ JOB_POLL_MS: '20' });
  context.dir = tempDir('threshold-pyinterop-');
  const { userId, token } = await context.stack.userWithToken(['activities:read', 'activities:write']);
  context.token = token;
  const wellness = (await context.stack.userWithToken(['wellness:read', 'wellness:write'], { userId })).token;
  const ids = {
    power: await uploadRide(context.stack, token, RIDES.power),
    noPower: await uploadRide(context.stack, token, RIDES.noPower),
    run: await uploadRide(context.stack, token, RIDES.run),
  };

  // Records with whole values, the case JSON.stringify would write without a decimal point; the trace
  // falls inside the ride with power, so the activity answers carry it too.
  await post(context, '/api/v1/traces/', {
    timestamp: '2019-09-20T17:00:00+02:00', test_id: null, lactate: 2, rpe: 7, notes: null, power: 250, speed: 4, heart_rate: 150, vo2: 3000, tags: [], sport: null,
  });
  await post(context, '/api/v1/dailies/body_mass', { date: '2019-09-19', value: 70 }, wellness);
  await post(context, '/api/v1/profile/markers', {
    sport: 'cycling', marker: 'second_threshold', metric: 'power', value: 265, date: '2019-09-01', provenance: 'declared', pinned: null,
  });
  await post(context, '/api/v1/profile/max-efforts', {
    sport: 'running', metric: 'speed', date: '2019-09-01', duration: 1200, distance: 5000, value: null, provenance: 'declared', title: null,
  });

  // Every route that answers application/vnd.apache.parquet (sendParquet in gateway/routes), with its documented columns.
  const named = (url: string) => Object.entries(ids).reduce((text, [key, id]) => text.replaceAll(id, `{${key}}`), `GET ${url}`);
  const planned: (Omit<ParquetEntry, 'file'> & { url: string })[] = [];
  const answer = (url: string, columns: string[], extra: Partial<ParquetEntry> = {}) =>
    planned.push({ name: named(url), columns, types: documentedTypes(columns, url.includes('mean-max')), ...extra, url: `/api/v1${url}` });
  const sampled = (columns: string[]) => ['timestamp', 'timestamp_local', ...columns];
  const every = METRICS.map((metric) => `metrics=${metric}`).join('&');
  answer(`/activities/${ids.power}/data`, sampled(DEFAULT_COLUMNS), { min_rows: 8000 });
  answer(`/activities/${ids.power}/data?${every}`, sampled([...METRICS]), { min_rows: 8000 });
  // Segments carry their length: README "Analyses", "`duration` is each segment's length" (ANALYTICS.md §4).
  answer(`/activities/${ids.power}/data?metrics=power&metrics=heart_rate&segmentation_on=power`, sampled(['duration', 'power', 'heart_rate']), { min_rows: 2 });
  answer(`/activities/${ids.noPower}/data`, sampled(DEFAULT_COLUMNS), { null_columns: ['power'], min_rows: 10 });
  answer(`/activities/${ids.noPower}/data?metrics=heart_rate&metrics=power&metrics=cadence&metrics=lactate`, sampled(['heart_rate', 'power', 'cadence', 'lactate']), { null_columns: ['power', 'cadence', 'lactate'], min_rows: 10 });
  answer(`/activities/${ids.noPower}/data?${every}`, sampled([...METRICS]), { null_columns: ['power'], min_rows: 10 });
  answer(`/activities/${ids.run}/data`, sampled(DEFAULT_COLUMNS), { null_columns: ['power'], min_rows: 10 });
  const longitudinal = sampled(['activity_id', 'sport']);
  answer(`/activities/longitudinal-data?sport=cycling&${RANGE}`, [...longitudinal, ...DEFAULT_COLUMNS], { min_rows: 8000 });
  answer('/activities/longitudinal-data?sport=cycling&start=2017-01-01&end=2017-12-31', [...longitudinal, ...DEFAULT_COLUMNS], { null_columns: ['power'], min_rows: 10 });
  // "duration is always included"
  answer(`/activities/longitudinal-data?sport=running&${RANGE}&metrics=power&metrics=heart_rate`, [...longitudinal, 'duration', 'power', 'heart_rate'], { null_columns: ['power'], min_rows: 10 });
  answer(`/activities/longitudinal-data?sport=cycling&${RANGE}&metrics=power&segmentation_on=power`, [...longitudinal, 'duration', 'power'], { min_rows: 2 });
  answer(`/activities/${ids.power}/mean-max`, ['duration', 'power', 'start'], { min_rows: 10 });
  answer(`/activities/${ids.power}/mean-max?metric=speed&durations=all`, ['duration', 'speed', 'start'], { min_rows: 100 });
  answer(`/activities/${ids.noPower}/mean-max?metric=power`, ['duration', 'power', 'start']);
  answer(`/activities/${ids.run}/mean-max?metric=speed&durations=1,5,10`, ['duration', 'speed', 'start'], { min_rows: 3 });
  answer(`/activities/${ids.power}/accumulated-work-duration`, ['power', 'duration'], { min_rows: 10 });
  answer(`/activities/${ids.run}/accumulated-work-duration`, ['speed', 'duration'], { min_rows: 2 });
  answer(`/activities/longitudinal-mean-max?sport=cycling&${RANGE}`, ['duration', 'power', 'start', 'activity_id', 'sport'], { min_rows: 10 });
  answer('/activities/longitudinal-mean-max?sport=cycling&start=2019-01-01&end=2019-12-31&after=0&after=100', ['duration', 'power', 'start', 'activity_id', 'sport', 'after'], { min_rows: 10 });
  answer(`/activities/longitudinal-mean-max?sport=running&metric=speed&${RANGE}`, ['duration', 'speed', 'start', 'activity_id', 'sport'], { min_rows: 2 });
  answer(`/activities/longitudinal-accumulated-work-duration?sport=cycling&${RANGE}`, ['power', 'max', 'hard', 'medium', 'easy'], { min_rows: 1 });

  context.parquet = [];
  for (const [index, entry] of planned.entries()) {
    const response = await context.stack.get(entry.url, token);
    const bytes = Buffer.from(await response.arrayBuffer());
    assert.is(response.status, 200, `${entry.name}: ${bytes.toString('utf8', 0, 300)}`);
    assert.is(response.headers.get('content-type'), 'application/vnd.apache.parquet', entry.name);
    const file = path.join(context.dir, `answer-${index}.parquet`);
    fs.writeFileSync(file, bytes);
    const { url: _url, ...rest } = entry;
    context.parquet.push({ ...rest, file });
  }

  // The JSON answers with float fields, each with the schema /openapi.json gives its 200 answer.
  const openapi = (await (await context.stack.get('/openapi.json')).json()) as {
    paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>>;
    components: { schemas: Record<string, unknown> };
  };
  const json: [name: string, template: string, url: string, token?: string][] = [
    ['activity list (summaries, laps, traces)', '/api/v1/activities/', `/activities/?${RANGE}&limit=100`],
    ['activity with power (details)', '/api/v1/activities/{activity_id}', `/activities/${ids.power}`],
    ['activity without power (details)', '/api/v1/activities/{activity_id}', `/activities/${ids.noPower}`],
    ['latest activity', '/api/v1/activities/latest', '/activities/latest'],
    ['traces', '/api/v1/traces/', '/traces/'],
    ['dailies', '/api/v1/dailies/{measure}', '/dailies/body_mass?start=2019-09-18&end=2019-09-21&interpolate=false', wellness],
    ['markers', '/api/v1/profile/markers', '/profile/markers'],
    ['zones (power, seven_zone)', '/api/v1/profile/zones', '/profile/zones?sport=cycling&quantity=power&zone_system=seven_zone&date=2019-09-20'],
    ['max efforts', '/api/v1/profile/max-efforts', '/profile/max-efforts'],
  ];
  context.json = [];
  for (const [index, [name, template, url, bearer]] of json.entries()) {
    const response = await context.stack.get(`/api/v1${url}`, bearer ?? token);
    const text = await response.text();
    assert.is(response.status, 200, `${name}: ${text.slice(0, 300)}`);
    const schema = openapi.paths[template]?.get?.responses['200']?.content?.['application/json']?.schema;
    assert.ok(schema, `/openapi.json has a JSON 200 answer for GET ${template}`);
    const file = path.join(context.dir, `answer-${index}.json`);
    fs.writeFileSync(file, text);
    context.json.push({ name: `${name}: ${named(url)}`, file, schema });
  }

  const manifest = path.join(context.dir, 'manifest.json');
  fs.writeFileSync(manifest, JSON.stringify({ parquet: context.parquet, json: context.json, components: openapi.components.schemas }));
  const run = spawnSync(PYTHON, [SCRIPT, manifest], { encoding: 'utf8', timeout: 5 * 60_000, maxBuffer: 64 << 20 });
  assert.is(run.status, 0, `${path.basename(SCRIPT)} failed: ${run.error?.message ?? ''}${run.stderr}`);
  context.report = JSON.parse(run.stdout) as Report;
  const versions = Object.entries(context.report.versions).map(([name, version]) => `${name} ${version}`).join(', ');
  process.stdout.write(`\n  read with ${versions}\n`);
});

readers.after(async (context) => {
  await context.stack?.close();
  if (context.dir) fs.rmSync(context.dir, { recursive: true, force: true });
});

/** One line per answer on the run's output, then every problem as the assertion's message. */
function verdict(kind: string, results: [string, { problems: string[] }, string][]): void {
  for (const [name, result, detail] of results) process.stdout.write(`\n  ${result.problems.length === 0 ? 'ok  ' : 'FAIL'} ${kind} ${name} (${detail})`);
  process.stdout.write('\n  ');
  const problems = results.flatMap(([name, result]) => result.problems.map((problem) => `${name}: ${problem}`));
  assert.equal(problems, [], `\n${problems.join('\n')}\n`);
}

readers('every Parquet answer reads in pyarrow, polars, pandas and DuckDB with its documented columns and the same row count; a metric the activity lacks is a null column', ({ parquet, report }) => {
  assert.equal(Object.keys(report.parquet).sort(), parquet.map((entry) => entry.name).sort(), 'the script read every file');
  verdict('parquet', parquet.map((entry) => {
    const result = report.parquet[entry.name]!;
    return [entry.name, result, `${result.rows} rows in ${result.readers.join(', ')}`];
  }));
});

readers('every float-typed field of the JSON answers is a float that polars, pyarrow and pandas take as Float64, strictly; integer-typed fields stay integers', ({ json, report }) => {
  assert.equal(Object.keys(report.json).sort(), json.map((entry) => entry.name).sort(), 'the script read every answer');
  verdict('json', json.map((entry) => {
    const result = report.json[entry.name]!;
    const count = (fields: Record<string, number>) => `${Object.values(fields).reduce((sum, n) => sum + n, 0)} in ${Object.keys(fields).length} fields`;
    return [entry.name, result, `${result.rows} rows; float values ${count(result.float_fields)}, integer values ${count(result.integer_fields)}`];
  }));
  const floatFields = new Set(Object.values(report.json).flatMap((result) => Object.keys(result.float_fields).filter((field) => result.float_fields[field]! > 0)));
  // The answers do carry the fields issue 23 names (lap distances, summaries, dailies, markers, traces' speed/lactate/vo2).
  for (const field of ['distance', 'summary.power.mean', 'laps[].distance.sum', 'traces[].vo2', 'value', 'lactate', 'speed', 'vo2', 'zones[].upper']) {
    assert.ok(floatFields.has(field), `a float value was checked at ${field} (checked: ${[...floatFields].sort().join(', ')})`);
  }
});

readers('the script reports a whole float written as an integer, an integer written as a float and a missing or mistyped column', ({ dir, parquet }) => {
  const file = path.join(dir, 'deviations.json');
  fs.writeFileSync(file, '[{"distance": 4998, "lap": {"sum": 2499}, "power": 250}, {"distance": 4998.5, "lap": {"sum": 1.5}, "power": 250.0}]');
  const schema = {
    type: 'array',
    items: { type: 'object', properties: { distance: { type: ['number', 'null'] }, lap: { $ref: '#/components/schemas/Lap' }, power: { anyOf: [{ type: 'integer' }, { type: 'null' }] } } },
  };
  const noPower = parquet.find((entry) => entry.null_columns?.includes('power'))!;
  const manifest = path.join(dir, 'deviations-manifest.json');
  fs.writeFileSync(manifest, JSON.stringify({
    parquet: [{ ...noPower, name: 'missing', columns: [...noPower.columns, 'smo2'], types: { ...noPower.types, timestamp: 'timestamp[s, tz=UTC]' } }],
    json: [{ name: 'deviations', file, schema }],
    components: { Lap: { type: 'object', properties: { sum: { type: 'number' } } } },
  }));
  const run = spawnSync(PYTHON, [SCRIPT, manifest], { encoding: 'utf8', timeout: 60_000 });
  assert.is(run.status, 0, run.stderr);
  const report = JSON.parse(run.stdout) as Report;
  const problems = [...report.parquet.missing!.problems, ...report.json.deviations!.problems].join('\n');
  for (const expected of [
    "pyarrow columns", "'smo2'])", 'polars columns', 'pandas columns', 'duckdb columns', 'pyarrow types timestamp as timestamp[ms, tz=UTC], documented timestamp[s, tz=UTC]',
    'distance: 1 of 2 values are JSON integers (e.g. 4998)', 'distance: polars raises TypeError', 'lap.sum: 1 of 2 values are JSON integers (e.g. 2499)',
    'power: 1 of 2 values are JSON floats (e.g. 250.0)', 'power: polars strict Int64 raises TypeError',
  ]) assert.ok(problems.includes(expected), `reported: ${expected}\n${problems}`);
});

readers.run();
