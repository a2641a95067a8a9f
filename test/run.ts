/**
 * `npm test`: runs every `*.test.js` under dist/test with uvu, each file in a child process of its own
 * and several at a time (support/run-pool.ts), prints each file's output whole when it finishes, and
 * closes with the plain summary line `N passed, N failed, N skipped` that CI reads. A file that fails to
 * load is one failed test (support/run-files.ts); a file that runs past TEST_FILE_LIMIT_MS is killed and
 * counted as one failure more than it had; past TEST_RUN_LIMIT_MS (or on Ctrl-C) the run stops, and the
 * lines above the summary name the files that timed out and those that did not run, while the summary
 * still counts everything that did. Every process a test started is ended with its file.
 *
 *   npm test                 everything, TEST_JOBS files at a time (default: one per core, one per GiB at most)
 *   npm test -- storage      only test files whose path matches /storage/
 *   TEST_JOBS=1 npm test     one file at a time
 *
 * A file whose source carries the line `// test-runner: alone (<why>)` runs with no other file beside it
 * (timing-sensitive tests). Kept honest by test/support/run.test.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'uvu/parse';
import { REPO_ROOT } from './support/paths.js';
import { formatMs, runPool, type FileRun } from './support/run-pool.js';

/** Settings of the run, read from the environment; a bad value stops the run before it starts. */
function settings(env: NodeJS.ProcessEnv): { dir: string; jobs: number; fileLimitMs: number; runLimitMs: number } {
  const problems: string[] = [];
  const positive = (name: string, fallback: number): number => {
    const text = env[name];
    if (text === undefined || text === '') return fallback;
    if (!/^[1-9]\d*$/.test(text)) problems.push(`${name} must be a positive integer (got '${text}')`);
    return Number(text);
  };
  const result = {
    dir: env.TEST_DIR ?? path.join(REPO_ROOT, 'dist/test'), // TEST_DIR: the folder of built test files
    // TEST_JOBS: files at a time; default one per core, and at most one per GiB of memory (a browser file takes about that)
    jobs: positive('TEST_JOBS', Math.max(1, Math.min(os.availableParallelism(), Math.floor(os.totalmem() / 2 ** 30)))),
    fileLimitMs: positive('TEST_FILE_LIMIT_MS', 10 * 60_000), // TEST_FILE_LIMIT_MS: one file's limit, 10 min
    runLimitMs: positive('TEST_RUN_LIMIT_MS', 30 * 60_000), // TEST_RUN_LIMIT_MS: the whole run's limit, 30 min
  };
  if (problems.length > 0) {
    process.stderr.write(`${problems.join('\n')}\n`);
    process.exit(2);
  }
  return result;
}

const ALONE = /^\/\/ test-runner: alone\b/m;
/** Where the last run's durations per file are kept, to start the longest files first. */
const DURATIONS = path.join(REPO_ROOT, 'dist', '.test-durations.json');

const config = settings(process.env);
const filter = process.argv[2];
const pattern = filter ? `${filter.replace(/[.+?^${}()|[\]\\]/g, '\\$&')}.*\\.test\\.js$` : '\\.test\\.js$';
const { suites } = await parse(config.dir, pattern);
const files = suites.map((suite) => suite.name);
if (files.length === 0) process.stdout.write(`no test file under ${path.relative(REPO_ROOT, config.dir) || '.'} matches ${filter ? `'${filter}'` : '*.test.js'}\n`);
const alone = new Set(files.filter((file) => ALONE.test(fs.readFileSync(path.join(config.dir, file), 'utf8'))));
const lastDurations = readDurations();
files.sort((a, b) => (lastDurations[b] ?? Infinity) - (lastDurations[a] ?? Infinity) || a.localeCompare(b));

const started = Date.now();
const pool = runPool({
  ...config,
  files,
  alone,
  env: { ...process.env, THRESHOLD_TEST: '1' },
  onFile(run) {
    process.stdout.write(run.output.endsWith('\n') ? run.output : `${run.output}\n`);
    if (run.outcome === 'timed-out') process.stdout.write(`  ✘ ${run.file} timed out after ${formatMs(run.ms)} (TEST_FILE_LIMIT_MS) and was killed\n`);
    if (run.leftRunning > 0) process.stdout.write(`  ✘ ${run.file} left ${run.leftRunning} process group(s) running; killed\n`);
  },
});
const interrupt = (signal: NodeJS.Signals): void => pool.stop(`interrupted (${signal})`);
process.once('SIGINT', interrupt);
process.once('SIGTERM', interrupt);

const { runs, notRun, stoppedBy } = await pool.done;
writeDurations(runs);
const sum = (key: 'passed' | 'failed' | 'skipped') => runs.reduce((total, run) => total + run[key], 0);
process.stdout.write(`\n  Files:     ${runs.length} run, ${config.jobs} at a time${alone.size > 0 ? ` (${alone.size} alone)` : ''}\n  Duration:  ${formatMs(Date.now() - started)}\n`);
if (stoppedBy !== null) process.stdout.write(`\ntest run stopped: ${stoppedBy}\n`);
for (const run of runs.filter((entry) => entry.outcome !== 'done')) {
  process.stdout.write(`${run.outcome === 'timed-out' ? 'timed out' : 'stopped'}: ${run.file} after ${formatMs(run.ms)} (${run.passed} passed before, counted as ${run.failed} failed)\n`);
}
if (notRun.length > 0) process.stdout.write(`did not run: ${notRun.length} file(s): ${notRun.join(', ')}\n`);
// The closing line keeps its format (CI reads it); a run that did not finish fails even if all it ran passed.
process.stdout.write(`\n${sum('passed')} passed, ${sum('failed')} failed, ${sum('skipped')} skipped\n`);
process.exitCode = sum('failed') > 0 || notRun.length > 0 || stoppedBy !== null ? 1 : 0;

function readDurations(): Record<string, number> {
  try {
    return JSON.parse(fs.readFileSync(DURATIONS, 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}

function writeDurations(finished: FileRun[]): void {
  if (config.dir !== path.join(REPO_ROOT, 'dist/test')) return;
  const durations = { ...lastDurations, ...Object.fromEntries(finished.filter((run) => run.outcome === 'done').map((run) => [run.file, run.ms])) };
  fs.writeFileSync(DURATIONS, `${JSON.stringify(durations)}\n`);
}
