/**
 * The analysis RPCs over real gRPC on the real engine and an in-memory store, with activities inserted
 * directly (test/support/activities.ts): table formats, every INVALID_ARGUMENT the proto documents, and
 * the analysis caches — computed when missing, recomputed when stale, brought up to date by the backfill,
 * and never paired with another series when ingest races a computation.
 */
import { status, type ServiceError } from '@grpc/grpc-js';
import { DataType, TimeUnit, tableFromIPC, type Timestamp } from 'apache-arrow';
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { decodeAnalysis } from '../../engine/analysis/analysis-codec.js';
import { curveAt, exactFromCache, meanMaxCurve, prefixOf } from '../../engine/analysis/curves.js';
import { ANALYSIS_VERSION, cacheGrid } from '../../engine/analysis/activity-analysis.js';
import { DEFAULT_DURATIONS, fullGrid } from '../../engine/kernels/duration-grid.js';
import { random } from '../support/kernels.js';
import { errorCodeOf } from '../../engine/error-codes.js';
import { createPool, type EnginePool } from '../../engine/pool/pool.js';
import {
  AnalysisMemo, ENTRY_OVERHEAD_BYTES, answerMemo, cachedPartBytes, derivedKey, loadCurvesAndHistograms, refreshAnalysis,
} from '../../engine/service/analysis-cache.js';
import { ANALYSIS_BATCH_JOB, ANALYSIS_PLAN_JOB, analysisBatchHandler, analysisPlanHandler } from '../../engine/jobs/analysis-backfill.js';
import { newJob } from '../../storage/jobs.js';
import type { ActivityRecord, Store } from '../../storage/store.js';
import { insertActivity } from '../support/activities.js';
import { user } from '../storage/records.js';
import { callUnary, openTestStore, silentLogger, startTestEngine, statusName, type CallOutcome, type TestEngine } from './support.js';

const USER = 'u1';
const DAY = 86_400_000;
const T0 = Date.UTC(2024, 4, 1, 6);

let store: Store;
let engine: TestEngine;
let pool: EnginePool;
let rides: ActivityRecord[] = [];

interface TableMessage { data: Uint8Array; rows: string }

/** A one-hour ride at 1 Hz: a steady level with a 5-minute effort starting at `effortAt` s, and distance. */
function ride(day: number, level: number, effortAt: number) {
  return insertActivity(store, USER, {
    sport: 'cycling.road',
    start: T0 + day * DAY,
    series: {
      rows: 3600,
      metrics: { power: (i) => (i >= effortAt && i < effortAt + 300 ? level + 150 : level), distance: (i) => i * 9 },
    },
  });
}

test.before(async () => {
  store = await openTestStore();
  // The analysis backfill walks users, then each one's activities (activities are sharded by user).
  await store.users.insert(user(USER));
  // No background jobs: the tests watch caches being computed (or not) by the calls and the backfill's handlers themselves.
  engine = await startTestEngine(store, { config: { jobs: false } });
  pool = createPool({ threads: 1 });
  rides = [await ride(0, 200, 600), await ride(1, 210, 1200), await ride(2, 190, 1800)];
});

test.after(async () => {
  await engine.close();
  await pool.destroy();
  await store.close();
});

function call(method: string, request: object): Promise<CallOutcome<TableMessage>> {
  return callUnary<TableMessage>(engine.client, method, request);
}

async function table(method: string, request: object) {
  const outcome = await call(method, { format: 'ARROW_IPC', ...request });
  if (!outcome.ok) throw new Error(`${method}: ${outcome.error.details}`);
  return tableFromIPC(outcome.value.data);
}

async function refused(method: string, request: object): Promise<ServiceError> {
  const outcome = await call(method, request);
  assert.not.ok(outcome.ok, `${method} ${JSON.stringify(request)} should fail`);
  return (outcome as { error: ServiceError }).error;
}

test('GetMeanMax answers with duration int64 seconds, the metric as float64 and start as timestamp[ms, UTC]', async () => {
  const result = await table('GetMeanMax', { user_id: USER, activity_id: rides[0]!.id, durations: [300, 1] });
  assert.equal(result.schema.fields.map((field) => field.name), ['duration', 'power', 'start']);
  assert.ok(DataType.isInt(result.schema.fields[0]!.type) && result.schema.fields[0]!.type.bitWidth === 64);
  const start = result.schema.fields[2]!.type as Timestamp;
  assert.is(start.unit, TimeUnit.MILLISECOND);
  assert.is(start.timezone, 'UTC');
  assert.equal(result.toArray().map((row) => row.toJSON()), [
    { duration: 1n, power: 350, start: T0 + 600_000 },
    { duration: 300n, power: 350, start: T0 + 600_000 },
  ]);
});

