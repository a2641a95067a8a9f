/**
 * The activity page's training numbers, time in zones and route (issue 28 item 3) over the real stack: the page
 * shows, formatted, exactly what `GET /api/v1/ext/activities/{id}/numbers` answers (the zone bars carry its
 * seconds), says in words why there is no load and links the settings, draws the route from the GPS fixes
 * `/data` holds (every vertex a projected fix, the first and last fixes the path's ends, a gap a new subpath,
 * at most 1,000 vertices) and none for an indoor ride, and shows nothing of another user's activity. The same
 * page in Chromium: test/browser/activity-numbers.test.ts; the projection alone: test/gateway/route-track.test.ts.
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { CookieJar, signIn } from '../support/browser-session.js';
import { jsonClient, okJson } from '../support/json-api.js';
import { csvActivity, uploadProcessed } from '../support/uploads.js';
import { createUser } from '../../gateway/services/accounts.js';
import { clock } from '../../gateway/pages/charts/time-series.js';

interface Athlete {
  jar: CookieJar;
  token: string;
}

interface Context {
  stack: TestStack;
  athlete: Athlete;
  /** The GPS ride and its fixes (NaN where the CSV row has none). */
  ride: { id: string; latitude: number[]; longitude: number[] };
  indoor: string;
}

const page = suite<Context>('activity numbers page');

const PASSWORD = 'activity numbers password';
const DAY = '2024-04-02';
const SECONDS = 3600;
/** Rows 1500–1619 have no fix (a tunnel): the route breaks there. */
const TUNNEL = [1500, 1620] as const;

async function athlete(stack: TestStack): Promise<Athlete> {
  const email = `numbers-${Math.random().toString(36).slice(2, 10)}@example.com`;
  const user = await createUser(stack.store, { email, password: PASSWORD, first_name: 'Ada' });
  const { token } = await stack.userWithToken(['activities:read', 'activities:write', 'wellness:write'], { userId: user.id });
  return { jar: await signIn(stack, email, PASSWORD), token };
}

/** A small deterministic noise in [-1, 1) (a GPS track is never smooth, so simplification has work to do). */
function noise(i: number): number {
  const x = Math.sin(i * 12.9898) * 43758.5453;
  return 2 * (x - Math.floor(x)) - 1;
}

/**
 * An hour's ride at 1 Hz around a 5 km loop near Lausanne (46.5° N), power 150–290 W, heart rate 120–159,
 * latitude and longitude with a few metres of noise, no fix in the tunnel.
 */
function gpsRide(): { csv: string; latitude: number[]; longitude: number[] } {
  const start = Date.parse(`${DAY}T06:00:00Z`);
  const lines = ['timestamp,sport,power,heart_rate,latitude,longitude'];
  const latitude: number[] = [];
  const longitude: number[] = [];
  for (let i = 0; i < SECONDS; i++) {
    const angle = (2 * Math.PI * i) / 900;
    const inTunnel = i >= TUNNEL[0] && i < TUNNEL[1];
    const lat = inTunnel ? Number.NaN : Number((46.5 + 0.007 * Math.sin(angle) + 0.00004 * noise(i) + i * 0.000002).toFixed(7));
    const lon = inTunnel ? Number.NaN : Number((6.6 + 0.011 * Math.cos(angle) + 0.00004 * noise(i + 7)).toFixed(7));
    latitude.push(lat);
    longitude.push(lon);
    const local = new Date(start + i * 1000 + 2 * 3600_000).toISOString().slice(0, 19);
    lines.push(`${local}+02:00,cycling.road,${Math.round(220 + 70 * Math.sin(i / 50))},${120 + (i % 40)},${inTunnel ? '' : lat},${inTunnel ? '' : lon}`);
  }
  return { csv: `${lines.join('\n')}\n`, latitude, longitude };
}

page.before(async (context) => {
  context.stack = await startStack();
  context.athlete = await athlete(context.stack);
  const { token } = context.athlete;
  const ride = gpsRide();
  const id = (await uploadProcessed(context.stack, token, 'gps.csv', ride.csv, 120_000)).activity_ids[0]!;
  context.ride = { id, latitude: ride.latitude, longitude: ride.longitude };
  context.indoor = (await uploadProcessed(context.stack, token, 'indoor.csv', csvActivity({ start: `${DAY}T17:00:00Z`, rows: 600 }))).activity_ids[0]!;
  const api = jsonClient(context.stack, token);
  for (const [marker, metric, value] of [['second_threshold', 'power', 250], ['first_threshold', 'power', 190], ['second_threshold', 'heart_rate', 165], ['first_threshold', 'heart_rate', 140], ['heart_rate_max', 'heart_rate', 190]] as const) {
    const response = await api.post('/api/v1/profile/markers', { sport: 'cycling', marker, metric, value, date: '2024-01-01', provenance: 'declared', pinned: null });
    assert.is(response.status, 200, JSON.stringify(response.body));
  }
});
page.after(async (context) => {
  await context.stack?.close();
});

