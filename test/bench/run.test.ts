/**
 * `npm run bench` (bench/run.ts, issue 27 item 6) on scripts of its own (BENCH_DIR): every script's lines,
 * then one table of every figure beside its anchor and ratio; a script returning a string (the old shape)
 * shows its question without figures; a script that throws is reported and the run goes on, exit code 1;
 * a ratio below half of its anchor is marked `< ½` and listed after the table; the JSON it writes gives the
 * next run its "previous" column. No timing is asserted.
 */
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../support/paths.js';
import { tempDir } from '../support/stack.js';
import { figureText, type ResultsFile } from '../../bench/results.js';

const RUN = path.join(REPO_ROOT, 'dist', 'bench', 'run.js');

function script(ratio: number): string {
  return `export const question = 'Rows: a figure against its ceiling';
export async function run() {
  return { text: 'rows line', rows: [
    { question: 'GET /x, 16 clients', dataset: 'corpus', figure: 500, unit: 'req/s', anchor: 500 / ${ratio}, anchorLabel: '/healthz', ratio: ${ratio}, goal: 0.125 },
    { question: 'GET /x, 16 clients', dataset: 'synthetic', figure: 12.5, unit: 'ms', anchor: 2.5, anchorLabel: 'kernel alone', ratio: 0.2 },
  ] };
}
`;
}

function bench(dir: string, results: string, only?: string) {
  const outcome = spawnSync(process.execPath, [RUN, ...(only ? [only] : [])], { env: { ...process.env, BENCH_DIR: dir, BENCH_RESULTS: results }, encoding: 'utf8' });
  return { status: outcome.status, stdout: outcome.stdout, stderr: outcome.stderr };
}

const tableLine = (stdout: string, ...cells: string[]) => stdout.split('\n').find((line) => line.startsWith('|') && cells.every((cell) => line.includes(cell)));
/** The trimmed cells of a table line. */
const cells = (line: string | undefined) => (line ?? '').split('|').slice(1, -1).map((cell) => cell.trim());

test('prints every script\'s lines, then one table of data, figure, unit, anchor, ratio and goal; text-only and failing scripts are named in it', () => {
  const dir = tempDir('bench-run-');
  const results = path.join(dir, 'out', 'bench-results.json');
  writeFileSync(path.join(dir, 'a-rows.bench.js'), script(0.25));
  writeFileSync(path.join(dir, 'b-text.bench.js'), `export const question = 'Text: the old shape'; export async function run() { return 'text line 42 req/s'; }\n`);
  writeFileSync(path.join(dir, 'c-throws.bench.js'), `export const question = 'Throws'; export async function run() { throw new Error('stand-in refused'); }\n`);
  writeFileSync(path.join(dir, 'helper.js'), 'export const notABench = 1;\n');

  const first = bench(dir, results);
  assert.is(first.status, 1, 'a failing script makes the run fail');
  assert.match(first.stdout, 'rows line');
  assert.match(first.stdout, 'text line 42 req/s');
  assert.match(first.stdout, 'stand-in refused');
  assert.ok(first.stdout.indexOf('| bench') > first.stdout.indexOf('text line 42'), 'the table comes after every script\'s lines');
  assert.equal(cells(tableLine(first.stdout, 'a-rows', 'corpus')), ['a-rows', 'GET /x, 16 clients', 'corpus', '500', 'req/s', '2,000 req/s /healthz', '0.25 < ½', '0.125', ''], first.stdout);
  assert.equal(cells(tableLine(first.stdout, 'a-rows', 'synthetic')), ['a-rows', 'GET /x, 16 clients', 'synthetic', '12.5', 'ms', '2.5 ms kernel alone', '0.2 < ½', '', ''], first.stdout);
  assert.equal(cells(tableLine(first.stdout, '| bench')), ['bench', 'question', 'data', 'figure', 'unit', 'anchor (same run)', 'ratio', 'goal', 'previous']);
  const flagged = first.stdout.slice(first.stdout.indexOf('below half of the anchor'));
  assert.match(flagged, '- a-rows: GET /x, 16 clients (corpus): 0.25 of /healthz', 'the questions below half are listed after the table');
  assert.match(flagged, '- a-rows: GET /x, 16 clients (synthetic): 0.2 of kernel alone');
  assert.not.match(tableLine(first.stdout, 'a-rows', 'corpus') ?? '', 'MISSED', 'the goal is met');
  assert.ok(tableLine(first.stdout, 'b-text', 'Text: the old shape', 'text only'), 'a string result is listed without figures');
  assert.ok(tableLine(first.stdout, 'c-throws', 'failed: stand-in refused'), 'a failure is listed');
  const written = JSON.parse(readFileSync(results, 'utf8')) as ResultsFile;
  assert.equal(written.rows.map((row) => [row.bench, row.dataset, row.ratio]), [['a-rows', 'corpus', 0.25], ['a-rows', 'synthetic', 0.2], ['b-text', undefined, undefined], ['c-throws', undefined, undefined]]);
  assert.is(written.load.start.length, 3, 'the load average is kept beside the figures');

  // A later run of one bench: its previous ratio beside the new one, and the change; the other benches' rows are kept.
  writeFileSync(path.join(dir, 'a-rows.bench.js'), script(0.1));
  const second = bench(dir, results, 'a-rows');
  assert.is(second.status, 0, second.stderr);
  assert.not.match(second.stdout, 'text line 42', 'only the named bench runs');
  const row = tableLine(second.stdout, 'a-rows', 'corpus')!;
  assert.equal(cells(row).slice(6, 9), ['0.1 < ½', '0.125 MISSED', '0.25 (-60 %)'], row);
  const kept = JSON.parse(readFileSync(results, 'utf8')) as ResultsFile;
  assert.equal(kept.rows.map((r) => r.bench), ['b-text', 'c-throws', 'a-rows', 'a-rows']);
});

test('figures read with three significant digits, thousands grouped', () => {
  assert.equal([0.01234, 2.5, 12.5, 0.2, 999.4, 999.6, 1083.4, 23_456].map(figureText), ['0.0123', '2.5', '12.5', '0.2', '999', '1,000', '1,083', '23,456']);
});

test.run();
