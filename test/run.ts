/**
 * `npm test`: runs every `*.test.js` under dist/test with uvu in a child process (support/run-files.ts:
 * a file that fails to load is one failed test, the others still run), echoes its output, and closes
 * with the plain summary line `N passed, N failed, N skipped` that CI reads. A run that hangs (a server
 * left open) is ended after RUN_LIMIT_MS and counted as failed.
 *
 *   npm test                 everything
 *   npm test -- storage      only test files whose path matches /storage/
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from './support/paths.js';

const RUN_LIMIT_MS = 30 * 60_000;

const filter = process.argv[2];
const pattern = filter ? `${filter.replace(/[.+?^${}()|[\]\\]/g, '\\$&')}.*\\.test\\.js$` : '\\.test\\.js$';
const child = spawn(process.execPath, [path.join(REPO_ROOT, 'dist/test/support/run-files.js'), 'dist/test', pattern], {
  cwd: REPO_ROOT,
  stdio: ['ignore', 'pipe', 'inherit'],
  env: { ...process.env, THRESHOLD_TEST: '1' },
});

let output = '';
child.stdout.on('data', (chunk: Buffer) => {
  output += chunk.toString('utf8');
  process.stdout.write(chunk);
});
const limit = setTimeout(() => {
  process.stdout.write(`\ntest run exceeded ${RUN_LIMIT_MS / 60_000} minutes; stopping it\n`);
  child.kill('SIGKILL');
}, RUN_LIMIT_MS);

child.on('exit', (code, signal) => {
  clearTimeout(limit);
  const count = (label: string) => Number(new RegExp(`${label}:\\s+(\\d+)`).exec(output)?.[1] ?? 0);
  const total = count('Total');
  const passed = count('Passed');
  const skipped = count('Skipped');
  // uvu's Total counts the tests that ran, so the skipped ones are not in it.
  const failed = Math.max(total - passed, code === 0 && signal === null ? 0 : 1);
  process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  process.exitCode = failed > 0 || code !== 0 ? 1 : 0;
});