const number = (decimals: number) => new Intl.NumberFormat('en-GB', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });

/** The stat `label`'s value as the page writes it: `<span class="label">…</span><span class="value">…`. */
function statValue(html: string, label: string): string | null {
  const match = new RegExp(`<span class="label">${label}</span><span class="value">([^<]*)`).exec(html);
  return match ? match[1]! : null;
}

/** Per zone chart (data-quantity): the wide SVG's bars as [zone, seconds]. */
function zoneBars(html: string): Map<string, [string, number][]> {
  const out = new Map<string, [string, number][]>();
  for (const chart of html.matchAll(/<div class="zone-chart" data-quantity="([^"]+)"[^>]*>(.*?)<\/div>/gs)) {
    const wide = /<svg class="chart chart-wide"(.*?)<\/svg>/s.exec(chart[2]!)?.[1] ?? '';
    out.set(chart[1]!, [...wide.matchAll(/data-zone="([^"]+)" data-seconds="([^"]+)"/g)].map((bar) => [bar[1]!, Number(bar[2])]));
  }
  return out;
}

page('shows the numbers the numbers endpoint answers, formatted, and time in zones as bars holding its seconds', async ({ stack, athlete, ride }) => {
  const numbers = await okJson(stack, 'GET', `/api/v1/ext/activities/${ride.id}/numbers`, athlete.token);
  assert.ok(numbers.load > 0, JSON.stringify(numbers));
  // The endpoint's body keeps its keys and their order (presenters/activity-numbers.ts serves both).
  assert.equal(Object.keys(numbers), [
    'activity_id', 'sport', 'local_date', 'recorded_time_s', 'moving_time_s', 'work_kj', 'intensity_quantity', 'weighted_intensity',
    'intensity_factor', 'load', 'trimp', 'threshold', 'resting_hr', 'heart_rate_max', 'load_problem', 'zones',
  ]);
  const response = await athlete.jar.get(`/training/activities/${ride.id}`);
  assert.is(response.status, 200);
  const html = await response.text();
  assert.is(statValue(html, 'Moving time'), clock(numbers.moving_time_s));
  assert.is(statValue(html, 'Work'), number(0).format(numbers.work_kj));
  assert.is(statValue(html, 'Weighted power'), number(0).format(numbers.weighted_intensity));
  assert.is(statValue(html, 'Intensity factor'), numbers.intensity_factor.toFixed(2));
  assert.is(statValue(html, 'Load'), number(0).format(numbers.load));
  assert.match(html, 'threshold 250 W, declared');
  assert.not.match(html, 'class="load-problem"');

  const bars = zoneBars(html);
  assert.equal([...bars.keys()], numbers.zones.map((entry: any) => entry.quantity));
  for (const entry of numbers.zones) {
    assert.is(entry.problem, null, JSON.stringify(entry));
    assert.equal(bars.get(entry.quantity), entry.zones.map((zone: any) => [zone.name, zone.duration_s]), entry.quantity);
  }
  assert.ok(bars.get('power')!.some(([, seconds]) => seconds > 0));

  // Another zone system: the page asks the endpoint for it and draws its answer.
  const three = await okJson(stack, 'GET', `/api/v1/ext/activities/${ride.id}/numbers?zone_system=three_zone`, athlete.token);
  const threeHtml = await (await athlete.jar.get(`/training/activities/${ride.id}?zone_system=three_zone`)).text();
  assert.match(threeHtml, '<option value="three_zone" selected>');
  const threeBars = zoneBars(threeHtml);
  for (const entry of three.zones) assert.equal(threeBars.get(entry.quantity), entry.zones.map((zone: any) => [zone.name, zone.duration_s]), `three_zone ${entry.quantity}`);
  assert.equal(threeBars.get('heart_rate')!.map(([zone]) => zone), ['Z1', 'Z2', 'Z3']);
  assert.match(threeHtml, 'Your power zones need your maximal aerobic power, not known on this day.', 'power three_zone needs max_aerobic_power: the chart says so');

  // A zone system that is not one is left out: the defaults, never an error.
  const bogus = await athlete.jar.get(`/training/activities/${ride.id}?zone_system=%3Cscript%3E`);
  assert.is(bogus.status, 200);
  const bogusHtml = await bogus.text();
  assert.equal(zoneBars(bogusHtml), bars);
  assert.not.match(bogusHtml, '<script>');
});

