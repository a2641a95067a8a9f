/**
 * The route of an activity drawn from its GPS fixes as an SVG track: no map tiles, nothing fetched, so
 * nothing leaves the page's origin. Fixes (degrees, NaN where a row has none, as `/data` answers the
 * `latitude` and `longitude` metrics) are projected equirectangularly with cos(mean latitude) — metres east
 * and north are true to a fraction of a percent over any ride's extent — fitted into the drawing with north
 * up, and simplified (Douglas–Peucker, Ramer 1972 / Douglas & Peucker 1973, tolerance raised until at most
 * MAX_ROUTE_POINTS vertices remain) so a day-long ride still makes a small page. Every vertex drawn is a
 * projected fix, the first and last fixes always among them; a gap in the fixes (a tunnel, a lost signal)
 * starts a new subpath. The finish is drawn under the start, so a loop shows both. Not handled: a route crossing the ±180° meridian is drawn the long way round.
 * Kept honest by test/gateway/route-track.test.ts and test/gateway/activity-numbers-page.test.ts.
 */
import { html, type Html } from '../html.js';
import { px } from './svg.js';

/** Most vertices a drawn route keeps. */
export const MAX_ROUTE_POINTS = 1000;
/** Fixes the simplification looks at, at most: longer tracks are strided first (the first and last fix kept). */
const MAX_SIMPLIFIED_INPUT = 10_000;
/** A gap of this many rows without a fix breaks the line (a shorter one is drawn straight across). */
const GAP_ROWS = 60;
const WIDTH = 1000;
const MIN_HEIGHT = 420;
const MAX_HEIGHT = 1000;
const PAD = 28;
const EARTH_RADIUS_M = 6_371_008.8;
const RADIANS = Math.PI / 180;

/**
 * The drawing's projection, linear in degrees: x = x0 + kx · longitude, y = y0 − ky · latitude (viewBox
 * units), kx / ky = cos(mean latitude of the fixes); `unitsPerMetre` for the scale bar.
 */
export interface RouteProjection {
  x0: number;
  kx: number;
  y0: number;
  ky: number;
  unitsPerMetre: number;
  height: number;
}

export interface ProjectedRoute {
  projection: RouteProjection;
  /** Subpaths of [x, y] vertices (viewBox units, unrounded), in recording order. */
  segments: [number, number][][];
  /** How many fixes the track had. */
  fixes: number;
}

function isFix(latitude: number, longitude: number): boolean {
  return Number.isFinite(latitude) && Number.isFinite(longitude) && Math.abs(latitude) <= 90 && Math.abs(longitude) <= 180;
}

/** Squared distance of p from the segment a–b. */
function segmentDistance2(px0: number, py0: number, ax: number, ay: number, bx: number, by: number): number {
  const dx = bx - ax;
  const dy = by - ay;
  const length2 = dx * dx + dy * dy;
  let t = length2 === 0 ? 0 : ((px0 - ax) * dx + (py0 - ay) * dy) / length2;
  t = t < 0 ? 0 : t > 1 ? 1 : t;
  const ex = px0 - (ax + t * dx);
  const ey = py0 - (ay + t * dy);
  return ex * ex + ey * ey;
}

/** Douglas–Peucker over points[from..to] (inclusive): marks the kept ones in `keep` (an explicit stack, no recursion). */
function douglasPeucker(xs: Float64Array, ys: Float64Array, from: number, to: number, tolerance2: number, keep: Uint8Array): void {
  keep[from] = 1;
  keep[to] = 1;
  const stack: number[] = [from, to];
  while (stack.length > 0) {
    const last = stack.pop()!;
    const first = stack.pop()!;
    let worst = -1;
    let worstDistance = tolerance2;
    for (let i = first + 1; i < last; i++) {
      const distance = segmentDistance2(xs[i]!, ys[i]!, xs[first]!, ys[first]!, xs[last]!, ys[last]!);
      if (distance > worstDistance) {
        worst = i;
        worstDistance = distance;
      }
    }
    if (worst < 0) continue;
    keep[worst] = 1;
    stack.push(first, worst, worst, last);
  }
}

/**
 * The route's projection and simplified subpaths, or null with fewer than two fixes (no route to draw).
 * `latitude` and `longitude` are aligned rows, degrees, NaN where a row has no fix.
 */