test('every malformed analysis request is INVALID_ARGUMENT naming the problem', async () => {
  const id = rides[0]!.id;
  const cases: [string, object, RegExp][] = [
    ['GetMeanMax', { user_id: USER, activity_id: id, metric: 'watts' }, /metric must be power or speed/],
    ['GetMeanMax', { user_id: USER, activity_id: id, durations: [0] }, /duration 0/],
    ['GetMeanMax', { user_id: USER, activity_id: id, durations: [5], all_durations: true }, /not both/],
    ['GetMeanMax', { user_id: '', activity_id: id }, /user_id must not be empty/],
    ['GetAccumulatedWorkDuration', { user_id: USER, activity_id: id, metric: 'cadence' }, /metric/],
    ['GetLongitudinalMeanMax', { user_id: USER, sports: [] }, /at least one sport/],
    ['GetLongitudinalMeanMax', { user_id: USER, sports: ['cycling'], start_date: '2024-01-01', end_date: '2024-12-31', after: [1, 2, 3, 4, 5, 6] }, /at most 5 after states/],
    ['GetLongitudinalMeanMax', { user_id: USER, sports: ['cycling'], start_date: '2024-01-01', end_date: '2024-12-31', after: [-1] }, /after -1/],
    ['GetLongitudinalMeanMax', { user_id: USER, sports: ['cycling'], after: [10] }, /need start_date and end_date/],
    ['GetLongitudinalMeanMax', { user_id: USER, sports: ['cycling'], start_date: '2023-05-01', end_date: '2024-05-02', after: [10] }, /at most one year/],
    ['GetLongitudinalAccumulatedWorkDuration', { user_id: USER, start_date: '2024-13-01' }, /not a date/],
  ];
  for (const [method, request, message] of cases) {
    const error = await refused(method, request);
    assert.is(statusName(error.code), 'INVALID_ARGUMENT', `${method}: ${error.details}`);
    assert.match(error.details, message);
  }
  // Exactly one year is allowed.
  assert.ok((await call('GetLongitudinalMeanMax', { user_id: USER, sports: ['cycling'], start_date: '2023-05-02', end_date: '2024-05-02', after: [10] })).ok);
});

test("another user's activity is NOT_FOUND; an activity without its series is FAILED_PRECONDITION series_missing", async () => {
  const error = await refused('GetMeanMax', { user_id: 'someone-else', activity_id: rides[0]!.id });
  assert.is(error.code, status.NOT_FOUND);
  const orphan = await ride(30, 100, 0);
  await store.blobs.delete(orphan.series_key);
  const missing = await refused('GetAccumulatedWorkDuration', { user_id: USER, activity_id: orphan.id });
  assert.is(error.code, status.NOT_FOUND);
  assert.is(missing.code, status.FAILED_PRECONDITION);
  assert.is(errorCodeOf(missing), 'series_missing');
  await store.activities.deleteMany({ user_id: USER, id: orphan.id });
});

test('a longitudinal call computes missing caches, stores them, and names them in the records', async () => {
  const before = await store.activities.findOne({ id: rides[1]!.id, user_id: USER });
  assert.is(before!.analysis_key, undefined);
  const result = await table('GetLongitudinalMeanMax', { user_id: USER, sports: ['cycling'], durations: [300] });
  // The 5-minute effort of the second ride (360 W) is the best.
  assert.equal(result.toArray().map((row) => row.toJSON()), [
    { duration: 300n, power: 360, start: T0 + DAY + 1_200_000, activity_id: rides[1]!.id, sport: 'cycling.road' },
  ]);
  for (const { id } of rides) {
    const record = await store.activities.findOne({ id, user_id: USER });
    assert.is(record!.analysis_version, ANALYSIS_VERSION);
    assert.ok(await store.blobs.get(record!.analysis_key!), 'the cache blob exists');
  }
});

