/** The wire contract's constants agree with what the engine stores and computes. */
import * as assert from 'uvu/assert';
import { test } from '../support/uvu.js';
import { DEFAULT_METRICS, METRICS } from '../../engine/contract.js';
import { NON_SERIES_METRICS, SERIES_METRICS } from '../../engine/ingest/series.js';

test('the Metric values are exactly the per-sample series plus the metrics that are not series', () => {
  assert.equal([...METRICS].sort(), [...SERIES_METRICS, ...NON_SERIES_METRICS].sort());
  assert.is(new Set(METRICS).size, METRICS.length);
});

test('the default series columns are Metric values', () => {
  for (const metric of DEFAULT_METRICS) assert.ok((METRICS as readonly string[]).includes(metric), metric);
});

test.run();
