/**
 * The training-load extension endpoints on the real stack (upload → ingest → analysis cache → GetTrainingLoad
 * / GetActivityNumbers → HTTP): ~60 days of CSV and FIT rides and runs generated here, markers and dailies declared
 * through the API, every number checked against a SLOW REFERENCE written plainly below from the raw samples
 * (the canonical 1 s bins by the §1 hold rule, the 30 s fourth-power mean, the loads, then the exponential
 * averages day by day); a marker change recomputes; no threshold → null load with its reason; another
 * user's token sees nothing; Parquet equals JSON; hostile input is a 422 in the interface's shape.
 */
import { parquetReadObjects } from 'hyparquet';
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { jsonClient, okJson, type JsonClient } from '../support/json-api.js';
import { settled, upload } from '../support/uploads.js';
import { fitActivity } from '../support/fit-writer.js';

interface Context {
  stack: TestStack;
  athlete: { token: string; api: JsonClient };
  activities: Generated[];
  /** activity id by generated index */
  ids: string[];
}

const load = suite<Context>('training load');

const FIRST_DAY = '2024-03-01';
const DAYS = 60;
const OFFSET = '+02:00';
const RESTING_HR = 50;
const MAX_HR = 190;
const THRESHOLD_HR = 165;
const THRESHOLD_SPEED = 3.5;

/** One generated activity: 1 Hz samples on whole seconds, some rows skipped (a pause). */
interface Generated {
  day: number;
  /** Local start hour: a day's activities in generated order. */
  hour: number;
  sport: string;
  /** Seconds from the start of each kept sample. */
  t: number[];
  power: number[] | null;
  heartRate: number[] | null;
  distance: number[] | null;
  /** Uploaded as a FIT file (test/support/fit-writer.ts: power 210 + i mod 50, heart rate 120 + i mod 30), starting 10:00 UTC. */
  fit?: true;
}

function addDays(date: string, n: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
}

/**
 * The season: a ride every other day (power and heart rate, with a 20 s pause), a run (distance and heart
 * rate) every fifth, a heart-rate-only ride every ninth, and two FIT rides.
 */
function season(): Generated[] {
  const out: Generated[] = [];
  for (let day = 0; day < DAYS; day++) {
    if (day % 2 === 0) {
      const seconds = 1200 + 60 * (day % 7);
      const t: number[] = [];
      for (let s = 0; s < seconds; s++) if (!(s >= 600 && s < 620)) t.push(s); // a 20 s pause
      out.push({
        day, hour: 7, sport: 'cycling.road', t,
        power: t.map((s) => Math.round(180 + 60 * Math.sin(s / 40) + day)),
        heartRate: t.map((s) => 120 + ((s + day) % 40)),
        distance: null,
      });
    }
    if (day % 5 === 1) {
      const t = Array.from({ length: 900 }, (_, s) => s);
      out.push({ day, hour: 12, sport: 'running', t, power: null, heartRate: t.map((s) => 140 + (s % 20)), distance: t.map((s) => 3 * s + 0.5 * (s % 4)) });
    }
    if (day === 3 || day === 43) {
      const t = Array.from({ length: 1500 }, (_, s) => s);
      out.push({ day, hour: 10, sport: 'cycling', t, power: t.map((s) => 210 + (s % 50)), heartRate: t.map((s) => 120 + (s % 30)), distance: null, fit: true });
    }
    if (day % 9 === 4) {
      const t = Array.from({ length: 1800 }, (_, s) => s);
      out.push({ day, hour: 17, sport: 'cycling.road', t, power: null, heartRate: t.map((s) => 130 + (s % 45)), distance: null });
    }
  }
  return out;
}