test('a duration between cached grid points is interpolated from each cache; ties go to the earliest activity', async () => {
  const record = (await store.activities.findOne({ id: rides[0]!.id, user_id: USER }))!;
  const cached = decodeAnalysis((await store.blobs.get(record.analysis_key!))!);
  const expected = curveAt(cached.curves.power!, 1234)!;
  const result = await table('GetLongitudinalMeanMax', { user_id: USER, sports: ['cycling.road'], end_date: '2024-05-01', durations: [1234] });
  assert.equal(result.toArray().map((row) => row.toJSON()), [
    { duration: 1234n, power: expected.value, start: expected.start, activity_id: rides[0]!.id, sport: 'cycling.road' },
  ]);
  // Two identical rides: the earlier one holds the best.
  const twinA = await ride(100, 250, 0);
  const twinB = await ride(101, 250, 0);
  const tie = await table('GetLongitudinalMeanMax', { user_id: USER, sports: ['cycling'], start_date: '2024-08-09', durations: [60] });
  assert.is(tie.getChild('activity_id')!.get(0), twinA.id);
  await store.activities.deleteMany({ user_id: USER, id: { $in: [twinA.id, twinB.id] } });
});

test('a cache of another algorithm version is recomputed and the old blob deleted; the record gets the end and duration of its series', async () => {
  const record = (await store.activities.findOne({ id: rides[2]!.id, user_id: USER }))!;
  const oldKey = record.analysis_key!;
  // As stored before the last sample held 1 s: the ride ended at its last sample, 3,599 s after its first.
  const lastSample = record.start + 3599 * 1000;
  await store.activities.updateOne(
    { user_id: USER, id: record.id }, { set: { analysis_version: ANALYSIS_VERSION - 1, end: lastSample, duration_s: 3599 } },
  );
  await table('GetLongitudinalMeanMax', { user_id: USER, sports: ['cycling'], durations: [60] });
  const after = (await store.activities.findOne({ id: record.id, user_id: USER }))!;
  assert.is(after.analysis_version, ANALYSIS_VERSION);
  assert.is.not(after.analysis_key, oldKey);
  assert.is(await store.blobs.get(oldKey), null);
  assert.equal([after.end, after.duration_s], [lastSample + 1000, 3600], '3,600 samples at 1 Hz last 3,600 s, as their series');
});

test('curves and histograms read together (the models\' 15-minute rule) compute a stale cache once, and the histogram holds the recorded time', async () => {
  const record = (await store.activities.findOne({ id: rides[0]!.id, user_id: USER }))!;
  await store.activities.updateOne({ user_id: USER, id: record.id }, { set: { analysis_version: ANALYSIS_VERSION - 1 } });
  const stale = (await store.activities.findOne({ id: record.id, user_id: USER }))!;
  let computations = 0;
  const counting = { run: (...args: Parameters<EnginePool['run']>) => { computations++; return pool.run(...args); } } as unknown as EnginePool;
  const { curves, histograms } = await loadCurvesAndHistograms({ store, pool: counting, memo: new AnalysisMemo(1 << 20) }, [stale], 'power', new AbortController().signal);
  assert.is(computations, 1);
  assert.ok(curves[0]!.durations.length > 0);
  assert.is(histograms[0]!.reduce((sum, ms) => sum + ms, 0), 3_600_000, 'one hour recorded');
});

test('a blob of the first cache layout under a record that claims the current version is recomputed, never misread', async () => {
  const record = (await store.activities.findOne({ id: rides[1]!.id, user_id: USER }))!;
  const header = new TextEncoder().encode(JSON.stringify({ version: 1, entries: [] }));
  const legacy = new Uint8Array(16 + header.length);
  legacy.set(new TextEncoder().encode('THA1'), 0);
  new DataView(legacy.buffer).setUint32(4, header.length, true);
  legacy.set(header, 8);
  const legacyKey = `analysis:${record.id}:legacy`;
  await store.blobs.put(legacyKey, legacy, { userId: USER });
  await store.activities.updateOne({ user_id: USER, id: record.id }, { set: { analysis_key: legacyKey } });
  const result = await table('GetLongitudinalMeanMax', { user_id: USER, sports: ['cycling'], durations: [300] });
  assert.is(result.getChild('power')!.get(0), 360, "the second ride's 5-minute effort, from its recomputed cache");
  const after = (await store.activities.findOne({ id: record.id, user_id: USER }))!;
  assert.is.not(after.analysis_key, legacyKey);
  assert.is(await store.blobs.get(legacyKey), null, 'the legacy blob is deleted');
  assert.is(decodeAnalysis((await store.blobs.get(after.analysis_key!))!).version, ANALYSIS_VERSION);
});

test('a computation that loses a race with ingest leaves the record alone and deletes its own blob', async () => {
  const record = (await store.activities.findOne({ id: rides[0]!.id, user_id: USER }))!;
  // Ingest replaced the activity (and its cache key) after this computation read the record.
  const stale = { ...record, analysis_key: 'analysis:replaced-meanwhile' };
  const before = await store.blobs.deletePrefix(`analysis:${record.id}:`);
  assert.ok(before >= 1);
  await refreshAnalysis({ store, pool }, stale, new AbortController().signal);
  const after = (await store.activities.findOne({ id: record.id, user_id: USER }))!;
  assert.is(after.analysis_key, record.analysis_key, 'the record still names the key ingest wrote');
  assert.is(await store.blobs.deletePrefix(`analysis:${record.id}:`), 0, 'the losing computation left no blob behind');
});

