import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { status } from '@grpc/grpc-js';
import { tableFromIPC } from 'apache-arrow';
import { decodeAnalysis } from '../../engine/analysis/analysis-codec.js';
import { EngineError } from '../../engine/errors.js';
import { createPool } from '../../engine/pool/pool.js';
import type { TaskName } from '../../engine/pool/tasks.js';
import { warmUp } from '../../engine/pool/warm-up.js';
import { csvBytes, largeCsv } from './support.js';

const pool = createPool({ threads: 1 });

function standalone(bytes: Uint8Array): ArrayBuffer {
  return bytes.slice().buffer as ArrayBuffer;
}

test('decodes a CSV in a worker, moving the bytes there and the series and analysis cache back', async () => {
  const bytes = standalone(csvBytes(['timestamp,sport,power', '2024-05-01T07:00:00+02:00,cycling,250', '2024-05-01T07:00:01+02:00,cycling,']));
  const outcome = await pool.run('decodeFile', { bytes, type: 'csv' }, { transferList: [bytes] });
  assert.is(bytes.byteLength, 0, 'the input buffer was transferred, not copied');
  assert.ok(outcome.ok);
  if (!outcome.ok) return;
  const [activity] = outcome.activities;
  assert.equal({ ...activity, series: null, analysis: null }, {
    sport: 'cycling', start: Date.UTC(2024, 4, 1, 5), end: Date.UTC(2024, 4, 1, 5) + 2000 /* the last sample's 1 s hold ends it */, offset: 120, samples: 2, metrics: ['power'], series: null,
    summary: { power: { mean: 250, max: 250 } }, laps: [], devices: [], distance: null, analysis: null,
  });
  // Power held 1 s at 250 W, then a missing value counted as 0 for its last second.
  const analysis = decodeAnalysis(new Uint8Array(activity!.analysis));
  assert.equal(Array.from(analysis.curves.power!.values), [250, 125]);
  assert.equal(Array.from(analysis.awd.power!.subarray(249, 251)), [0, 1000]);
  assert.instance(activity!.series, ArrayBuffer);
  const table = tableFromIPC(new Uint8Array(activity!.series));
  assert.equal(table.toArray().map((row) => row.toJSON()), [
    { timestamp: Date.UTC(2024, 4, 1, 5), power: 250 },
    { timestamp: Date.UTC(2024, 4, 1, 5) + 1000, power: null },
  ]);
});

test('returns an undecodable file as a failure value with its code', async () => {
  const bytes = standalone(csvBytes(['timestamp,sport', '2024-05-01T07:00:00,cycling']));
  const outcome = await pool.run('decodeFile', { bytes, type: 'csv' }, { transferList: [bytes] });
  assert.equal(outcome, {
    ok: false,
    code: 'csv_naive_timestamp',
    message: "csv decode: line 2 column timestamp: '2024-05-01T07:00:00' has no UTC offset",
  });
});

test('rejects with AbortError when the signal aborts while the task runs, and keeps serving', async () => {
  const bytes = standalone(largeCsv(100_000));
  const controller = new AbortController();
  const running = pool.run('decodeFile', { bytes, type: 'csv' }, { signal: controller.signal, transferList: [bytes] });
  controller.abort(new Error('deadline'));
  try {
    await running;
    assert.unreachable('the task should have been aborted');
  } catch (error) {
    assert.is((error as Error).name, 'AbortError');
  }
  const next = standalone(csvBytes(['timestamp,sport', '2024-05-01T07:00:00Z,running']));
  assert.ok((await pool.run('decodeFile', { bytes: next, type: 'csv' }, { transferList: [next] })).ok);
});

test('answers RESOURCE_EXHAUSTED when every thread is busy and the queue is full', async () => {
  const small = createPool({ threads: 1, maxQueue: 1 });
  const controller = new AbortController();
  const settled = Array.from({ length: 3 }, () => {
    const bytes = standalone(largeCsv(1_000));
    return small.run('decodeFile', { bytes, type: 'csv' }, { transferList: [bytes], signal: controller.signal }).then(() => 'decoded', (error: unknown) => error);
  });
  controller.abort(); // the two admitted tasks need not finish
  const [first, second, third] = await Promise.all(settled);
  assert.is((first as Error).name, 'AbortError');
  assert.is((second as Error).name, 'AbortError');
  assert.instance(third, EngineError);
  assert.is((third as EngineError).status, status.RESOURCE_EXHAUSTED);
  assert.is((third as EngineError).message, 'engine: worker pool queue is full');
  await small.destroy();
});

test('warms each thread once at start: every thread runs the warm-up, none runs it twice', async () => {
  const warming = createPool({ threads: 3 });
  try {
    const threads = await warming.warmUp();
    assert.is(threads.length, 3);
    assert.is(new Set(threads).size, 3, `three threads warmed: ${threads.join(', ')}`);
    assert.is(warming.stats().completed, 3);
  } finally {
    await warming.destroy();
  }
});

test('the warm-up runs every analysis task a thread serves, and returns the cache it built [first call after a restart]', () => {
  const warmed = warmUp({ arrived: new Int32Array(new SharedArrayBuffer(4)), threads: 1 });
  // Ingest (decodeFile), the streamed series, the model fit and the warm-up itself are not analysis paths of a call's table.
  const analysisTasks = ['activityAwd', 'activityMeanMax', 'afterBests', 'analyzeSeries', 'encodeSeriesTable', 'longitudinalAwd', 'meanMaxTable', 'trainingLoadTable'];
  assert.equal(Object.keys(warmed.bytes).sort(), analysisTasks);
  for (const task of analysisTasks) assert.ok(warmed.bytes[task as TaskName]! > 0, `${task} wrote bytes`);
  const analysis = decodeAnalysis(new Uint8Array(warmed.analysis));
  assert.ok(analysis.curves.power!.values.length > 0 && analysis.curves.speed!.values.length > 0, 'the cache holds both curves');
  assert.ok(analysis.awd.power!.length > 0, 'and the power AWD histogram');
});

test.after(() => pool.destroy());

test.run();