function csvOf(activity: Generated): string {
  const columns = ['timestamp', 'sport', ...(activity.power ? ['power'] : []), ...(activity.heartRate ? ['heart_rate'] : []), ...(activity.distance ? ['distance'] : [])];
  const start = Date.parse(`${addDays(FIRST_DAY, activity.day)}T${String(activity.hour).padStart(2, '0')}:00:00${OFFSET}`);
  const lines = [columns.join(',')];
  activity.t.forEach((s, i) => {
    const local = new Date(start + s * 1000 + 2 * 3600_000).toISOString().slice(0, 19);
    lines.push([
      `${local}${OFFSET}`, activity.sport,
      ...(activity.power ? [activity.power[i]] : []), ...(activity.heartRate ? [activity.heartRate[i]] : []), ...(activity.distance ? [activity.distance[i]] : []),
    ].join(','));
  });
  return `${lines.join('\n')}\n`;
}

// ---------------------------------------------------------------------------------------------------------
// The slow reference, from the raw samples.

/**
 * 1 s bins from the first sample's second to the last sample's hold end: each sample holds its value until
 * the next sample or for at most 5 s (the last for 1 s); unheld seconds are 0 and not recorded time.
 * Per bin: the value (0 when unheld) and whether it is held. `values` null: only the holds.
 */
function bins(t: number[], values: number[] | null): { value: number[]; held: boolean[] } {
  const length = t[t.length - 1]! + 1;
  const value: number[] = new Array(length).fill(0);
  const held: boolean[] = new Array(length).fill(false);
  for (let i = 0; i < t.length; i++) {
    const hold = i === t.length - 1 ? 1 : Math.min(t[i + 1]! - t[i]!, 5);
    for (let k = t[i]!; k < t[i]! + hold; k++) {
      held[k] = true;
      value[k] = values === null ? 0 : values[i]!;
    }
  }
  return { value, held };
}

/** Speed from the cumulative distance: sample i moves at (D[i+1] − D[i]) / Δt when the next sample is at most 5 s away, else 0. */
function speeds(activity: Generated): number[] {
  const { t, distance } = activity;
  return t.map((s, i) => (i + 1 < t.length && t[i + 1]! - s <= 5 ? (distance![i + 1]! - distance![i]!) / (t[i + 1]! - s) : 0));
}

function weighted(values: number[]): number {
  let sum = 0;
  let count = 0;
  for (let k = 29; k < values.length; k++) {
    let window = 0;
    for (let j = k - 29; j <= k; j++) window += values[j]!;
    sum += (window / 30) ** 4;
    count++;
  }
  return (sum / count) ** 0.25;
}

function trimpOf(heartRates: number[], held: boolean[]): number {
  let total = 0;
  heartRates.forEach((hr, k) => {
    if (!held[k]) return;
    const x = Math.min(1, Math.max(0, (hr - RESTING_HR) / (MAX_HR - RESTING_HR)));
    total += (1 / 60) * x * Math.exp(1.92 * x);
  });
  return total;
}

interface ReferenceNumbers {
  recorded: number;
  moving: number;
  workKj: number | null;
  weighted: number | null;
  load: number;
}

/** The activity's numbers with `powerThreshold` (W) for rides; runs use THRESHOLD_SPEED, heart-rate rides the heart rates. */
function reference(activity: Generated, powerThreshold: number): ReferenceNumbers {
  const { held } = bins(activity.t, null);
  const recorded = held.length;
  const moving = held.filter(Boolean).length;
  if (activity.power) {
    const power = bins(activity.t, activity.power).value;
    const w = weighted(power);
    return { recorded, moving, workKj: power.reduce((a, b) => a + b, 0) / 1000, weighted: w, load: 100 * (recorded / 3600) * (w / powerThreshold) ** 2 };
  }
  if (activity.distance) {
    const w = weighted(bins(activity.t, speeds(activity)).value);
    return { recorded, moving, workKj: null, weighted: w, load: 100 * (recorded / 3600) * (w / THRESHOLD_SPEED) ** 2 };
  }
  const heartRate = bins(activity.t, activity.heartRate).value;
  const xt = (THRESHOLD_HR - RESTING_HR) / (MAX_HR - RESTING_HR);
  return { recorded, moving, workKj: null, weighted: null, load: (100 * trimpOf(heartRate, held)) / (60 * xt * Math.exp(1.92 * xt)) };
}