test('after a version bump the plan enqueues keyed batches of the stale activities, and the batches bring each up to date once', async () => {
  const fresh = [await ride(200, 150, 0), await ride(201, 160, 0), await ride(202, 170, 0)];
  const version = ANALYSIS_VERSION + 1;
  const deps = { store, pool, logger: silentLogger(), version };
  const plan = { ...newJob(ANALYSIS_PLAN_JOB, null, `${ANALYSIS_PLAN_JOB}:v${version}`, { version, user: '', after: '' }), lease_owner: 'test' };
  const signal = new AbortController().signal;
  let again = await analysisPlanHandler(deps).run(plan, signal);
  while (again) again = await analysisPlanHandler(deps).run(plan, signal); // the plan re-queues itself while batches are many
  const batches = await store.jobs.find({ kind: ANALYSIS_BATCH_JOB, key: { $prefix: `${ANALYSIS_BATCH_JOB}:v${version}:` } });
  const total = await store.activities.count({ user_id: USER });
  assert.is(batches.length, 1, `${total} activities fit one batch`);
  assert.is((batches[0]!.payload.activities as unknown[]).length, total);
  await analysisPlanHandler(deps).run(plan, signal);
  assert.is(await store.jobs.count({ kind: ANALYSIS_BATCH_JOB, key: { $prefix: `${ANALYSIS_BATCH_JOB}:v${version}:` } }), 1, 'running the plan again enqueues nothing twice');
  const computed: string[] = [];
  const put = store.blobs.put.bind(store.blobs);
  store.blobs.put = (key, bytes, owner) => (key.startsWith('analysis:') && computed.push(key), put(key, bytes, owner));
  try {
    await analysisBatchHandler(deps).run(batches[0]!, signal);
    await analysisBatchHandler(deps).run(batches[0]!, signal); // a batch run again (its lease lost) skips what is current
  } finally {
    store.blobs.put = put;
  }
  assert.is(computed.length, total, 'each activity computed once');
  for (const { id } of [...fresh, ...rides]) {
    const record = (await store.activities.findOne({ id, user_id: USER }))!;
    assert.is(record.analysis_version, version, id);
    assert.ok(await store.blobs.get(record.analysis_key!));
  }
  await store.jobs.deleteMany({ kind: { $in: [ANALYSIS_PLAN_JOB, ANALYSIS_BATCH_JOB] } });
  await store.activities.deleteMany({ user_id: USER, id: { $in: fresh.map((record) => record.id) } });
});

test('GetLongitudinalAccumulatedWorkDuration defaults to power for cycling filters and to speed otherwise', async () => {
  const power = await table('GetLongitudinalAccumulatedWorkDuration', { user_id: USER, sports: ['cycling'] });
  assert.equal(power.schema.fields.map((field) => field.name), ['power', 'max', 'hard', 'medium', 'easy']);
  const speed = await table('GetLongitudinalAccumulatedWorkDuration', { user_id: USER, sports: ['running'] });
  assert.equal(speed.schema.fields.map((field) => field.name), ['speed', 'max', 'hard', 'medium', 'easy']);
  assert.is(speed.numRows, 0, 'no running activity: no rows');
});

