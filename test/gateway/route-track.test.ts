/**
 * The route drawing alone (gateway/pages/charts/route-track.ts): the projection is equirectangular with
 * cos(mean latitude), north up and fitted into the drawing; simplification keeps the ends and only fixes,
 * at most MAX_ROUTE_POINTS of them however long the track; gaps break the line; fewer than two fixes draw
 * nothing. On the page over HTTP: test/gateway/activity-numbers-page.test.ts.
 */
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { MAX_ROUTE_POINTS, projectRoute, routeFigure, scaleBarMetres } from '../../gateway/pages/charts/route-track.js';

function track(length: number, at: (i: number) => [number, number]): { latitude: Float64Array; longitude: Float64Array } {
  const latitude = new Float64Array(length);
  const longitude = new Float64Array(length);
  for (let i = 0; i < length; i++) [latitude[i], longitude[i]] = at(i);
  return { latitude, longitude };
}

test('projects east and north in true proportion at the mean latitude, north up, inside the drawing', () => {
  // 1 km east then 1 km north at 60° N: a degree of longitude is half a degree of latitude there.
  const metre = 1 / 111_195;
  const { latitude, longitude } = track(3, (i) => [60 + (i === 2 ? 1000 * metre : 0), 10 + (i >= 1 ? (1000 * metre) / Math.cos((60.003 * Math.PI) / 180) : 0)]);
  const route = projectRoute(latitude, longitude)!;
  const [a, b, c] = route.segments[0]!;
  const east = b![0] - a![0];
  const north = b![1] - c![1];
  assert.ok(Math.abs(east / north - 1) < 1e-3, `east ${east} vs north ${north}`);
  assert.ok(c![1] < b![1], 'north is up');
  for (const [x, y] of route.segments[0]!) assert.ok(x >= 0 && x <= 1000 && y >= 0 && y <= route.projection.height);
  assert.ok(Math.abs(route.projection.kx / route.projection.ky - Math.cos((((60 * 2 + 60 + 1000 * metre) / 3) * Math.PI) / 180)) < 1e-12);
});

test('keeps the ends and only fixes, at most MAX_ROUTE_POINTS vertices for a long noisy track, and a straight line as two', () => {
  const noisy = track(40_000, (i) => [47 + 0.02 * Math.sin(i / 500) + 0.0001 * Math.sin(i * 7.1), 8 + 0.03 * Math.cos(i / 700) + 0.0001 * Math.cos(i * 3.3)]);
  const route = projectRoute(noisy.latitude, noisy.longitude)!;
  const vertices = route.segments.flat();
  assert.ok(vertices.length <= MAX_ROUTE_POINTS && vertices.length > 200, `${vertices.length} vertices`);
  const { x0, kx, y0, ky } = route.projection;
  const projected = (i: number): [number, number] => [x0 + kx * noisy.longitude[i]!, y0 - ky * noisy.latitude[i]!];
  assert.equal(vertices[0], projected(0));
  assert.equal(vertices[vertices.length - 1], projected(noisy.latitude.length - 1));
  const straight = track(5000, (i) => [45 + i * 1e-5, 7 + i * 2e-5]);
  assert.is(projectRoute(straight.latitude, straight.longitude)!.segments[0]!.length, 2);
});

test('breaks the line at a long run of rows without a fix, and skips impossible coordinates', () => {
  const { latitude, longitude } = track(600, (i) => (i >= 200 && i < 300 ? [Number.NaN, Number.NaN] : i === 400 ? [95, 7] : [45 + i * 1e-5, 7 + Math.sin(i / 20) * 1e-3]));
  const route = projectRoute(latitude, longitude)!;
  assert.is(route.segments.length, 2);
  assert.is(route.fixes, 499);
});

test('draws nothing with fewer than two fixes, and a dot for a track that never moved', () => {
  assert.is(projectRoute(new Float64Array([Number.NaN, 45]), new Float64Array([7, Number.NaN])), null);
  assert.is(routeFigure([45], [7]), null);
  const still = track(100, () => [45, 7]);
  const figure = routeFigure(still.latitude, still.longitude)!.toString();
  assert.match(figure, /d="M500 \d+(\.\d)?L500 \d+(\.\d)?/);
});

test('scale bars are 1, 2 or 5 × 10ⁿ m near a fifth of the drawing', () => {
  assert.is(scaleBarMetres(0.1), 2000);
  assert.is(scaleBarMetres(0.04), 5000);
  assert.is(scaleBarMetres(1), 200);
});

test.run();