/** Daily load, fitness, fatigue and form, day by day from zero. */
function referenceDays(activities: Generated[], thresholdOn: (day: number) => number): { load: number; fitness: number; fatigue: number; form: number }[] {
  const out = [];
  let fitness = 0;
  let fatigue = 0;
  for (let day = 0; day < DAYS; day++) {
    let daily = 0;
    for (const activity of activities) if (activity.day === day) daily += reference(activity, thresholdOn(day)).load;
    const form = fitness - fatigue;
    fitness = fitness + (daily - fitness) / 42;
    fatigue = fatigue + (daily - fatigue) / 7;
    out.push({ load: daily, fitness, fatigue, form });
  }
  return out;
}

function close(actual: number, expected: number, what: string, relative = 1e-9): void {
  const tolerance = relative * Math.max(1, Math.abs(expected));
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: ${actual} vs reference ${expected}`);
}

// ---------------------------------------------------------------------------------------------------------

async function declare(api: JsonClient, sport: string, marker: string, metric: string, value: number, date: string): Promise<void> {
  const response = await api.post('/api/v1/profile/markers', { sport, marker, metric, value, date, provenance: 'declared', pinned: null });
  assert.is(response.status, 200, JSON.stringify(response.body));
}

async function loadRows(context: Context, query: string, token = context.athlete.token): Promise<any[]> {
  const response = await context.stack.get(`/api/v1/ext/training-load?${query}&format=json`, token);
  assert.is(response.status, 200, await response.clone().text());
  assert.is(response.headers.get('threshold-algorithm'), 'training-load/2');
  return (await response.json()) as any[];
}

const RANGE = `start=${FIRST_DAY}&end=${addDays(FIRST_DAY, DAYS - 1)}`;

load.before(async (context) => {
  context.stack = await startStack();
  const { token } = await context.stack.userWithToken(['activities:read', 'activities:write', 'wellness:write']);
  context.athlete = { token, api: jsonClient(context.stack, token) };
  context.activities = season();
  context.ids = [];
  // Ten files per upload (the interface's limit), in generated order.
  for (let from = 0; from < context.activities.length; from += 10) {
    const files = context.activities.slice(from, from + 10).map((activity, i) => (activity.fit
      ? { name: `a${from + i}.fit`, bytes: fitActivity({ start: Date.parse(`${addDays(FIRST_DAY, activity.day)}T10:00:00Z`), seconds: activity.t.length, power: 210 }) }
      : { name: `a${from + i}.csv`, bytes: csvOf(activity) }));
    const response = await upload(context.stack, token, files);
    assert.is(response.status, 202);
    const { sources } = (await response.json()) as { sources: { id: string }[] };
    for (const source of sources) {
      const done = await settled(context.stack, token, source.id, 120_000);
      assert.is(done.status, 'processed', JSON.stringify(done.error));
      context.ids.push(done.activity_ids[0]!);
    }
  }
  const { api } = context.athlete;
  await declare(api, 'cycling', 'second_threshold', 'power', 250, FIRST_DAY);
  await declare(api, 'cycling', 'second_threshold', 'heart_rate', THRESHOLD_HR, FIRST_DAY);
  await declare(api, 'cycling', 'heart_rate_max', 'heart_rate', MAX_HR, FIRST_DAY);
  await declare(api, 'running', 'second_threshold', 'speed', THRESHOLD_SPEED, FIRST_DAY);
  await okJson(context.stack, 'POST', '/api/v1/dailies/resting_hr', token, { date: FIRST_DAY, value: RESTING_HR });
});
load.after(async (context) => {
  await context.stack.close();
});

load('each activity\'s numbers equal the reference from its raw samples: recorded and moving time, work, weighted intensity, load', async (context) => {
  for (const [index, activity] of context.activities.entries()) {
    const body = await okJson(context.stack, 'GET', `/api/v1/ext/activities/${context.ids[index]}/numbers`, context.athlete.token);
    const expected = reference(activity, 250);
    const what = `activity ${index} (${activity.sport}, day ${activity.day})`;
    assert.is(body.recorded_time_s, expected.recorded, `${what} recorded`);
    assert.is(body.moving_time_s, expected.moving, `${what} moving`);
    if (expected.workKj === null) assert.is(body.work_kj, null);
    else close(body.work_kj, expected.workKj, `${what} work`);
    if (expected.weighted === null) assert.is(body.weighted_intensity, null);
    else close(body.weighted_intensity, expected.weighted, `${what} weighted`, 1e-9);
    close(body.load, expected.load, `${what} load`, 1e-9);
    assert.is(body.load_problem, null);
    const quantity = activity.power ? 'power' : activity.distance ? 'speed' : 'heart_rate';
    assert.is(body.intensity_quantity, quantity);
    assert.equal(body.threshold, {
      marker: 'second_threshold', quantity, value: quantity === 'power' ? 250 : quantity === 'speed' ? THRESHOLD_SPEED : THRESHOLD_HR, provenance: 'declared',
    });
    if (quantity === 'heart_rate') assert.equal([body.resting_hr, body.heart_rate_max], [RESTING_HR, MAX_HR]);
  }
});

load('time in zones: seven power zones of the declared threshold from the held seconds, and every zone table sums to the moving time', async (context) => {
  const index = context.activities.findIndex((activity) => activity.power !== null);
  const activity = context.activities[index]!;
  const body = await okJson(context.stack, 'GET', `/api/v1/ext/activities/${context.ids[index]}/numbers`, context.athlete.token);
  const power = body.zones.find((entry: any) => entry.quantity === 'power');
  assert.is(power.zone_system, 'seven_zone');
  assert.is(power.problem, null);
  const { value, held } = bins(activity.t, activity.power);
  for (const zone of power.zones) {
    const seconds = value.filter((w, k) => held[k] && w >= zone.lower && (zone.upper === null || w < zone.upper)).length;
    assert.is(zone.duration_s, seconds, `zone ${zone.name}`);
  }
  assert.is(power.zones[0].lower, 0);
  const heartRate = body.zones.find((entry: any) => entry.quantity === 'heart_rate');
  assert.is(heartRate.zone_system, 'olt_i_scale');
  const below = held.filter((h, k) => h && activity.heartRate && bins(activity.t, activity.heartRate).value[k]! < heartRate.zones[0].lower).length;
  const total = heartRate.zones.reduce((sum: number, zone: any) => sum + zone.duration_s, 0);
  assert.is(total + below, body.moving_time_s, 'heart-rate zones plus the time below the first zone are the moving time');
});

load('daily load, fitness, fatigue and form equal the reference computed day by day from zero', async (context) => {
  const rows = await loadRows(context, RANGE);
  const expected = referenceDays(context.activities, () => 250);
  assert.is(rows.length, DAYS);
  rows.forEach((row, day) => {
    assert.is(row.date, addDays(FIRST_DAY, day));
    for (const key of ['load', 'fitness', 'fatigue', 'form'] as const) close(row[key], expected[day]![key], `${row.date} ${key}`);
    const ids = context.activities.flatMap((activity, i) => (activity.day === day ? [context.ids[i]!] : []));
    assert.is(row.activity_ids, ids.join(','));
    assert.is(row.activities, ids.length);
    assert.is(row.activities_without_load, 0);
  });
  // A later start keeps the history before it: the averages are the same days' values.
  const later = await loadRows(context, `start=${addDays(FIRST_DAY, 30)}&end=${addDays(FIRST_DAY, DAYS - 1)}`);
  assert.equal(later, rows.slice(30));
  // Without start the rows begin at the first activity's day.
  const open = await loadRows(context, `end=${addDays(FIRST_DAY, DAYS - 1)}`);
  assert.equal(open, rows);
});

load('the Parquet file holds exactly the JSON rows', async (context) => {
  const json = await loadRows(context, RANGE);
  const response = await context.stack.get(`/api/v1/ext/training-load?${RANGE}`, context.athlete.token);
  assert.is(response.status, 200);
  assert.is(response.headers.get('content-type'), 'application/vnd.apache.parquet');
  const rows = await parquetReadObjects({ file: await response.arrayBuffer() });
  assert.equal(rows.map((row) => ({ ...row, activities: Number(row.activities), activities_without_load: Number(row.activities_without_load) })), json);
});

load('a sport filter keeps that sport\'s loads only', async (context) => {
  const rows = await loadRows(context, `${RANGE}&sport=running`);
  const expected = referenceDays(context.activities.filter((activity) => activity.sport === 'running'), () => 250);
  rows.forEach((row, day) => close(row.fitness, expected[day]!.fitness, `${row.date} running fitness`));
});

load('a marker change recomputes: a new threshold from day 30 on changes those loads and everything after', async (context) => {
  const before = await loadRows(context, RANGE);
  await declare(context.athlete.api, 'cycling', 'second_threshold', 'power', 280, addDays(FIRST_DAY, 30));
  const after = await loadRows(context, RANGE);
  const expected = referenceDays(context.activities, (day) => (day >= 30 ? 280 : 250));
  after.forEach((row, day) => {
    for (const key of ['load', 'fitness', 'fatigue', 'form'] as const) close(row[key], expected[day]![key], `${row.date} ${key} after the change`);
  });
  assert.equal(after.slice(0, 30), before.slice(0, 30), 'days before the new value keep theirs');
  assert.ok(after[58]!.fitness < before[58]!.fitness);
  const ride = context.activities.findIndex((activity) => activity.power !== null && activity.day >= 30);
  const body = await okJson(context.stack, 'GET', `/api/v1/ext/activities/${context.ids[ride]}/numbers`, context.athlete.token);
  assert.is(body.threshold.value, 280);
  close(body.load, reference(context.activities[ride]!, 280).load, 'the ride\'s load with the new threshold');
});

load('no threshold: the load is null with its reason, and the day counts the activity without a load', async (context) => {
  const { token } = await context.stack.userWithToken(['activities:read', 'activities:write']);
  const activity = season()[0]!;
  const response = await upload(context.stack, token, [{ name: 'ride.csv', bytes: csvOf(activity) }]);
  const { sources } = (await response.json()) as { sources: { id: string }[] };
  const source = await settled(context.stack, token, sources[0]!.id, 60_000);
  const body = await okJson(context.stack, 'GET', `/api/v1/ext/activities/${source.activity_ids[0]}/numbers`, token);
  assert.is(body.load, null);
  assert.is(body.intensity_factor, null);
  assert.is(body.threshold, null);
  assert.is(body.load_problem.code, 'no_threshold');
  assert.match(body.load_problem.detail, /second_threshold \(power\)/);
  close(body.weighted_intensity, reference(activity, 250).weighted!, 'weighted without a threshold');
  const rows = await loadRows(context, `start=${FIRST_DAY}&end=${FIRST_DAY}`, token);
  assert.equal(rows, [{ date: FIRST_DAY, load: 0, fitness: 0, fatigue: 0, form: 0, activities: 1, activities_without_load: 1, activity_ids: source.activity_ids[0] }]);
});

load('without a declared threshold the map\'s modeled second_threshold on each local date is the threshold, as /profile/metabolic-map publishes it for that date', async (context) => {
  const { token } = await context.stack.userWithToken(['activities:read', 'activities:write', 'wellness:write']);
  await okJson(context.stack, 'POST', '/api/v1/dailies/body_mass', token, { date: FIRST_DAY, value: 70 });
  // A second body mass later on: the dates between read interpolated values, each date its own.
  await okJson(context.stack, 'POST', '/api/v1/dailies/body_mass', token, { date: addDays(FIRST_DAY, 9), value: 74 });
  const rides = season().filter((activity) => activity.power !== null && !activity.fit).slice(0, 6);
  const response = await upload(context.stack, token, rides.map((activity, i) => ({ name: `m${i}.csv`, bytes: csvOf(activity) })));
  const { sources } = (await response.json()) as { sources: { id: string }[] };
  const ids: string[] = [];
  for (const source of sources) ids.push((await settled(context.stack, token, source.id, 60_000)).activity_ids[0]!);
  const last = rides[rides.length - 1]!;
  // The season first (every date modeled in one pass), then each date's map and the single activity.
  const rows = await loadRows(context, `start=${FIRST_DAY}&end=${addDays(FIRST_DAY, last.day)}`, token);
  const thresholds = new Set<number>();
  for (const [i, ride] of rides.entries()) {
    const date = addDays(FIRST_DAY, ride.day);
    const map = await okJson(context.stack, 'GET', `/api/v1/profile/metabolic-map/power?date=${date}&sport=cycling`, token);
    const modeled = map.markers.second_threshold;
    assert.is(modeled?.provenance, 'modeled', `${date}: ${JSON.stringify(map)}`);
    thresholds.add(modeled.value);
    const row = rows.find((candidate) => candidate.date === date);
    assert.is(row.activities_without_load, 0, date);
    close(row.load, reference(ride, modeled.value).load, `${date} load with that date's modeled threshold`);
    const body = await okJson(context.stack, 'GET', `/api/v1/ext/activities/${ids[i]}/numbers`, token);
    assert.equal(body.threshold, { marker: 'second_threshold', quantity: 'power', value: modeled.value, provenance: 'modeled' });
    close(body.load, reference(ride, modeled.value).load, `${date} activity load with the modeled threshold`);
  }
  assert.ok(thresholds.size > 1, `the windows differ, so do their thresholds: ${[...thresholds].join(', ')}`);
});

