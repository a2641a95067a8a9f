/**
 * `npm run bench [-- NAME]`: runs every benchmark script in this folder (those whose file name contains
 * NAME), one question each, and prints each script's lines as it finishes, then ONE table of every figure
 * beside its anchor measured in the same run and their ratio (bench/results.ts), with the previous run's
 * ratio when test-artifacts/bench-results.json (or BENCH_RESULTS) holds one. Absolute times are indicative
 * only (machines here are noisy, and the load average is printed); the ratios are the figures to compare.
 * A ratio below half of its anchor is marked `< ½` in the table and listed after it.
 *
 * BENCH_QUICK=1 shrinks every script that reads it (bench/support.ts quick()) to a trial size: the rows'
 * shape, not their figures (test/bench/rows.test.ts runs the converted scripts so).
 *
 * A script that throws is reported in the table and the run goes on; the exit code is then 1. Not part of
 * `npm test`: no timed assertion belongs in the suite. BENCH_DIR names another folder of scripts (the
 * harness's own test runs it on scripts of its own).
 */
import { readdirSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { formatBelowHalf, formatTable, outputText, readResults, tableRows, writeResults, type BenchOutput, type TableRow } from './results.js';
import { REPO_ROOT } from './support.js';

const here = process.env.BENCH_DIR ?? path.dirname(fileURLToPath(import.meta.url));
const resultsFile = process.env.BENCH_RESULTS ?? path.join(REPO_ROOT, 'test-artifacts', 'bench-results.json');
const only = process.argv[2];
const load = () => os.loadavg().map((value) => Number(value.toFixed(2)));

const previous = readResults(resultsFile);
const at = new Date().toISOString();
const startLoad = load();
process.stdout.write(`bench run ${at}: ${os.availableParallelism()} cores, load average ${startLoad.join(' ')}\n`);
const rows: TableRow[] = [];
let failed = 0;
for (const file of readdirSync(here).filter((name) => name.endsWith('.bench.js')).sort()) {
  if (only && !file.includes(only)) continue;
  const bench = file.replace(/\.bench\.js$/, '');
  const { question, run } = (await import(path.join(here, file))) as { question: string; run: () => Promise<BenchOutput> };
  process.stdout.write(`${question}\n`);
  let output: BenchOutput | Error;
  try {
    output = await run();
    process.stdout.write(`  ${outputText(output)}\n`);
  } catch (error) {
    output = error instanceof Error ? error : new Error(String(error));
    failed++;
    process.stdout.write(`  FAILED: ${output.stack ?? output.message}\n`);
  }
  rows.push(...tableRows(bench, question, output));
  writeResults(resultsFile, { at, load: { start: startLoad, end: load() } }, rows, previous); // after each: a run cut short keeps what it measured
}
const endLoad = load();
process.stdout.write(`\nEvery figure beside its anchor measured in the same run (ratio: 1 = at the anchor; load average ${startLoad.join(' ')} at the start, ${endLoad.join(' ')} at the end)\n`);
process.stdout.write(`${formatTable(rows, previous)}\n${formatBelowHalf(rows)}\n`);
process.stdout.write(`written to ${resultsFile}${failed ? `; ${failed} bench${failed > 1 ? 'es' : ''} failed` : ''}\n`);
if (failed) process.exitCode = 1;
