/**
 * The benches converted to rows (issue 27 items 1, 3 and 6) return them: each script run by `npm run bench`
 * (bench/run.ts) at its trial size (BENCH_QUICK=1, bench/support.ts quick()), and the rows it wrote checked
 * for shape: a question, its data set (the corpus and synthetic data where the script measures both), a
 * positive figure with its unit, its anchor with a label, and the ratio share() makes of the two (higher
 * or lower is better). The figures themselves are not asserted: no timing belongs in the suite.
 */
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../support/paths.js';
import { tempDir } from '../support/stack.js';
import { share, type ResultsFile, type TableRow } from '../../bench/results.js';

const RUN = path.join(REPO_ROOT, 'dist', 'bench', 'run.js');

/** The scripts (their file name before .bench.js), and the data sets each reports. */
const CONVERTED: [string, ('corpus' | 'synthetic')[]][] = [
  ['ingest', ['corpus', 'synthetic']],
  ['import', ['corpus', 'synthetic']],
  ['first-call', ['corpus', 'synthetic']],
  ['longitudinal', ['synthetic']],
  ['longitudinal-fields', ['corpus', 'synthetic']],
  ['longitudinal-store-cost', ['synthetic']],
  ['model-store-cost', ['synthetic']],
  ['user-deletion', ['synthetic']],
];

/** The rows `npm run bench -- NAME` writes for the script NAME alone, at its trial size. */
function quickRows(name: string): TableRow[] {
  const results = path.join(tempDir('bench-rows-'), 'bench-results.json');
  const outcome = spawnSync(process.execPath, [RUN, name], { env: { ...process.env, BENCH_QUICK: '1', BENCH_RESULTS: results }, encoding: 'utf8' });
  assert.is(outcome.status, 0, `${name}: ${outcome.stdout}\n${outcome.stderr}`);
  assert.match(outcome.stdout, '| bench', 'the run ends with the table');
  return (JSON.parse(readFileSync(results, 'utf8')) as ResultsFile).rows.filter((row) => row.bench === name);
}

const positive = (value: unknown) => typeof value === 'number' && Number.isFinite(value) && value > 0;

for (const [name, datasets] of CONVERTED) {
  test(`bench ${name} returns rows: each figure with its unit beside its anchor, the ratio of the two, on ${datasets.join(' and ')} data`, () => {
    const rows = quickRows(name);
    assert.ok(rows.length > 0, `${name} gave no rows`);
    for (const row of rows) {
      const where = `${name}: ${JSON.stringify(row)}`;
      assert.is(row.note, undefined, where);
      assert.ok(row.question.length > 0 && typeof row.anchorLabel === 'string' && row.anchorLabel.length > 0, where);
      assert.ok(row.unit !== undefined && row.unit.length > 0, where);
      assert.ok(positive(row.figure) && positive(row.anchor) && positive(row.ratio), where);
      const ratios = [share(row.figure!, row.anchor!, 'higher'), share(row.figure!, row.anchor!, 'lower')];
      assert.ok(ratios.some((ratio) => Math.abs(ratio - row.ratio!) <= 1e-9 * ratio), `the ratio is the figure's share of its anchor: ${where}`);
      assert.ok(row.goal === undefined || (row.goal > 0 && row.goal <= 1), where);
    }
    assert.equal([...new Set(rows.map((row) => row.dataset))].sort(), datasets, `${name}: data sets`);
    const keys = rows.map((row) => `${row.question}|${row.dataset}`);
    assert.is(new Set(keys).size, keys.length, `${name}: each question once per data set (the previous run's ratio is found by it)`);
  });
}

test.run();
