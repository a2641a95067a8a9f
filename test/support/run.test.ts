/**
 * `npm test` itself (test/run.ts, support/run-pool.ts) on small test files in a temporary folder: the
 * closing counts survive a file that times out and a run that hits its limit (what passed, failed, was
 * skipped and did not run, and which file timed out); a timed-out file's process tree is killed; files run
 * side by side with their output whole, and a file marked alone runs with nothing beside it.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import * as assert from 'uvu/assert';
import { test } from './uvu.js';
import { REPO_ROOT } from './paths.js';
import { groupMembers } from './children.js';

const wrapper = pathToFileURL(path.join(REPO_ROOT, 'dist/test/support/uvu.js')).href;
const children = pathToFileURL(path.join(REPO_ROOT, 'dist/test/support/children.js')).href;
const RUNNER = path.join(REPO_ROOT, 'dist/test/run.js');

/** Runs the runner over `files` (name → ESM text) with `env`; its output and exit code. */
async function runRunner(files: Record<string, string>, env: Record<string, string>): Promise<{ output: string; code: number; dir: string }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'threshold-runner-'));
  writeFileSync(path.join(dir, 'package.json'), '{"type":"module"}\n');
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text.replaceAll('$DIR', dir));
  const run = promisify(execFile)(process.execPath, [RUNNER], { cwd: REPO_ROOT, env: { ...process.env, TEST_DIR: dir, ...env } });
  const { stdout, code } = await run.then(({ stdout }) => ({ stdout, code: 0 }), (error: { stdout: string; code: number }) => ({ stdout: error.stdout, code: error.code }));
  return { output: stdout, code, dir };
}

const passing = (count: number) => `import { test } from '${wrapper}';
${Array.from({ length: count }, (_, i) => `test('passes ${i}', () => {});`).join('\n')}
test.run();`;

/** Passes once, then starts a process tree (a child that starts a grandchild), notes its group, and hangs. */
const hanging = `import { writeFileSync } from 'node:fs';
import { test } from '${wrapper}';
import { spawnChild } from '${children}';
test('passes first', () => {});
test('hangs with a process tree running', async () => {
  const tree = "require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' }); setInterval(() => {}, 1000)";
  const child = spawnChild(process.execPath, ['-e', tree], { stdio: 'ignore' });
  writeFileSync('$DIR/group', String(child.pid));
  await new Promise(() => setInterval(() => {}, 1000));
});
test.run();`;

test('a file past its time limit is killed with its process tree, named, and counted; the other files\' counts are kept', async () => {
  const { output, code, dir } = await runRunner({ 'a-pass.test.js': passing(3), 'b-hang.test.js': hanging, 'c-pass.test.js': passing(2) }, { TEST_JOBS: '1', TEST_FILE_LIMIT_MS: '4000' });
  try {
    assert.is(code, 1);
    assert.match(output, /timed out: b-hang\.test\.js after [\d.]+ s \(1 passed before, counted as 1 failed\)/);
    assert.ok(output.trimEnd().endsWith('\n6 passed, 1 failed, 0 skipped'), output);
    const group = Number(readFileSync(path.join(dir, 'group'), 'utf8'));
    assert.equal(groupMembers(group), [], 'the process tree the file started is gone');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a run past its limit prints what passed and failed and names the files that did not run', async () => {
  const { output, code, dir } = await runRunner({ 'a-pass.test.js': passing(3), 'b-hang.test.js': hanging, 'c-pass.test.js': passing(2) }, { TEST_JOBS: '1', TEST_RUN_LIMIT_MS: '4000' });
  try {
    assert.is(code, 1);
    assert.match(output, 'test run stopped: the run limit of 4.0 s was reached');
    assert.match(output, /stopped: b-hang\.test\.js after [\d.]+ s \(1 passed before, counted as 1 failed\)/);
    assert.match(output, 'did not run: 1 file(s): c-pass.test.js');
    assert.ok(output.trimEnd().endsWith('\n4 passed, 1 failed, 0 skipped'), output);
    assert.equal(groupMembers(Number(readFileSync(path.join(dir, 'group'), 'utf8'))), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A file that notes its start, waits (polling, with a deadline) until `partner` has started too, and prints lines. */
const meeting = (name: string, partner: string) => `import { existsSync, writeFileSync, appendFileSync } from 'node:fs';
import { test } from '${wrapper}';
test('${name} runs beside ${partner}', async () => {
  appendFileSync('$DIR/log', 'start ${name}\\n');
  writeFileSync('$DIR/started-${name}', '');
  const deadline = Date.now() + 20_000;
  while (!existsSync('$DIR/started-${partner}')) {
    if (Date.now() > deadline) throw new Error('${partner} never started beside ${name}');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  for (let i = 0; i < 5; i++) {
    console.log('${name} line ' + i);
    await new Promise((resolve) => setImmediate(resolve));
  }
  appendFileSync('$DIR/log', 'end ${name}\\n');
});
test.run();`;

const alone = `// test-runner: alone (timing)
import { appendFileSync } from 'node:fs';
import { test } from '${wrapper}';
test('runs alone', () => {
  appendFileSync('$DIR/log', 'start alone\\nend alone\\n');
});
test.run();`;

test('files run side by side with each file\'s output whole, and a file marked alone runs with nothing beside it', async () => {
  const { output, code, dir } = await runRunner({ 'p1.test.js': meeting('p1', 'p2'), 'p2.test.js': meeting('p2', 'p1'), 'z-alone.test.js': alone }, { TEST_JOBS: '3' });
  try {
    assert.is(code, 0, output);
    assert.ok(output.trimEnd().endsWith('\n3 passed, 0 failed, 0 skipped'), output);
    for (const name of ['p1', 'p2']) {
      const lines = output.split('\n');
      const first = lines.indexOf(`${name} line 0`);
      assert.equal(lines.slice(first, first + 5), [0, 1, 2, 3, 4].map((i) => `${name} line ${i}`), `${name}'s lines are together`);
    }
    const log = readFileSync(path.join(dir, 'log'), 'utf8').trim().split('\n');
    const start = log.indexOf('start alone');
    assert.is(log[start + 1], 'end alone', log.join(' | '));
    assert.ok(start === 0 || log.slice(0, start).filter((line) => line.startsWith('start')).length === log.slice(0, start).filter((line) => line.startsWith('end')).length, 'nothing was running when the alone file started');
    assert.ok(existsSync(path.join(dir, 'started-p1')) && existsSync(path.join(dir, 'started-p2')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('TEST_JOBS that is not a positive integer stops the run before it starts, saying so', async () => {
  const { output, code, dir } = await runRunner({ 'a-pass.test.js': passing(1) }, { TEST_JOBS: 'lots' });
  rmSync(dir, { recursive: true, force: true });
  assert.is(code, 2);
  assert.is(output, '');
});

test.run();
