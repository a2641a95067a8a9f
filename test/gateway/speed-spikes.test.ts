/**
 * Speed without GPS spikes (ANALYTICS.md §1.3) through the real stack: a run whose watch recorded a speed
 * channel serves that channel's speeds on every speed analysis (mean-max, AWD, the longitudinal curve from
 * the cache and from raw series with `after`, speed segments), and a CSV run without a channel has its
 * distance jumps held to the sport's cap. The corpus-wide bounds: test/engine/speed-spikes.test.ts.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parquetReadObjects } from 'hyparquet';
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { ANALYSIS_VERSION } from '../../engine/analysis/activity-analysis.js';
import { FIT_FIXTURES } from '../support/fit-corpus.js';
import { startStack, type TestStack } from '../support/stack.js';
import { settled, upload, type SourceBody } from '../support/uploads.js';

type Row = Record<string, unknown>;

const show = (rows: Row[]) => JSON.stringify(rows, (_, value: unknown) => (typeof value === 'bigint' ? Number(value) : value));

/** python-fitparse/2013-02-06-12-11-14.fit: a run at 8:23 /km; its watch's fastest second 5.222 m/s. */
const RUN = 'python-fitparse/2013-02-06-12-11-14.fit';
const CHANNEL_MAX = 5.222;

let stack: TestStack;
let token: string;

test.before(async () => {
  stack = await startStack({ JOB_POLL_MS: '20' });
  ({ token } = await stack.userWithToken(['activities:read', 'activities:write']));
});

test.after(() => stack.close());

async function ingest(name: string, bytes: Uint8Array | string): Promise<string> {
  const response = await upload(stack, token, [{ name, bytes: typeof bytes === 'string' ? Buffer.from(bytes) : bytes }]);
  const [accepted] = ((await response.json()) as { sources: SourceBody[] }).sources;
  const source = await settled(stack, token, accepted!.id);
  assert.is(source.status, 'processed', JSON.stringify(source.error));
  return source.activity_ids[0]!;
}

async function parquet(url: string): Promise<Row[]> {
  const response = await stack.get(url, token);
  assert.is(response.status, 200, `${url}: ${response.status}`);
  return (await parquetReadObjects({ file: await response.arrayBuffer() })) as Row[];
}

const near = (actual: unknown, expected: number, what: string) => assert.ok(Math.abs((actual as number) - expected) < 1e-9, `${what}: ${actual} m/s, expected ${expected}`);

test('a run with a speed channel serves the watch\'s speeds: 1 s best 5.222 m/s (GPS distance gave 13.41) on every speed analysis', async () => {
  const id = await ingest('run.fit', readFileSync(path.join(FIT_FIXTURES, RUN)));
  const curve = await parquet(`/api/v1/activities/${id}/mean-max?metric=speed&durations=1,5,30`);
  near(curve[0]!.speed, CHANNEL_MAX, '1 s best');
  assert.ok((curve[1]!.speed as number) <= CHANNEL_MAX + 1e-9 && (curve[2]!.speed as number) <= CHANNEL_MAX + 1e-9, show(curve));
  // AWD defaults to speed for a run: its highest level is the channel's fastest second.
  const awd = await parquet(`/api/v1/activities/${id}/accumulated-work-duration`);
  assert.is(awd[0]!.speed, 5.22);
  // From the analysis cache (computed at ingest with the run's sport) and from the raw series with after.
  const cached = await parquet('/api/v1/activities/longitudinal-mean-max?sport=running&metric=speed&durations=1&start=2000-01-01');
  near(cached[0]!.speed, CHANNEL_MAX, 'longitudinal 1 s best');
  const after = await parquet('/api/v1/activities/longitudinal-mean-max?sport=running&metric=speed&durations=1&start=2012-06-01&end=2013-05-01&after=0&after=500');
  assert.is(after.length, 2, show(after));
  for (const row of after) assert.ok((row.speed as number) <= CHANNEL_MAX + 1e-9, `after ${row.after}: ${row.speed}`);
  near(after[0]!.speed, CHANNEL_MAX, 'after 0 m');
  const segments = await parquet(`/api/v1/activities/${id}/data?metrics=speed&segmentation_on=speed`);
  assert.ok(segments.length > 1 && segments.every((row) => (row.speed as number) <= CHANNEL_MAX + 1e-9), 'no segment faster than the watch');
});

test('the analysis endpoints name the version of the rule behind their numbers: Threshold-Algorithm analysis/<ANALYSIS_VERSION>', async () => {
  const id = await ingest('header.csv', 'timestamp,sport,distance\n2024-06-01T07:00:00Z,running,0\n2024-06-01T07:00:01Z,running,3\n');
  const urls = [
    `/api/v1/activities/${id}/mean-max?metric=speed`,
    `/api/v1/activities/${id}/accumulated-work-duration`,
    '/api/v1/activities/longitudinal-mean-max?sport=running&metric=speed&start=2024-06-01',
    '/api/v1/activities/longitudinal-accumulated-work-duration?start=2024-06-01&format=json',
  ];
  for (const url of urls) {
    const response = await stack.get(url, token);
    assert.is(response.status, 200, url);
    assert.is(response.headers.get('threshold-algorithm'), `analysis/${ANALYSIS_VERSION}`, url);
    await response.arrayBuffer();
  }
});

test('a CSV run without a speed channel has a 3 s distance jump at 15 m/s held to the foot cap (11 m/s); another sport\'s cap is 60 m/s', async () => {
  // 3 m/s for a minute, but 45 m in seconds 30–32: three bins at 15 m/s, a plateau no out-and-back test sees.
  const csv = (sport: string, day: string) => {
    const lines = ['timestamp,sport,distance'];
    let metres = 0;
    for (let i = 0; i < 60; i++) {
      lines.push(`2024-05-${day}T07:00:${String(i).padStart(2, '0')}+02:00,${sport},${metres}`);
      metres += i >= 30 && i < 33 ? 15 : 3;
    }
    return `${lines.join('\n')}\n`;
  };
  const run = await ingest('run.csv', csv('running', '01'));
  near((await parquet(`/api/v1/activities/${run}/mean-max?metric=speed&durations=1`))[0]!.speed, 3, 'running 1 s best');
  const other = await ingest('other.csv', csv('generic', '02'));
  near((await parquet(`/api/v1/activities/${other}/mean-max?metric=speed&durations=1`))[0]!.speed, 15, 'generic 1 s best');
});

test.run();
