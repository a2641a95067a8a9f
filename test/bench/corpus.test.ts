/**
 * The benches' corpus (bench/corpus.ts, issue 27 item 1) is the FIT corpus as a user uploads it: every file
 * through the upload endpoint of the real stack settles, with the failures and the activities that
 * test/fixtures/fit-corpus.expected.json pins for the files present here (the GPL folder only when the shared
 * corpus is beside the checkout). No timing is asserted: the benches time, this only checks what they time.
 */
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { importCorpus } from '../../bench/corpus.js';
import { fitCorpusKeys } from '../support/fit-corpus.js';
import { FIXTURES } from '../support/paths.js';
import { startStack } from '../support/stack.js';

type Pinned = { status: 'failed' } | { status: 'processed'; activities: { sport: string; start: string }[] };

test('uploads every corpus FIT file as a user would: the pinned failures fail, every pinned activity is stored', async () => {
  const golden = JSON.parse(readFileSync(path.join(FIXTURES, 'fit-corpus.expected.json'), 'utf8')) as Record<string, Pinned>;
  const keys = fitCorpusKeys().filter((key) => key.toLowerCase().endsWith('.fit'));
  const pinned = keys.map((key) => golden[key]!);
  const stack = await startStack();
  try {
    const corpus = await importCorpus(stack, ['activities:read']);
    assert.is(corpus.files, keys.length);
    assert.is(corpus.failed, pinned.filter((entry) => entry.status === 'failed').length);
    const expected = pinned.flatMap((entry) => (entry.status === 'processed' ? entry.activities : [])).map((a) => `${a.sport} ${a.start}`).sort();
    assert.equal(corpus.activities.map((a) => `${a.sport} ${new Date(a.start).toISOString()}`).sort(), expected);
    assert.equal(corpus.activities.map((a) => a.start), [...corpus.activities.map((a) => a.start)].sort((a, b) => a - b), 'oldest first');
    assert.ok(corpus.hours > 0 && corpus.activities.some((a) => a.metrics.includes('power')), 'rides with power among them');
  } finally {
    await stack.close();
  }
});

test.run();
