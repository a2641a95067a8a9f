/**
 * Pace on the athlete's pages (gateway/pages/charts/pace.ts and its use by the charts): which sports show it,
 * how it is written, the cap that stands for standing still, and the pace axis (round ticks, faster at the
 * top) of the speed-over-time panel and of the mean-max curve. The pages in Chromium:
 * test/browser/athlete-pages.test.ts.
 */
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { paceAxis, paceCap, paceOf, paceOfSpeed, paceText, usesPace } from '../../gateway/pages/charts/pace.js';
import { fittedPaceAxis, paceBuckets, timeSeriesFigure } from '../../gateway/pages/charts/time-series.js';
import { meanMaxFigure } from '../../gateway/pages/charts/mean-max.js';
import { bucketize } from '../../gateway/pages/charts/buckets.js';

test('shows pace for running, walking and hiking of any kind, and km/h for cycling and the rest', () => {
  for (const sport of ['running', 'running.trail', 'running+stationary', 'running.treadmill', 'walking', 'walking.hiking', 'hiking']) assert.ok(usesPace(sport), sport);
  for (const sport of ['cycling', 'cycling.road', 'cycling+stationary', 'rowing', 'xc_skiing', 'swimming', 'generic', 'not a sport']) assert.not.ok(usesPace(sport), sport);
});

test('writes pace as min:ss per km, rounded to the second, with hours past an hour', () => {
  assert.is(paceText(275), '4:35');
  assert.is(paceText(299.6), '5:00');
  assert.is(paceText(59), '0:59');
  assert.is(paceText(3723), '1:02:03');
  assert.is(paceOfSpeed(1000 / 275, paceCap('running')), '4:35');
  assert.is(paceOfSpeed(Number.NaN, paceCap('running')), '–');
});

test('caps the pace of standing still at 15:00 /km running and 30:00 /km walking, never infinite', () => {
  assert.is(paceCap('running.trail'), 900);
  assert.is(paceCap('walking.hiking'), 1800);
  assert.is(paceOf(0, 900), 900);
  assert.is(paceOf(0.5, 900), 900);
  assert.is(paceOf(-1, 900), 900);
  assert.is(paceOf(1000 / 1200, 1800), 1200);
  assert.ok(Number.isNaN(paceOf(Number.NaN, 900)));
});

test('puts pace ticks on round values that cover the range, at most the asked number of steps', () => {
  assert.equal(paceAxis(262, 341, 3), { fast: 240, slow: 360, ticks: [240, 300, 360] });
  assert.equal(paceAxis(283, 301, 4), { fast: 280, slow: 310, ticks: [280, 290, 300, 310] });
  assert.equal(paceAxis(301, 283, 4), paceAxis(283, 301, 4), 'either order');
  assert.equal(paceAxis(190, 900, 3), { fast: 180, slow: 900, ticks: [300, 600, 900] }, 'the top stops at the minute above the fastest pace, not at 0:00');
  assert.equal(paceAxis(300, 300, 3), { fast: 300, slow: 305, ticks: [300, 305] }, 'a flat pace still gets an axis');
});

test('draws the fastest bucket as the highest speed, and fits the axis to the running, not to a stop', () => {
  // 30 minutes at 4:00–5:00 /km with a two-minute stop (0 m/s) in the middle.
  const n = 1800;
  const elapsed = new Float64Array(n);
  const speed = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    elapsed[i] = i;
    speed[i] = i >= 900 && i < 1020 ? 0 : 1000 / (240 + 60 * ((i % 120) / 120));
  }
  const speeds = bucketize(elapsed, speed, 0, n - 1, 60);
  const pace = paceBuckets(speeds, 900);
  for (let b = 0; b < 60; b++) {
    assert.ok(pace.min[b]! <= pace.mean[b]! && pace.mean[b]! <= pace.max[b]!, `bucket ${b}`);
    assert.ok(Math.abs(pace.min[b]! - 1000 / speeds.max[b]!) < 1e-9 || pace.min[b] === 900);
  }
  assert.is(Math.max(...pace.max), 900, 'the stop is drawn at the cap');
  const axis = fittedPaceAxis(pace, 900)!;
  assert.equal(axis.domain, [300, 240], 'slow end at the bottom, fast end at the top, the stop off the bottom edge');
  assert.equal(axis.ticks, [240, 270, 300]);
});

test('writes the pace panel\'s axis and read-out values as min:ss, with 4:00 above 5:00', () => {
  const n = 600;
  const elapsed = Float64Array.from({ length: n }, (_, i) => i);
  const speed = Float64Array.from({ length: n }, (_, i) => 1000 / (240 + (i % 60)));
  const figure = timeSeriesFigure(elapsed, n - 1, [{ metric: 'speed', label: 'Pace', unit: '/km', values: speed, decimals: 0, pace: { cap: 900 } }]).value;
  const wide = figure.slice(0, figure.indexOf('</svg>'));
  const ticks = [...wide.matchAll(/y="([\d.]+)" text-anchor="end" fill="#6b7280">(\d+:\d\d)<\/text>/g)].map((match) => ({ y: Number(match[1]), text: match[2]! }));
  assert.ok(ticks.length >= 2, wide.slice(0, 400));
  const at = (text: string) => ticks.find((tick) => tick.text === text)!.y;
  assert.ok(at('4:00') < at('5:00'), 'faster is higher on the page');
  assert.match(wide, /data-unit="\/km" data-values="\d:\d\d,/);
});

test('draws a pace mean-max curve with min:ss ticks, faster at the top, and min:ss read-out points', () => {
  const points = [1, 5, 60, 300, 1200].map((duration, i) => ({ duration, value: [200, 210, 235, 262, 281][i]! }));
  const figure = meanMaxFigure([{ label: 'Pace', color: '#0284c7', points }], { unit: '/km', decimals: 0, pace: true }).value;
  const wide = figure.slice(0, figure.indexOf('</svg>'));
  const ticks = [...wide.matchAll(/y="([\d.]+)" text-anchor="end" fill="#6b7280">(\d+:\d\d)<\/text>/g)].map((match) => ({ y: Number(match[1]), text: match[2]! }));
  assert.ok(ticks.length >= 3, JSON.stringify(ticks));
  for (let i = 1; i < ticks.length; i++) assert.ok(ticks[i]!.y > ticks[i - 1]!.y, 'each slower tick is lower');
  assert.not.ok(ticks.some((tick) => tick.text === '0:00'), 'no 0:00 /km tick');
  assert.match(wide, 'data-points="1:3:20,5:3:30,60:3:55,300:4:22,1200:4:41"');
});

test.run();
