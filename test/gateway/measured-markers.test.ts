/**
 * services/measured-markers.ts: a test's results become measured marker rows. Hand-made test documents
 * (the assumed shape named in that file) go straight into an in-memory store; the rows are checked value
 * by value, with their deterministic ids, root sports, local dates and filters.
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { openStore } from '../../storage/open-store.js';
import type { JsonObject, MarkerRecord, Store, TestRecord } from '../../storage/store.js';
import { measuredMarkerId, measuredMarkers } from '../../gateway/services/measured-markers.js';

const measured = suite<{ store: Store }>('measured markers');
const T0 = Date.UTC(2024, 2, 1, 23, 30); // 2024-03-01T23:30Z

function testDocument(id: string, userId: string, results: JsonObject | null, over: Partial<TestRecord> = {}): TestRecord {
  return {
    id, user_id: userId, sport: 'cycling.road', start: T0, start_offset: 120, local_date: '2024-03-02', end: T0 + 3 * 3_600_000, end_offset: 120,
    title: 'Step test', results, tags: [], created_by: 'user', app_metadata: {}, created_at: T0 + 5_000, updated_at: T0 + 5_000, ...over,
  };
}

const NO_RESULTS = {
  first_threshold: null, second_threshold: null, fatmax: null, lt1: null, lt2: null, vt1: null, vt2: null, mlss: null,
  vo2max: null, vo2peak: null, vlamax: null, heart_rate_max: null, critical_power: null, critical_speed: null,
  w_prime: null, d_prime: null, economy: null, efficiency: null,
};

const byKey = (rows: MarkerRecord[]) => rows.map((row) => `${row.marker}/${row.metric}=${row.value}`).sort();

measured.before(async (context) => {
  context.store = await openStore({ mongodbUri: null, sqliteFile: ':memory:' });
});
measured.after(async (context) => {
  await context.store.close();
});

measured('maps every non-null marker value of a test to one row, and nothing else', async ({ store }) => {
  await store.tests.insert(testDocument('t-full', 'u-full', {
    ...NO_RESULTS,
    lt1: { power: 183, speed: null, heart_rate: 141, lactate: 1.9, vo2: 2650.5 },
    lt2: { power: 262, speed: 0, heart_rate: 168, lactate: 4.1, vo2: null },
    vt2: null,
    vo2max: 4120, vo2peak: 4200, vlamax: 0.45, heart_rate_max: 192, critical_power: 271, critical_speed: 4.6,
    w_prime: 18.4, d_prime: 210, economy: 0.21, efficiency: 22.5,
  }));
  const rows = await measuredMarkers(store, 'u-full');
  assert.equal(byKey(rows), [
    'critical_power/power=271', 'critical_speed/speed=4.6', 'd_prime/speed=210', 'heart_rate_max/heart_rate=192',
    'lt1/heart_rate=141', 'lt1/power=183', 'lt1/vo2=2650.5', 'lt2/heart_rate=168', 'lt2/power=262',
    'vo2max/vo2=4120', 'w_prime/power=18.4',
  ], 'lactate, vo2peak, vlamax, economy, efficiency and a zero speed are not markers');
  const lt1Power = rows.find((row) => row.marker === 'lt1' && row.metric === 'power')!;
  assert.equal(lt1Power, {
    id: measuredMarkerId('t-full', 'lt1', 'power'), user_id: 'u-full', sport: 'cycling', marker: 'lt1', metric: 'power', value: 183,
    date: '2024-03-02', provenance: 'measured', pinned: false, source: null, application_id: null, activity_id: null,
    test_id: 't-full', created_at: T0 + 5_000,
  }, "a sub-sport counts for its root; the date is the test's local start date (23:30Z at +02:00 is the next day)");
  assert.match(lt1Power.id, /^[0-9a-f]{16}$/);
  assert.equal((await measuredMarkers(store, 'u-full')).map((row) => row.id), rows.map((row) => row.id), 'ids are stable across reads');
  assert.is(new Set(rows.map((row) => row.id)).size, rows.length, 'ids are distinct');
});

measured('leaves out values no marker row may hold: wrong units, non-numbers, non-positive values', async ({ store }) => {
  await store.tests.insert(testDocument('t-odd', 'u-odd', {
    ...NO_RESULTS,
    w_prime: 21_500, vo2max: 55, heart_rate_max: -1, critical_power: '300' as unknown as number,
    fatmax: { power: 150, speed: null, heart_rate: null, lactate: null, vo2: 3.1 },
    mlss: [240] as unknown as JsonObject,
  }));
  assert.equal(byKey(await measuredMarkers(store, 'u-odd')), ['fatmax/power=150']);
});

measured('answers no rows for a test without results, and only the asked user\'s tests', async ({ store }) => {
  await store.tests.insert(testDocument('t-empty', 'u-empty', null));
  await store.tests.insert(testDocument('t-bare', 'u-empty', { ...NO_RESULTS }));
  assert.equal(await measuredMarkers(store, 'u-empty'), []);
  assert.equal(await measuredMarkers(store, 'nobody'), []);
});

measured('names the app that created the test, and nobody for the person', async ({ store }) => {
  await store.tests.insert(testDocument('t-app', 'u-app', { ...NO_RESULTS, heart_rate_max: 188 }, { created_by: 'app-1' }));
  await store.tests.insert(testDocument('t-null', 'u-app', { ...NO_RESULTS, heart_rate_max: 187 }, { created_by: null }));
  const rows = await measuredMarkers(store, 'u-app');
  assert.equal(rows.map((row) => [row.value, row.application_id]).sort(), [[187, null], [188, 'app-1']]);
});

measured('filters by root sport, marker name and inclusive local dates', async ({ store }) => {
  const day = 86_400_000;
  await store.tests.insert(testDocument('f-ride', 'u-filter', { ...NO_RESULTS, critical_power: 280, heart_rate_max: 190 }));
  await store.tests.insert(testDocument('f-run', 'u-filter', { ...NO_RESULTS, critical_speed: 4.4 }, { sport: 'running.trail', start: T0 + 10 * day, start_offset: -300 }));
  const values = async (filter: Parameters<typeof measuredMarkers>[2]) => byKey(await measuredMarkers(store, 'u-filter', filter));
  assert.equal(await values({ sports: ['running'] }), ['critical_speed/speed=4.4']);
  assert.equal(await values({ sports: ['cycling.road'] }), [], 'rows carry root sports only');
  assert.equal(await values({ markers: ['heart_rate_max', 'critical_speed'] }), ['critical_speed/speed=4.4', 'heart_rate_max/heart_rate=190']);
  assert.equal(await values({ start: '2024-03-02', end: '2024-03-02' }), ['critical_power/power=280', 'heart_rate_max/heart_rate=190']);
  assert.equal(await values({ end: '2024-03-01' }), [], 'the local date, not the UTC date, is filtered');
  // 2024-03-11T23:30Z at −05:00 is 2024-03-11 locally.
  assert.equal(await values({ start: '2024-03-11' }), ['critical_speed/speed=4.4']);
  assert.equal(await values({ start: '2024-03-12' }), []);
});

measured.run();