test('a cached curve read exactly equals the curve computed at those durations: defaults, all, grid points, beyond the longest section [random rides with sections]', () => {
  const next = random(27);
  for (let trial = 0; trial < 20; trial++) {
    // Sections of random lengths (one may be shorter than the others' grid points), ride-like whole watts.
    const lengths = Array.from({ length: 1 + Math.floor(next() * 3) }, () => 1 + Math.floor(next() * (trial < 5 ? 200 : 9000)));
    const sectionStarts = Int32Array.from([0, ...lengths.map((_, k) => lengths.slice(0, k + 1).reduce((a, b) => a + b, 0))]);
    const n = sectionStarts[sectionStarts.length - 1]!;
    const values = Float64Array.from({ length: n }, () => (next() < 0.1 ? 0 : Math.round(150 + 250 * next() * next())));
    const grid = { length: n, sectionStarts, sectionAnchors: Float64Array.from(lengths, (_, k) => 1.7e12 + k * 7.2e6), coverage: new Float64Array(n).fill(1000) };
    const series = { grid, power: values, speed: null };
    const prefix = prefixOf(values);
    const longest = Math.max(...lengths);
    const cached = meanMaxCurve(series, prefix, cacheGrid(longest));
    const onGrid = fullGrid(longest).filter(() => next() < 0.2);
    for (const durations of [Int32Array.from(DEFAULT_DURATIONS), Int32Array.from([...onGrid, longest + 1, 100_000])]) {
      assert.equal(exactFromCache(cached, durations), meanMaxCurve(series, prefix, durations), `trial ${trial}`);
    }
    assert.equal(exactFromCache(cached, null), meanMaxCurve(series, prefix, fullGrid(longest)), `trial ${trial}: all`);
    const between = fullGrid(longest).find((d, k, all) => all[k + 1] !== undefined && all[k + 1]! - d > 1);
    if (between !== undefined) assert.is(exactFromCache(cached, Int32Array.from([between + 1])), null, `trial ${trial}: ${between + 1} s is computed from the series`);
  }
  const empty = { durations: new Int32Array(0), values: new Float64Array(0), starts: new Float64Array(0) };
  assert.equal(exactFromCache(empty, Int32Array.from(DEFAULT_DURATIONS)), empty, 'no section: every duration left out');
});

test('the answer memory counts each file with its question, so long duration lists cannot overfill it', () => {
  const answers = answerMemo(10_000);
  const question = `analysis:a:1#mean-max.power.parquet.${Array.from({ length: 500 }, (_, k) => k + 1).join(',')}`;
  answers.set(question, { data: new Uint8Array(2000), rows: 19 });
  assert.equal(answers.size, { entries: 1, bytes: 2000 + 2 * question.length + ENTRY_OVERHEAD_BYTES });
  answers.set(`${question},501`, { data: new Uint8Array(2000), rows: 19 });
  assert.is(answers.size.entries, 1, 'past the budget the older answer went');
  assert.is(derivedKey({ analysis_key: 'analysis:a:1', analysis_version: ANALYSIS_VERSION }, 'awd.power.parquet'), 'analysis:a:1#awd.power.parquet');
  assert.is(derivedKey({ analysis_key: 'analysis:a:1', analysis_version: ANALYSIS_VERSION - 1 }, 'awd.power.parquet'), null, 'a stale cache keeps nothing');
  assert.is(derivedKey({ analysis_version: ANALYSIS_VERSION }, 'awd.power.parquet'), null, 'nor does an activity without one');
});

test('the analysis memory counts each part by the buffers it holds and drops the least recently used past its budget', () => {
  const curve = (n: number) => ({ durations: new Int32Array(n), values: new Float64Array(n), starts: new Float64Array(n) });
  assert.is(cachedPartBytes(curve(100)), 100 * (4 + 8 + 8) + ENTRY_OVERHEAD_BYTES);
  assert.is(cachedPartBytes(new Float64Array(50)), 400 + ENTRY_OVERHEAD_BYTES);
  assert.is(cachedPartBytes(null), ENTRY_OVERHEAD_BYTES, '"the activity has none" is held too');
  const shared = new Float64Array(30);
  assert.is(cachedPartBytes({ durations: new Int32Array(10), values: shared.subarray(0, 10), starts: shared.subarray(10, 20) }), 40 + 240 + ENTRY_OVERHEAD_BYTES,
    'views count their whole buffer, once');

  const each = cachedPartBytes(curve(100)); // 3,024 bytes
  const memo = new AnalysisMemo(3 * each + 10);
  memo.set('a', curve(100));
  memo.set('b', curve(100));
  memo.set('c', curve(100));
  assert.equal(memo.size, { entries: 3, bytes: 3 * each });
  assert.ok(memo.get('a'), 'a read makes a the most recent');
  memo.set('d', curve(100));
  assert.equal(memo.size, { entries: 3, bytes: 3 * each });
  assert.is(memo.get('b'), undefined, 'the least recently used went first');
  assert.ok(memo.get('a') && memo.get('c') && memo.get('d'));
  memo.set('big', curve(250));
  assert.equal(memo.size, { entries: 2, bytes: each + cachedPartBytes(curve(250)) }, 'a large part evicts as many as its bytes need (a, then c)');
  assert.ok(memo.get('d') && memo.get('big'));
  memo.set('huge', curve(1000));
  assert.is(memo.get('huge'), undefined, 'a part larger than the budget is not kept');
  memo.set('none', null);
  assert.is(memo.get('none'), null);
  assert.equal([memo.hits, memo.misses], [7, 2]);
});

test.run();
