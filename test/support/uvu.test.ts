/**
 * The test wrapper (support/uvu.ts) run as `npm test` runs it: a child process of support/run-files.ts
 * over small suites, one whose `before` hook throws, one that cannot run, one file that throws while
 * loading. The output must name the hook's error, the missing thing and the file that failed to load,
 * and uvu's counters must count the skips and the file as a failure.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import * as assert from 'uvu/assert';
import { test } from './uvu.js';
import { REPO_ROOT } from './paths.js';

const wrapper = pathToFileURL(path.join(REPO_ROOT, 'dist/test/support/uvu.js')).href;
const runFiles = path.join(REPO_ROOT, 'dist/test/support/run-files.js');

async function runSuites(files: Record<string, string>): Promise<string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'threshold-uvu-'));
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
    const run = promisify(execFile)(process.execPath, [runFiles, dir, '\\.test\\.mjs$'], { cwd: REPO_ROOT });
    const { stdout } = await run.catch((error: { stdout: string }) => ({ stdout: error.stdout }));
    return stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a before hook that throws prints its error and the suite name', async () => {
  const output = await runSuites({
    'hook.test.mjs': `import { suite } from '${wrapper}';
const s = suite('needs a server');
s.before(() => { throw new Error('listen EADDRINUSE 127.0.0.1:9'); });
s('one', () => {});
s('two', () => {});
s.run();`,
  });
  assert.match(output, 'before hook of suite "needs a server" failed');
  assert.match(output, 'listen EADDRINUSE 127.0.0.1:9');
  assert.match(output, /Total:\s+2/);
  assert.match(output, /Passed:\s+0/);
});

test('a suite that cannot run counts each test as skipped, names what is missing and runs no hook', async () => {
  const output = await runSuites({
    'skip.test.mjs': `import { suite, skipUnless } from '${wrapper}';
const s = suite('gpl corpus');
skipUnless('needs the GPL folder (/nowhere is missing)', s);
s.before(() => { throw new Error('hook ran'); });
s('one', () => { throw new Error('test ran'); });
s('two', () => {});
s('three', () => {});
s.run();`,
    'runs.test.mjs': `import { test, skipUnless } from '${wrapper}';
skipUnless(null, test);
test('runs', () => {});
test.run();`,
  });
  assert.match(output, 'skipped "gpl corpus": needs the GPL folder (/nowhere is missing)');
  assert.not.match(output, 'hook ran');
  assert.not.match(output, 'test ran');
  assert.match(output, /Total:\s+1/);
  assert.match(output, /Passed:\s+1/);
  assert.match(output, /Skipped:\s+3/);
});

test('a file that throws while loading is named with its error and counted as one failure; the others still run', async () => {
  const output = await runSuites({
    'a-broken.test.mjs': `import { readFileSync } from 'node:fs';
import { test } from '${wrapper}';
readFileSync('/nowhere/corpus.fit');
test('never registered', () => {});
test.run();`,
    'b-runs.test.mjs': `import { test } from '${wrapper}';
test('runs', () => {});
test('runs too', () => {});
test.run();`,
  });
  assert.match(output, 'a-broken.test.mjs failed to load, so its tests did not run (counted as 1 failed)');
  assert.match(output, "ENOENT: no such file or directory, open '/nowhere/corpus.fit'");
  assert.match(output, /Total:\s+3/);
  assert.match(output, /Passed:\s+2/);
});

test.run();
