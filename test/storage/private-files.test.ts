/**
 * The embedded store's files are private whatever the umask (issue 26, item 2): `threshold serve` and
 * `threshold backup` run with umask 000, and the data folder comes out 0700, the database, its -wal and
 * -shm, the lock and the integration key 0600, a backup 0600 (in a 0700 folder when it makes one), a
 * restored database 0600 even from a backup someone left 0644. A data folder the operator made readable
 * by others is warned about in one log line at start-up (and left as it is); the service's own files in
 * it are tightened.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as assert from 'uvu/assert';
import { suite } from '../support/uvu.js';
import { runCliAsync, startServeProcesses, type RunningProcess } from '../support/processes.js';
import { tempDir } from '../support/stack.js';

const privateFiles = suite('private files');

/** A provider configured, so the engine writes its integration key into DATA_DIR too. */
const PROVIDER = { INTERVALS_ICU_CLIENT_ID: 'id', INTERVALS_ICU_CLIENT_SECRET: 'secret' };
const FILES = ['threshold.sqlite', 'threshold.sqlite-wal', 'threshold.sqlite-shm', 'threshold.sqlite.lock', 'integration.key'];
/** pino's level number for warn. */
const WARN = 40;

function modeOf(file: string): string {
  return (fs.statSync(file).mode & 0o777).toString(8).padStart(4, '0');
}

/** The warnings a stopped process logged (the data folder's is logged before 'threshold is running'). */
function warningsOf(service: RunningProcess): Record<string, unknown>[] {
  return service.output().split('\n').flatMap((text) => {
    try {
      const line = JSON.parse(text) as Record<string, unknown>;
      return line.level === WARN ? [line] : [];
    } catch {
      return []; // not a log line, or one still being written
    }
  });
}

/** `work` with this process's umask (and so its children's) set to `mask`. */
async function withUmask<T>(mask: number, work: () => Promise<T>): Promise<T> {
  const previous = process.umask(mask);
  try {
    return await work();
  } finally {
    process.umask(previous);
  }
}

/** `threshold serve` on `dataDir`, which outlives it (the helper's own stop would remove the folder). */
async function serve(dataDir: string): Promise<RunningProcess> {
  return (await startServeProcesses(1, { DATA_DIR: dataDir, ...PROVIDER })).processes[0]!;
}

privateFiles('the data folder is 0700 and every file in it 0600 under umask 000; a backup is 0600, a restored database too', async () => {
  const root = tempDir();
  const dataDir = path.join(root, 'data');
  try {
    await withUmask(0o000, async () => {
      const service = await serve(dataDir);
      try {
        const user = await runCliAsync(['user', 'create', '--email', 'private@example.com'], { DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
        assert.is(user.status, 0, user.stderr);
        assert.is(modeOf(dataDir), '0700', 'the data folder');
        for (const file of FILES) assert.is(modeOf(path.join(dataDir, file)), '0600', file);
        assert.equal(warningsOf(service), [], 'no warning about a folder the service made');

        const backupFile = path.join(root, 'backups', 'nightly', 'threshold.sqlite');
        const backup = await runCliAsync(['backup', backupFile], { DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
        assert.is(backup.status, 0, backup.stderr);
        assert.is(modeOf(backupFile), '0600', 'the backup');
        assert.is(modeOf(path.dirname(backupFile)), '0700', 'the folder backup made');
        assert.is(modeOf(path.join(root, 'backups')), '0700', 'and its parent');

        // A backup someone copied with a careless mode still restores to a private database.
        fs.chmodSync(backupFile, 0o644);
        const restoredDir = path.join(root, 'restored');
        const restore = await runCliAsync(['restore', backupFile], { DATA_DIR: restoredDir, LOG_LEVEL: 'silent' });
        assert.is(restore.status, 0, restore.stderr);
        assert.is(modeOf(restoredDir), '0700', 'the restored data folder');
        for (const file of fs.readdirSync(restoredDir)) assert.is(modeOf(path.join(restoredDir, file)), '0600', `restored ${file}`);
      } finally {
        await service.stop();
      }
    });
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

privateFiles('start-up warns in one line about a data folder others can read, leaves its mode, and tightens the store\'s files in it', async () => {
  const dataDir = tempDir();
  try {
    await withUmask(0o022, async () => {
      fs.chmodSync(dataDir, 0o755);
      const first = await serve(dataDir);
      await first.stop();
      const warnings = warningsOf(first);
      assert.is(warnings.length, 1, 'one warning line');
      assert.match(String(warnings[0]!.msg), `${dataDir} (mode 0755)`);
      assert.match(String(warnings[0]!.msg), 'chmod 700');
      assert.is(modeOf(dataDir), '0755', 'an operator\'s folder keeps its mode');

      // Files an older version left readable (0644) are the service's own: it makes them private again.
      fs.chmodSync(dataDir, 0o700);
      for (const file of FILES) if (fs.existsSync(path.join(dataDir, file))) fs.chmodSync(path.join(dataDir, file), 0o644);
      const second = await serve(dataDir);
      try {
        for (const file of FILES) assert.is(modeOf(path.join(dataDir, file)), '0600', file);
      } finally {
        await second.stop();
      }
      assert.equal(warningsOf(second), [], 'nothing left to warn about');
    });
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

privateFiles.run();
