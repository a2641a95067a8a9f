/**
 * The metabolic map's rules on the real stack (ANALYTICS.md §7–8), through HTTP:
 * - the 15-minute rule counts recorded time: a 24-minute ride with a 12-minute pause is insufficient_data
 *   (and an empty curve), while a fresh declared marker is still served without a 15-minute activity, and a
 *   ride with 16 recorded minutes around a pause is enough;
 * - body mass as GET /dailies/body_mass gives it: estimated from a later value alone, interpolated between
 *   two, and the relations (max_aerobic_power) computed with that mass;
 * - zones a client recomputes from the published map with its own arithmetic equal the served bounds.
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { jsonClient, okJson, type JsonClient } from '../support/json-api.js';
import { uploadProcessed } from '../support/uploads.js';
import { roundMarker } from '../../engine/kernels/model-rounding.js';

const rules = suite<{ stack: TestStack }>('metabolic map rules');

const DATE = '2024-06-30';
const SCOPES = ['activities:read', 'activities:write', 'wellness:read', 'wellness:write'];

/** A block of a ride: seconds and watts, or null watts for a pause (no samples: the device stopped recording). */
type Block = [seconds: number, watts: number | null];

/** A 1 Hz CSV ride of `blocks` from `startIso`; a pause leaves a gap in the timestamps. */
function rideCsv(startIso: string, blocks: readonly Block[]): string {
  const lines = ['timestamp,sport,power'];
  const start = Date.parse(startIso);
  let second = 0;
  for (const [length, watts] of blocks) {
    for (let i = 0; i < length; i++, second++) {
      if (watts !== null) lines.push(`${new Date(start + second * 1000).toISOString().replace('.000Z', 'Z')},cycling.road,${watts}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** Efforts in four duration bands (5 s, 30 s, 2 min, 5 min) and 12 recorded minutes, split by a 12-minute pause: 24 minutes long. */
const PAUSED_RIDE: Block[] = [[60, 150], [5, 900], [60, 150], [30, 600], [85, 150], [120, 420], [720, null], [300, 340], [60, 150]];
/** The same efforts with 16 recorded minutes around a 5-minute pause. */
const LONG_ENOUGH_RIDE: Block[] = [[60, 150], [5, 900], [60, 150], [30, 600], [85, 150], [120, 420], [300, null], [300, 340], [300, 150]];
/** About 40 minutes without a pause, ending on a 20-minute effort. */
const STEADY_RIDE: Block[] = [[300, 150], [5, 900], [180, 150], [30, 600], [180, 150], [120, 420], [180, 150], [300, 340], [180, 150], [1200, 280]];

async function uploadRide(stack: TestStack, token: string, name: string, csv: string): Promise<void> {
  await uploadProcessed(stack, token, name, csv);
}

async function rider(stack: TestStack): Promise<{ token: string; api: JsonClient }> {
  const { token } = await stack.userWithToken(SCOPES);
  return { token, api: jsonClient(stack, token) };
}

rules.before(async (context) => {
  context.stack = await startStack();
});
rules.after(async (context) => {
  await context.stack.close();
});

rules('the 15-minute rule counts recorded time: 24 minutes with 12 recorded is insufficient_data and an empty curve, a fresh declared marker is still served, 16 recorded minutes are enough', async ({ stack }) => {
  const { token, api } = await rider(stack);
  await okJson(stack, 'POST', '/api/v1/dailies/body_mass', token, { date: '2024-06-01', value: 70 });
  await uploadRide(stack, token, 'paused.csv', rideCsv('2024-06-20T06:00:00Z', PAUSED_RIDE));

  const map = await api.get(`/api/v1/profile/metabolic-map/power?date=${DATE}`);
  assert.is(map.status, 422, JSON.stringify(map.body));
  assert.is(map.body.code, 'insufficient_data');
  assert.match(map.body.detail, 'recorded time');
  assert.equal((await api.get(`/api/v1/profile/intensity-duration-model/power?date=${DATE}`)).body, { curve: [] }, 'no fit without 15 recorded minutes');

  // "Fresh measured or declared markers are still served when the window holds no 15-minute activity."
  await okJson(stack, 'POST', '/api/v1/profile/markers', token, { sport: 'cycling', marker: 'second_threshold', metric: 'power', value: 240, date: '2024-06-25', provenance: 'declared', pinned: false });
  const declared = await api.get(`/api/v1/profile/metabolic-map/power?date=${DATE}`);
  assert.is(declared.status, 200, JSON.stringify(declared.body));
  assert.equal(declared.body.markers.second_threshold, { value: 240, provenance: 'declared' });
  for (const modeled of ['fatmax', 'first_threshold', 'critical_power', 'max_aerobic_power', 'w_prime']) assert.is(declared.body.markers[modeled], null, `${modeled} is not modeled`);
  // A stale declared value alone is not enough: 2024-10-01 is 99 days after it, and the ride is out of the window.
  assert.is((await api.get('/api/v1/profile/metabolic-map/power?date=2024-10-01')).body.code, 'insufficient_data');

  await uploadRide(stack, token, 'long-enough.csv', rideCsv('2024-06-22T06:00:00Z', LONG_ENOUGH_RIDE));
  const modeled = await api.get(`/api/v1/profile/metabolic-map/power?date=${DATE}`);
  assert.is(modeled.status, 200, JSON.stringify(modeled.body));
  assert.is(modeled.body.markers.critical_power.provenance, 'modeled');
  assert.equal(modeled.body.markers.second_threshold, { value: 240, provenance: 'declared' }, 'the fresh declared value still wins');
  assert.ok((await api.get(`/api/v1/profile/intensity-duration-model/power?date=${DATE}`)).body.curve.length > 0);
});

rules('body mass as dailies give it: a later value alone is the estimate, two values are interpolated, and the relations use that mass', async ({ stack }) => {
  const { token, api } = await rider(stack);
  await uploadRide(stack, token, 'steady.csv', rideCsv('2024-06-20T06:00:00Z', STEADY_RIDE));
  const dailyOn = async (date: string) => {
    const [entry] = (await api.get(`/api/v1/dailies/body_mass?start=${date}&end=${date}`)).body as { value: number; status: string }[];
    return entry!;
  };

  // Only a later value: dailies estimate it (held before the first), and so does the map.
  await okJson(stack, 'POST', '/api/v1/dailies/body_mass', token, { date: '2024-07-10', value: 75 });
  assert.equal(await dailyOn(DATE), { date: DATE, value: 75, status: 'estimated', source: 'manual' });
  const later = await api.get(`/api/v1/profile/metabolic-map/power?date=${DATE}`);
  assert.is(later.status, 200, JSON.stringify(later.body));
  assert.equal(later.body.inputs, { body_mass: 75 });

  // Two values: 70 kg on 2024-06-01 and 75 kg on 2024-07-10 give 70 + 5 · 29/39 = 73.72 kg on the 30th, not 70.
  await okJson(stack, 'POST', '/api/v1/dailies/body_mass', token, { date: '2024-06-01', value: 70 });
  const daily = await dailyOn(DATE);
  assert.is(daily.status, 'estimated');
  assert.ok(Math.abs(daily.value - (70 + (5 * 29) / 39)) < 1e-9, `dailies ${daily.value}`);
  const map = await api.get(`/api/v1/profile/metabolic-map/power?date=${DATE}`);
  assert.is(map.status, 200, JSON.stringify(map.body));
  assert.equal(map.body.inputs, { body_mass: Math.round(daily.value * 10) / 10 });
  // MAP = (VO2max − 7) · BM / 10.8 with VO2max = 16.6 + 8.87 × best 5 min / BM: 344.8 W at 73.72 kg (341.5 W at 70).
  const best5 = 340;
  const mapWatts = ((16.6 + (8.87 * best5) / daily.value - 7) * daily.value) / 10.8;
  assert.is(map.body.markers.max_aerobic_power.value, roundMarker('power', mapWatts));
});

rules('zones a client recomputes from the published map equal the served bounds, for every system of the power map', async ({ stack }) => {
  const { token, api } = await rider(stack);
  // At 86 kg FatMax is (0.64 · (16.6 + 8.87 · 340 / 86) − 7) · 86 / 10.8 = 207.57 W, published 208 W: from the
  // unrounded value five_zone's first bound was 0.98 × 207.57 = 203.4 → 203 W, a client computes 0.98 × 208 = 204.
  await okJson(stack, 'POST', '/api/v1/dailies/body_mass', token, { date: '2024-06-01', value: 86 });
  for (const day of ['2024-06-10', '2024-06-20']) await uploadRide(stack, token, `${day}.csv`, rideCsv(`${day}T06:00:00Z`, STEADY_RIDE));
  const map = await api.get(`/api/v1/profile/metabolic-map/power?date=${DATE}`);
  assert.is(map.status, 200, JSON.stringify(map.body));
  const value = (marker: string) => map.body.markers[marker].value as number;
  const first = value('first_threshold');
  assert.is(first, 208);
  const second = value('second_threshold');
  const top = value('max_aerobic_power');
  const w = (x: number) => roundMarker('power', x);
  const expected: Record<string, (number | null)[]> = {
    three_zone: [0, first, second, top],
    five_zone: [0, w(0.98 * first), w(1.02 * first), w(0.98 * second), w(1.02 * second), top],
    seven_zone: [0, ...[0.55, 0.75, 0.9, 1.05, 1.2, 1.5].map((fraction) => w(fraction * second)), null],
  };
  for (const [system, bounds] of Object.entries(expected)) {
    const response = await api.get(`/api/v1/profile/zones?sport=cycling&quantity=power&zone_system=${system}&date=${DATE}`);
    assert.is(response.status, 200, `${system}: ${JSON.stringify(response.body)}`);
    const zones = response.body.zones as { lower: number; upper: number | null }[];
    assert.equal([zones[0]!.lower, ...zones.map((zone) => zone.upper)], bounds, system);
  }
});

rules.run();