load('heart rates sampled twice a second: TRIMP, load and heart-rate zones use each second\'s exact mean (120.5 bpm stays 120.5), as the reference from the raw samples', async (context) => {
  const { token } = await context.stack.userWithToken(['activities:read', 'activities:write', 'wellness:write']);
  const api = jsonClient(context.stack, token);
  await declare(api, 'cycling', 'second_threshold', 'heart_rate', THRESHOLD_HR, FIRST_DAY);
  await declare(api, 'cycling', 'heart_rate_max', 'heart_rate', MAX_HR, FIRST_DAY);
  await okJson(context.stack, 'POST', '/api/v1/dailies/resting_hr', token, { date: FIRST_DAY, value: RESTING_HR });
  // 20 minutes at 2 Hz, whole-bpm samples whose pairs mostly average to a half, and a 3 s gap (held, not a pause).
  const start = Date.parse(`${FIRST_DAY}T08:00:00Z`);
  const t: number[] = [];
  for (let k = 0; k < 2400; k++) if (!(k >= 1000 && k < 1006)) t.push(500 * k);
  const heartRate = t.map((ms, i) => 100 + ((i * 7) % 83));
  const lines = ['timestamp,sport,heart_rate', ...t.map((ms, i) => `${new Date(start + ms).toISOString()},cycling.road,${heartRate[i]}`)];
  const response = await upload(context.stack, token, [{ name: 'half-seconds.csv', bytes: `${lines.join('\n')}\n` }]);
  const { sources } = (await response.json()) as { sources: { id: string }[] };
  const source = await settled(context.stack, token, sources[0]!.id, 60_000);
  assert.is(source.status, 'processed', JSON.stringify(source.error));

  // The reference: each sample holds until the next (at most 5 s; the last 1 s), each 1 s bin the
  // time-weighted mean of what it holds; TRIMP and zones per bin, in recorded seconds.
  const length = Math.ceil((t[t.length - 1]! + 1000) / 1000);
  const weighted = new Array(length).fill(0);
  const heldMs = new Array(length).fill(0);
  t.forEach((ms, i) => {
    const end = ms + (i + 1 < t.length ? Math.min(t[i + 1]! - ms, 5000) : 1000);
    for (let from = ms; from < end;) {
      const bin = Math.floor(from / 1000);
      const to = Math.min(end, (bin + 1) * 1000);
      weighted[bin] += heartRate[i]! * (to - from);
      heldMs[bin] += to - from;
      from = to;
    }
  });
  const means = weighted.map((sum, k) => (heldMs[k] > 0 ? sum / heldMs[k] : null));
  assert.ok(means.filter((mean) => mean !== null && !Number.isInteger(mean)).length > 600, 'most seconds average to a fractional heart rate');
  let trimp = 0;
  means.forEach((mean, k) => {
    if (mean === null) return;
    const x = Math.min(1, Math.max(0, (mean - RESTING_HR) / (MAX_HR - RESTING_HR)));
    trimp += (heldMs[k] / 60_000) * x * Math.exp(1.92 * x);
  });
  const xt = (THRESHOLD_HR - RESTING_HR) / (MAX_HR - RESTING_HR);

  const body = await okJson(context.stack, 'GET', `/api/v1/ext/activities/${source.activity_ids[0]}/numbers`, token);
  assert.is(body.intensity_quantity, 'heart_rate');
  close(body.trimp, trimp, 'TRIMP from the exact means', 1e-12);
  close(body.load, (100 * trimp) / (60 * xt * Math.exp(1.92 * xt)), 'heart-rate load', 1e-12);
  const zones = body.zones.find((entry: any) => entry.quantity === 'heart_rate');
  assert.is(zones.zone_system, 'olt_i_scale');
  for (const zone of zones.zones) {
    let ms = 0;
    means.forEach((mean, k) => {
      if (mean !== null && mean >= zone.lower && (zone.upper === null || mean < zone.upper)) ms += heldMs[k];
    });
    assert.is(zone.duration_s, ms / 1000, `zone ${zone.name} [${zone.lower}, ${zone.upper})`);
  }
});

