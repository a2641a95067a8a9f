/**
 * Backup and restore of the embedded store. `backupSqlite` copies a live database with `VACUUM INTO`:
 * one read transaction, so the copy is the state of one instant even while the service writes (WAL
 * readers never block writers, and unlike SQLite's page-by-page backup API it cannot be restarted
 * forever by a busy writer). The copy is written beside its destination, checked, then renamed, so a
 * PATH never holds half a backup; it is 0600 whatever the umask (it holds what the database holds).
 * `restoreSqlite` checks that a file is an intact Threshold database before it replaces the store's
 * file, hands jobs the backup caught running back to the queue, and puts the file in place the same way,
 * 0600, holding the service lock exclusively: it refuses while a service runs on the database (a running
 * service keeps its open file, and what it wrote after the restore would be lost), and no service starts
 * before it has finished.
 *
 * Deliberately not here: MongoDB (its operators use `mongodump`/`mongorestore`, which the README shows)
 * and the integration key, which must never travel with the data it protects.
 * test/cli/backup.test.ts keeps it honest (a round trip while the service serves).
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { openSqliteStore } from './sqlite-store.js';
import { withoutService } from './service-lock.js';
import { walFilesOf } from './sqlite-files.js';
import { PRIVATE_FILE_MODE, makePrivateDir, makePrivateFile } from '../private-files.js';

export class BackupError extends Error {}

/** Tables every Threshold database has; a file without them is not one. */
const REQUIRED_TABLES = ['users', 'activities', 'sources', 'blobs'];

export interface BackupSummary {
  path: string;
  bytes: number;
  /** Documents per collection, blobs included. */
  counts: Record<string, number>;
}

export function backupSqlite(databaseFile: string, destination: string): BackupSummary {
  if (!fs.existsSync(databaseFile)) throw new BackupError(`no database at ${databaseFile}`);
  const target = path.resolve(destination);
  if (fs.existsSync(target)) throw new BackupError(`${target} exists; a backup never overwrites a file`);
  makePrivateDir(path.dirname(target));
  const partial = `${target}.partial-${process.pid}`;
  const source = new Database(databaseFile, { readonly: true, fileMustExist: true, timeout: 5000 });
  try {
    // VACUUM INTO fills an empty file and keeps its mode (SQLite would create one 0644).
    makePrivateFile(partial);
    source.prepare('VACUUM INTO ?').run(partial);
  } catch (error) {
    fs.rmSync(partial, { force: true });
    throw new BackupError(`backup failed: ${(error as Error).message}`);
  } finally {
    source.close();
  }
  try {
    const counts = checkDatabase(partial);
    fs.renameSync(partial, target);
    return { path: target, bytes: fs.statSync(target).size, counts };
  } catch (error) {
    fs.rmSync(partial, { force: true });
    throw error;
  }
}

/**
 * Replaces the store's file with `backupFile`. A StoreInUseError (service-lock.ts) while a service runs
 * on it: a running process keeps its own open file. Without `replace`, an existing database is left alone.
 */
export async function restoreSqlite(backupFile: string, databaseFile: string, options: { replace: boolean }): Promise<BackupSummary> {
  if (!fs.existsSync(backupFile)) throw new BackupError(`no backup at ${backupFile}`);
  const counts = checkDatabase(backupFile);
  if (fs.existsSync(databaseFile) && !options.replace) {
    throw new BackupError(`${databaseFile} exists; stop the service and pass --replace to overwrite it`);
  }
  return withoutService(databaseFile, async () => {
    const partial = `${databaseFile}.restoring-${process.pid}`;
    try {
      // copyFile would give the copy the backup's mode.
      fs.copyFileSync(backupFile, partial);
      fs.chmodSync(partial, PRIVATE_FILE_MODE);
      await releaseLeases(partial);
    } catch (error) {
      fs.rmSync(partial, { force: true });
      throw error;
    }
    // The old file's write-ahead log belongs to the old database: replayed over the restored one it would corrupt it.
    for (const log of walFilesOf(databaseFile)) fs.rmSync(log, { force: true });
    fs.renameSync(partial, databaseFile);
    return { path: path.resolve(databaseFile), bytes: fs.statSync(databaseFile).size, counts };
  });
}

/**
 * Jobs the backup caught running belonged to a process of the original service: hand them back to the
 * queue, so the restored service resumes them at once instead of after their leases run out.
 */
async function releaseLeases(file: string): Promise<void> {
  const store = await openSqliteStore({ file });
  try {
    await store.jobs.updateMany({ status: 'running' }, { set: { status: 'queued', lease_owner: null, lease_until: null } });
  } finally {
    await store.close();
  }
}

/** Opens `file` read-only, runs SQLite's integrity check and counts rows; a BackupError when it is not an intact Threshold database. */
function checkDatabase(file: string): Record<string, number> {
  let db: Database.Database;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new BackupError(`${file} is not a SQLite database: ${(error as Error).message}`);
  }
  try {
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((row) => row.name);
    const missing = REQUIRED_TABLES.filter((table) => !tables.includes(table));
    if (missing.length > 0) throw new BackupError(`${file} is not a Threshold database (no ${missing.join(', ')} table)`);
    const integrity = db.prepare('PRAGMA integrity_check').pluck().all() as string[];
    if (integrity.length !== 1 || integrity[0] !== 'ok') throw new BackupError(`${file} fails SQLite's integrity check: ${integrity.slice(0, 3).join('; ')}`);
    return Object.fromEntries(tables.sort().map((table) => [table, (db.prepare(`SELECT count(*) FROM "${table}"`).pluck().get() as number)]));
  } catch (error) {
    if (error instanceof BackupError) throw error;
    throw new BackupError(`${file} cannot be read as a database: ${(error as Error).message}`);
  } finally {
    db.close();
  }
}
