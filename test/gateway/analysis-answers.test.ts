/**
 * One activity's mean-max and AWD answered from its analysis cache (engine/service/analyses.ts): corpus
 * files uploaded through the API (rides with power, runs with speed only, a multisport file with a gap),
 * each question asked first with the cache marked stale (computed from the raw series in the pool), then
 * with the cache current and the series deleted (read from the cache alone), then again (the remembered
 * file). The HTTP answers must be the same bytes each time; a question off the cache's grid still needs
 * the series.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { parquetMetadata } from 'hyparquet';
import { REPO_ROOT } from '../../bench/support.js';
import { startStack, type TestStack } from '../support/stack.js';
import { settled, upload, type SourceBody } from '../support/uploads.js';
import type { ActivityRecord } from '../../storage/store.js';

const FILES = [
  'sweatpy/4078723797.fit',
  'fit-file-parser/road-with-power.fit',
  'python-fitparse/garmin-fenix-5-run.fit',
  'python-fitparse/activity-large-fenxi2-multisport.fit',
  'derived/fenix5-run-then-bike-chained.fit',
];

/** Questions the cache answers: the defaults, the full grid, listed grid points (one past any ride), both metrics. */
const CACHED = [
  'mean-max', 'mean-max?durations=all', 'mean-max?durations=1,5,60,185,1230,3660,86400', 'mean-max?metric=speed', 'mean-max?metric=speed&durations=all',
  'accumulated-work-duration', 'accumulated-work-duration?metric=power', 'accumulated-work-duration?metric=speed',
];
/** Between grid points ("for a single activity compute them exactly"): only the series answers it. */
const OFF_GRID = 'mean-max?durations=7,61,601,3601';

let stack: TestStack;
let token: string;
let userId: string;
let activities: Pick<ActivityRecord, 'id' | 'series_key' | 'analysis_version'>[] = [];

test.before(async () => {
  stack = await startStack();
  ({ userId, token } = await stack.userWithToken(['activities:read', 'activities:write']));
  const dir = path.join(REPO_ROOT, 'test', 'fixtures', 'fit');
  const response = await upload(stack, token, FILES.map((file) => ({ name: path.basename(file), bytes: readFileSync(path.join(dir, file)) })));
  const { sources } = (await response.json()) as { sources: SourceBody[] };
  for (const accepted of sources) assert.is((await settled(stack, token, accepted.id, 60_000)).status, 'processed');
  activities = await stack.store.activities.findFields({ user_id: userId }, ['id', 'series_key', 'analysis_version']);
  assert.ok(activities.length > FILES.length, 'the multisport files give more than one activity each');
});

test.after(() => stack.close());

async function answer(id: string, question: string): Promise<{ status: number; type: string | null; algorithm: string | null; bytes: Buffer }> {
  const response = await stack.get(`/api/v1/activities/${id}/${question}`, token);
  return {
    status: response.status, type: response.headers.get('content-type'), algorithm: response.headers.get('threshold-algorithm'),
    bytes: Buffer.from(await response.arrayBuffer()),
  };
}

test('a current cache answers mean-max and AWD with the bytes the raw series gives, without reading the series', async () => {
  const version = activities[0]!.analysis_version;
  // Stale caches: every question is computed from the series (and nothing is remembered).
  await stack.store.activities.updateMany({ user_id: userId }, { set: { analysis_version: -1 } });
  const fromSeries = new Map<string, Awaited<ReturnType<typeof answer>>>();
  for (const { id } of activities) {
    for (const question of [...CACHED, OFF_GRID]) {
      const got = await answer(id, question);
      assert.is(got.status, 200, `${id} ${question}: ${got.bytes.toString()}`);
      fromSeries.set(`${id} ${question}`, got);
    }
  }
  // Current caches, series gone: the cache alone answers, then the remembered file; the same bytes.
  await stack.store.activities.updateMany({ user_id: userId }, { set: { analysis_version: version } });
  for (const { series_key } of activities) await stack.store.blobs.delete(series_key);
  let checked = 0;
  for (const { id } of activities) {
    for (const question of CACHED) {
      const expected = fromSeries.get(`${id} ${question}`)!;
      for (const round of ['from the cache', 'remembered']) {
        const got = await answer(id, question);
        assert.is(got.status, 200, `${id} ${question} ${round}: ${got.bytes.toString()}`);
        assert.is(got.type, expected.type);
        assert.is(got.algorithm, expected.algorithm);
        assert.ok(got.bytes.equals(expected.bytes), `${id} ${question} ${round}: ${got.bytes.byteLength} bytes, not the series' ${expected.bytes.byteLength}`);
      }
    }
    // Off the grid the series is needed, unless the answer is empty (no power, or no section that long).
    const expected = fromSeries.get(`${id} ${OFF_GRID}`)!;
    const offGrid = await answer(id, OFF_GRID);
    if (Number(parquetMetadata(new Uint8Array(expected.bytes).buffer).num_rows) === 0) assert.ok(offGrid.bytes.equals(expected.bytes), `${id} ${OFF_GRID} (empty)`);
    else assert.is(offGrid.status, 409, `${id} ${OFF_GRID} needs the series: ${offGrid.status}`);
    checked += offGrid.status === 409 ? 1 : 0;
  }
  assert.ok(checked >= 2, `${checked} rides with power past 7 s`);
});

test.run();