load('another user\'s token sees nothing: no rows of theirs, and their activity is not found', async (context) => {
  const { token } = await context.stack.userWithToken(['activities:read']);
  assert.equal(await loadRows(context, `end=${addDays(FIRST_DAY, DAYS - 1)}`, token), []);
  const rows = await loadRows(context, RANGE, token);
  assert.is(rows.length, DAYS);
  assert.ok(rows.every((row) => row.load === 0 && row.fitness === 0 && row.activity_ids === ''));
  const response = await context.stack.get(`/api/v1/ext/activities/${context.ids[0]}/numbers`, token);
  assert.is(response.status, 404);
});

load('the read scope is required', async (context) => {
  const { token } = await context.stack.userWithToken(['activities:write']);
  assert.is((await context.stack.get(`/api/v1/ext/training-load?${RANGE}`, token)).status, 403);
  assert.is((await context.stack.get(`/api/v1/ext/activities/${context.ids[0]}/numbers`, token)).status, 403);
  assert.is((await context.stack.get(`/api/v1/ext/training-load?${RANGE}`)).status, 401);
});

load('hostile input is a 422 naming the parameter, never a 500', async (context) => {
  const cases: [string, string][] = [
    ['/api/v1/ext/training-load?start=2024-13-01', 'start'],
    ['/api/v1/ext/training-load?start=2024-05-02&end=2024-05-01', 'start'],
    ['/api/v1/ext/training-load?sport=not%20a%20sport', 'sport'],
    ['/api/v1/ext/training-load?format=xml', 'format'],
    ['/api/v1/ext/training-load?end=yesterday', 'end'],
    ['/api/v1/ext/training-load?start=1900-01-01&end=2024-01-01', 'start'],
    [`/api/v1/ext/activities/${context.ids[0]}/numbers?zone_system=nine_zone`, 'zone_system'],
    [`/api/v1/ext/activities/${'x'.repeat(65)}/numbers`, 'activity_id'],
  ];
  for (const [url, field] of cases) {
    const response = await context.stack.get(url, context.athlete.token);
    const body = await response.json() as any;
    assert.is(response.status, 422, `${url}: ${JSON.stringify(body)}`);
    assert.ok(body.detail.some((issue: any) => issue.loc.includes(field)), `${url}: ${JSON.stringify(body)}`);
  }
  const unknown = await context.stack.get('/api/v1/ext/activities/no-such-activity/numbers', context.athlete.token);
  assert.is(unknown.status, 404);
});

load('both paths are extensions in /openapi.json', async (context) => {
  const spec = (await (await context.stack.get('/openapi.json')).json()) as any;
  assert.is(spec.paths['/api/v1/ext/training-load'].get['x-threshold-extension'], true);
  assert.is(spec.paths['/api/v1/ext/activities/{activity_id}/numbers'].get['x-threshold-extension'], true);
});

load.run();
