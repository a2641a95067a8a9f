/**
 * Every test that starts a process ends it, whatever happens: a `threshold serve` whose start-up times out
 * (as a crash test's restart can under load) is killed with its whole process group (the primary and its
 * gateway processes) before the test goes on; checked in /proc, as `ps -g` would.
 */
import fs from 'node:fs';
import * as assert from 'uvu/assert';
import { test } from './uvu.js';
import { startProcessUntil } from './processes.js';
import { groupMembers, spawnChild, endGroup } from './children.js';
import { tempDir } from './stack.js';

test('a threshold serve whose start-up times out leaves no process of its group running', async () => {
  const dataDir = tempDir();
  const env = {
    DATA_DIR: dataDir, PORT: '0', PAGES_PORT: '0', HOST: '127.0.0.1', ENGINE_ADDRESS: '127.0.0.1:0', ENGINE_THREADS: '1',
    BASE_URL: 'http://localhost:8080', GATEWAY_PROCESSES: '2', LOG_LEVEL: 'info',
  };
  let pgid = 0;
  const pids = new Set<number>();
  // Every process of the service's group (the primary, then its gateway processes) is noted while the
  // test waits for a line that never comes.
  const watch = setInterval(() => {
    if (pgid > 0) for (const pid of groupMembers(pgid)) pids.add(pid);
  }, 50);
  try {
    const failed = await startProcessUntil('dist/cli/threshold.js', env, ['serve'], (line) => {
      pgid ||= Number(line.pid);
      return line.msg === 'a log line threshold never writes';
    }, 15_000).then(() => null, (error: Error) => error).finally(() => clearInterval(watch));
    assert.ok(failed instanceof Error && failed.message.includes('no matching log line within 15000 ms'), String(failed));
    assert.ok(pids.size >= 2, `the primary and its gateway processes ran before the timeout (${[...pids].join(', ')})`);
    assert.equal(groupMembers(pgid), [], 'no process of its group is left');
    const running = (pid: number): boolean => {
      try {
        return !/^\S+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
      } catch {
        return false; // gone
      }
    };
    assert.equal([...pids].filter(running), [], `none of the processes that ran (${[...pids].join(', ')}) runs`);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a detached child\'s whole tree ends with endGroup', async () => {
  const tree = "require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' }); setInterval(() => {}, 1000)";
  const child = spawnChild(process.execPath, ['-e', tree], { stdio: 'ignore' });
  const deadline = Date.now() + 10_000;
  while (groupMembers(child.pid!).length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.is(groupMembers(child.pid!).length, 2, 'the child and its own child share its group');
  assert.ok(await endGroup(child.pid!));
  assert.equal(groupMembers(child.pid!), []);
});

test.run();
