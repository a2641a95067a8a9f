/**
 * `threshold restore --replace` cannot split the brain (issue 26, item 4): while a service runs on the
 * folder (`threshold serve` with two gateway processes, or `start:engine` + `start:gateway`) it refuses in
 * one line naming the processes and changes nothing; once the service has stopped it restores; a
 * SIGKILLed service's lock blocks nothing; and a service does not start while a restore holds the store.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as assert from 'uvu/assert';
import { suite } from '../support/uvu.js';
import { runCliAsync, startSeparateProcesses, startServeProcesses } from '../support/processes.js';
import { tempDir } from '../support/stack.js';
import { StoreInUseError, holdServiceLock, withoutService } from '../../storage/sqlite/service-lock.js';

const restoreLock = suite('restore while a service runs');

async function cli(args: string[], dataDir: string) {
  return runCliAsync(args, { DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
}

async function emails(dataDir: string): Promise<string[]> {
  const listed = await cli(['user', 'list'], dataDir);
  assert.is(listed.status, 0, listed.stderr);
  return (listed.json as { email: string }[]).map((user) => user.email).sort();
}

/** What `work` was refused with: the StoreInUseError of a lock held elsewhere. */
async function refusal(work: Promise<unknown>): Promise<StoreInUseError> {
  const error = await work.then(() => null, (reason: unknown) => reason);
  assert.instance(error, StoreInUseError);
  return error as StoreInUseError;
}

async function createUser(dataDir: string, email: string): Promise<void> {
  const created = await cli(['user', 'create', '--email', email], dataDir);
  assert.is(created.status, 0, created.stderr);
}

restoreLock('restore --replace refuses while `threshold serve` runs, naming its processes, and restores once it has stopped', async () => {
  const dataDir = tempDir();
  const backupDir = tempDir();
  const backupFile = path.join(backupDir, 'before.sqlite');
  const service = await startServeProcesses(2, { DATA_DIR: dataDir });
  const [serve] = service.processes;
  try {
    await createUser(dataDir, 'before@example.com');
    assert.is((await cli(['backup', backupFile], dataDir)).status, 0);
    await createUser(dataDir, 'after@example.com');
    const database = path.join(dataDir, 'threshold.sqlite');
    const { ino } = fs.statSync(database);

    const refused = await cli(['restore', backupFile, '--replace'], dataDir);
    assert.is(refused.status, 1, refused.stdout);
    const message = (refused.json as { error: string }).error;
    assert.not.ok(message.includes('\n'), 'one line');
    assert.match(message, `${dataDir} is in use by a running service`);
    assert.match(message, 'stop the service first');
    assert.match(message, `pid ${serve!.child.pid}`);
    assert.match(message, 'threshold.js serve');
    // Nothing changed: the service's file is the same one, and it still holds what was written after the backup.
    assert.is(fs.statSync(database).ino, ino);
    await createUser(dataDir, 'during@example.com');
    assert.equal(await emails(dataDir), ['after@example.com', 'before@example.com', 'during@example.com']);
    assert.equal(fs.readdirSync(dataDir).filter((file) => file.includes('restoring')), [], 'no partial copy left behind');

    assert.is(await serve!.stop('SIGTERM'), 0);
    const restored = await cli(['restore', backupFile, '--replace'], dataDir);
    assert.is(restored.status, 0, restored.stderr);
    assert.equal(await emails(dataDir), ['before@example.com']);
  } finally {
    await service.stop();
    fs.rmSync(backupDir, { recursive: true, force: true });
  }
});

restoreLock('restore refuses beside `start:engine` and `start:gateway`, naming both', async () => {
  const dataDir = tempDir();
  const backupFile = path.join(tempDir(), 'empty.sqlite');
  const service = await startSeparateProcesses({ DATA_DIR: dataDir });
  try {
    assert.is((await cli(['backup', backupFile], dataDir)).status, 0);
    const refused = await cli(['restore', backupFile, '--replace'], dataDir);
    assert.is(refused.status, 1, refused.stdout);
    const message = (refused.json as { error: string }).error;
    for (const running of service.processes) assert.match(message, String(running.child.pid));
    assert.match(message, 'engine/main.js');
    assert.match(message, 'gateway/main.js');
  } finally {
    await service.stop();
    fs.rmSync(path.dirname(backupFile), { recursive: true, force: true });
  }
});

restoreLock('a SIGKILLed service leaves no lock behind: restore goes ahead', async () => {
  const dataDir = tempDir();
  const backupFile = path.join(tempDir(), 'before.sqlite');
  const service = await startServeProcesses(1, { DATA_DIR: dataDir });
  try {
    await createUser(dataDir, 'kept@example.com');
    assert.is((await cli(['backup', backupFile], dataDir)).status, 0);
    await createUser(dataDir, 'lost@example.com');
    await service.processes[0]!.stop('SIGKILL');
    const restored = await cli(['restore', backupFile, '--replace'], dataDir);
    assert.is(restored.status, 0, restored.stderr);
    assert.equal(await emails(dataDir), ['kept@example.com']);
  } finally {
    await service.stop();
    fs.rmSync(path.dirname(backupFile), { recursive: true, force: true });
  }
});

restoreLock('a service does not start while a restore holds the store, and several services share it', async () => {
  const dataDir = tempDir();
  const database = path.join(dataDir, 'threshold.sqlite');
  try {
    await withoutService(database, async () => {
      assert.throws(() => holdServiceLock(database, 50), (error: unknown) => error instanceof StoreInUseError && /is being restored.*start the service once the restore has finished/.test(error.message));
    });
    const first = holdServiceLock(database, 50);
    const second = holdServiceLock(database, 50);
    const work = async () => assert.unreachable('ran beside a service');
    assert.match((await refusal(withoutService(database, work))).message, 'stop the service first');
    first.release();
    await refusal(withoutService(database, work));
    second.release();
    assert.is(await withoutService(database, async () => 'ran'), 'ran');
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

restoreLock.run();