page('says in words why there is no load, with a link to the settings, when no threshold is known', async ({ stack }) => {
  const other = await athlete(stack);
  const id = (await uploadProcessed(stack, other.token, 'ride.csv', csvActivity({ start: `${DAY}T06:00:00Z`, rows: 900 }))).activity_ids[0]!;
  const numbers = await okJson(stack, 'GET', `/api/v1/ext/activities/${id}/numbers`, other.token);
  assert.is(numbers.load, null);
  assert.is(numbers.load_problem.code, 'no_threshold');
  const html = await (await other.jar.get(`/training/activities/${id}`)).text();
  assert.is(statValue(html, 'Load'), '–');
  assert.is(statValue(html, 'Weighted power'), number(0).format(numbers.weighted_intensity));
  assert.is(statValue(html, 'Intensity factor'), null, 'no intensity factor without a threshold');
  assert.match(html, /<p class="load-problem" role="note" data-code="no_threshold">No load yet: it is computed from your power against your threshold power \(FTP or critical power\)/);
  assert.match(html, '<a href="/training/settings">');
  // The zones say what is missing instead of drawing bars.
  assert.match(html, /data-quantity="power"[^>]*><h3>Power .*?Your power zones need your threshold, not known on this day/s);
});

/** The path's subpaths as [x, y] vertices. */
function subpaths(d: string): [number, number][][] {
  return d.split('M').filter(Boolean).map((part) => part.split('L').map((point) => point.split(' ').map(Number) as [number, number]));
}

page('draws the route from the GPS fixes: each vertex a projected fix in order, the ends the first and last fix, the tunnel a break', async ({ athlete, ride }) => {
  const html = await (await athlete.jar.get(`/training/activities/${ride.id}`)).text();
  assert.match(html, '<h2 id="route">Route</h2>');
  const svg = /<svg class="route-track"[^>]*>/.exec(html)![0];
  const [x0, kx, y0, ky] = /data-projection="([^"]+)"/.exec(svg)![1]!.split(' ').map(Number) as [number, number, number, number];
  const fixes = ride.latitude.flatMap((lat, i) => (Number.isNaN(lat) ? [] : [[lat, ride.longitude[i]!] as const]));
  const meanLatitude = fixes.reduce((sum, [lat]) => sum + lat, 0) / fixes.length;
  assert.ok(Math.abs(kx / ky - Math.cos((meanLatitude * Math.PI) / 180)) < 1e-12, 'equirectangular with cos(mean latitude)');
  assert.is(Number(/data-fixes="(\d+)"/.exec(svg)![1]), fixes.length);
  const project = (lat: number, lon: number): [number, number] => [x0 + kx * lon, y0 - ky * lat];
  const d = /<path id="route-line" class="track" d="([^"]+)"/.exec(html)![1]!;
  const parts = subpaths(d);
  assert.is(parts.length, 2, 'the tunnel breaks the line once');
  const vertices = parts.flat();
  assert.ok(vertices.length <= 1000, `${vertices.length} vertices`);
  assert.ok(vertices.length > 100, `the loop keeps its shape (${vertices.length} vertices)`);
  const near = (point: [number, number], fix: readonly [number, number]): boolean => {
    const [x, y] = project(fix[0], fix[1]);
    return Math.abs(point[0] - x) <= 0.051 && Math.abs(point[1] - y) <= 0.051;
  };
  assert.ok(near(vertices[0]!, fixes[0]!), 'the path starts at the first fix');
  assert.ok(near(vertices[vertices.length - 1]!, fixes[fixes.length - 1]!), 'the path ends at the last fix');
  // Every vertex is a fix, in recording order.
  let at = 0;
  for (const vertex of vertices) {
    while (at < fixes.length && !near(vertex, fixes[at]!)) at++;
    assert.ok(at < fixes.length, `vertex ${vertex} is a projected fix after the previous one`);
  }
  // The second subpath starts at the first fix after the tunnel.
  assert.ok(near(parts[1]![0]!, [ride.latitude[TUNNEL[1]]!, ride.longitude[TUNNEL[1]]!]));
  const [, cx, cy] = /<circle class="start" cx="([^"]+)" cy="([^"]+)"/.exec(html)!;
  assert.equal([Number(cx), Number(cy)], vertices[0]);
  for (const [x, y] of vertices) assert.ok(x >= 0 && x <= 1000 && y >= 0, `vertex ${x} ${y} inside the drawing`);
});

page('draws no route for an indoor ride: no empty box', async ({ athlete, indoor }) => {
  const response = await athlete.jar.get(`/training/activities/${indoor}`);
  assert.is(response.status, 200);
  const html = await response.text();
  assert.match(html, 'Training numbers');
  assert.not.match(html, 'id="route"');
  assert.not.match(html, 'class="route-track"');
});

page('shows nothing of another user\'s activity: the page is a 404', async ({ stack, ride }) => {
  const other = await athlete(stack);
  const response = await other.jar.get(`/training/activities/${ride.id}`);
  assert.is(response.status, 404);
  const html = await response.text();
  assert.not.match(html, 'Training numbers');
  assert.not.match(html, 'class="route-track"');
  assert.is((await stack.get(`/api/v1/ext/activities/${ride.id}/numbers`, other.token)).status, 404);
  assert.is((await other.jar.get(`/training/activities/${ride.id}?zone_system=three_zone`)).status, 404);
});

page.run();
