/** The ingest task's failures are values, and every one of them is permanent (never retried by the job runner). */
import * as assert from 'uvu/assert';
import { test } from '../support/uvu.js';
import { decodeFile, failedDecode } from '../../engine/ingest/ingest-tasks.js';
import { DecodeError } from '../../engine/ingest/decode-error.js';

test('a decoder\'s DecodeError keeps its code and message', () => {
  assert.equal(failedDecode(new DecodeError('fit_not_fit', 'fit decode: not a FIT file')), { ok: false, code: 'fit_not_fit', message: 'fit decode: not a FIT file' });
});

test('anything else a decoder throws is decode_failed, naming what it threw', () => {
  const outcome = failedDecode(new TypeError("Cannot read properties of undefined (reading 'timestamp')"));
  assert.is(outcome.code, 'decode_failed');
  assert.match(outcome.message, "TypeError: Cannot read properties of undefined (reading 'timestamp')");
  assert.ok(failedDecode('x'.repeat(10_000)).message.length < 400, 'bounded');
});

test('an undecodable file is an outcome, not a thrown error', async () => {
  const bytes = new TextEncoder().encode('timestamp,power\n2024-05-01T05:00:00Z,1\n');
  assert.equal(await decodeFile({ bytes: bytes.buffer as ArrayBuffer, type: 'csv' }), {
    ok: false, code: 'csv_missing_column', message: "csv decode: required column 'sport' missing from the header",
  });
});

test.run();