export function projectRoute(latitude: ArrayLike<number>, longitude: ArrayLike<number>, maxPoints = MAX_ROUTE_POINTS): ProjectedRoute | null {
  const rows: number[] = [];
  let latSum = 0;
  let latMin = Infinity;
  let latMax = -Infinity;
  let lonMin = Infinity;
  let lonMax = -Infinity;
  for (let i = 0; i < Math.min(latitude.length, longitude.length); i++) {
    const lat = latitude[i]!;
    const lon = longitude[i]!;
    if (!isFix(lat, lon)) continue;
    rows.push(i);
    latSum += lat;
    if (lat < latMin) latMin = lat;
    if (lat > latMax) latMax = lat;
    if (lon < lonMin) lonMin = lon;
    if (lon > lonMax) lonMax = lon;
  }
  if (rows.length < 2) return null;
  const cosLat = Math.cos((latSum / rows.length) * RADIANS);
  const metresPerDegree = EARTH_RADIUS_M * RADIANS;
  const eastM = (lonMax - lonMin) * metresPerDegree * cosLat;
  const northM = (latMax - latMin) * metresPerDegree;
  const inner = WIDTH - 2 * PAD;
  const height = eastM > 0 ? Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, (northM / eastM) * inner + 2 * PAD)) : MAX_HEIGHT;
  const scales = [eastM > 0 ? inner / eastM : Infinity, northM > 0 ? (height - 2 * PAD) / northM : Infinity];
  const finite = scales.filter(Number.isFinite);
  // One spot (every fix the same): any scale; it is drawn as a dot in the middle.
  const unitsPerMetre = finite.length > 0 ? Math.min(...finite) : 1;
  const kx = unitsPerMetre * metresPerDegree * cosLat;
  const ky = unitsPerMetre * metresPerDegree;
  const x0 = (WIDTH - eastM * unitsPerMetre) / 2 - kx * lonMin;
  const y0 = (height - northM * unitsPerMetre) / 2 + ky * latMax;
  const projection = { x0, kx, y0, ky, unitsPerMetre, height };

  // Stride very long tracks first (keeping the last fix), then simplify each subpath with one tolerance.
  const stride = Math.ceil(rows.length / MAX_SIMPLIFIED_INPUT);
  const kept = rows.filter((_, k) => k % stride === 0 || k === rows.length - 1);
  const xs = new Float64Array(kept.length);
  const ys = new Float64Array(kept.length);
  kept.forEach((row, k) => {
    xs[k] = x0 + kx * longitude[row]!;
    ys[k] = y0 - ky * latitude[row]!;
  });
  const breaks: [number, number][] = [];
  let start = 0;
  for (let k = 1; k <= kept.length; k++) {
    if (k === kept.length || kept[k]! - kept[k - 1]! > GAP_ROWS * stride) {
      breaks.push([start, k - 1]);
      start = k;
    }
  }
  // Half a unit of a 1,000-unit drawing: under a screen pixel at any size the page shows it.
  let tolerance = 0.5;
  let keep = new Uint8Array(kept.length);
  for (;;) {
    keep = new Uint8Array(kept.length);
    for (const [from, to] of breaks) douglasPeucker(xs, ys, from, to, tolerance * tolerance, keep);
    let count = 0;
    for (let k = 0; k < keep.length; k++) count += keep[k]!;
    if (count <= maxPoints || tolerance > WIDTH) break;
    tolerance *= 1.5;
  }
  const segments = breaks.map(([from, to]) => {
    const points: [number, number][] = [];
    for (let k = from; k <= to; k++) if (keep[k]) points.push([xs[k]!, ys[k]!]);
    return points;
  });
  return { projection, segments, fixes: rows.length };
}

/** A round scale-bar length (1, 2 or 5 × 10ⁿ m) near a fifth of the drawing's width. */
export function scaleBarMetres(unitsPerMetre: number): number {
  const target = WIDTH / 5 / unitsPerMetre;
  const power = 10 ** Math.floor(Math.log10(target));
  return [5, 2, 1].map((step) => step * power).find((length) => length <= target) ?? power;
}

export function distanceText(metres: number): string {
  return metres >= 1000 ? `${metres / 1000} km` : `${metres} m`;
}

/**
 * The route as a figure (the SVG, start and finish marked, a scale bar named in the caption), or nothing
 * when there are fewer than two fixes. The projection rides along as `data-projection="x0 kx y0 ky"`.
 */
export function routeFigure(latitude: ArrayLike<number>, longitude: ArrayLike<number>): Html | null {
  const route = projectRoute(latitude, longitude);
  if (route === null) return null;
  const { projection, segments } = route;
  const d = segments.map((points) => (points.length === 1
    ? `M${px(points[0]![0])} ${px(points[0]![1])}h0`
    : points.map(([x, y], k) => `${k === 0 ? 'M' : 'L'}${px(x)} ${px(y)}`).join(''))).join('');
  const first = segments[0]![0]!;
  const lastSegment = segments[segments.length - 1]!;
  const last = lastSegment[lastSegment.length - 1]!;
  const bar = scaleBarMetres(projection.unitsPerMetre);
  const barUnits = bar * projection.unitsPerMetre;
  const height = Math.round(projection.height);
  const vertices = segments.reduce((sum, points) => sum + points.length, 0);
  return html`<figure class="route"><svg class="route-track" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="Route from GPS, north up, start and finish marked" data-projection="${[projection.x0, projection.kx, projection.y0, projection.ky].join(' ')}" data-vertices="${vertices}" data-fixes="${route.fixes}">
<rect x="0" y="0" width="${WIDTH}" height="${height}" fill="#f8fafc" rx="8"/>
<defs><path id="route-line" class="track" d="${d}" fill="none" stroke-linejoin="round" stroke-linecap="round"/></defs>
<use href="#route-line" stroke="#ffffff" stroke-width="9"/><use href="#route-line" stroke="#2563eb" stroke-width="4.5"/>
<rect class="finish" x="${px(last[0] - 18)}" y="${px(last[1] - 18)}" width="36" height="36" fill="#111827" stroke="#fff" stroke-width="3"><title>Finish</title></rect>
<circle class="start" cx="${px(first[0])}" cy="${px(first[1])}" r="13" fill="#16a34a" stroke="#fff" stroke-width="4"><title>Start</title></circle>
<line class="scale" x1="${PAD}" x2="${px(PAD + barUnits)}" y1="${height - PAD / 2}" y2="${height - PAD / 2}" stroke="#334155" stroke-width="4"/>
</svg><figcaption class="muted"><span class="key start-key" aria-hidden="true"></span>Start · <span class="key finish-key" aria-hidden="true"></span>Finish · north up · the bar at the bottom left is ${distanceText(bar)}</figcaption></figure>`;
}
