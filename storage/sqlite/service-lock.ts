/**
 * "A service is using this database." Every process of a running service (`threshold serve` and its
 * gateway processes, `start:engine`, `start:gateway`) holds a shared lock on `<database>.lock` while its
 * store is open; `threshold restore` takes that lock exclusively, so it refuses while any service runs, and
 * no service starts while it replaces the file. Several processes share the lock as they share the store.
 *
 * The lock is the operating system's: SQLite's POSIX advisory lock on a small empty database, held by an
 * open read transaction. It goes with its process however that process ends, so a SIGKILLed service
 * leaves nothing that could block a restore, and a live service's lock cannot be taken from it. It also
 * holds across containers that share the folder. The lock file itself is never written.
 *
 * The refusal names the holders from /proc/locks (Linux); elsewhere it says only that a service holds it.
 * test/cli/restore-lock.test.ts keeps it honest.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { makePrivateDir, makePrivateFile } from '../private-files.js';
import { lockFileOf } from './sqlite-files.js';

/** The store is held by another process: a running service (for a restore), or a restore (for a service). */
export class StoreInUseError extends Error {
  override name = 'StoreInUseError';
}

export interface ServiceLock {
  release(): void;
}

/** How long a starting service waits for a restore in progress to finish, milliseconds. */
const RESTORE_WAIT_MS = 10_000;
/** SQLite's lock bytes start at its PENDING byte, 1 GiB into the file (os_unix.c). */
const SQLITE_LOCK_BYTES = 0x40000000;

/** The lock file of `databaseFile`, created private (with its folder) when missing. */
function privateLockFile(databaseFile: string): string {
  const file = lockFileOf(databaseFile);
  makePrivateDir(path.dirname(path.resolve(file)));
  makePrivateFile(file);
  return file;
}

/** Holds the shared service lock of `databaseFile` until `release` (or the process's end). */
export function holdServiceLock(databaseFile: string, waitMs = RESTORE_WAIT_MS): ServiceLock {
  const file = privateLockFile(databaseFile);
  const db = new Database(file, { timeout: waitMs });
  try {
    db.exec('BEGIN');
    // A read takes SQLite's SHARED lock, kept until the transaction ends.
    db.prepare('SELECT count(*) FROM sqlite_master').get();
  } catch (error) {
    db.close();
    if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
    throw new StoreInUseError(`DATA_DIR ${path.dirname(path.resolve(databaseFile))} is being restored${holdersOf(file)}; start the service once the restore has finished`);
  }
  return {
    release() {
      if (db.open) db.close();
    },
  };
}

/**
 * Runs `work` holding the service lock of `databaseFile` exclusively: a StoreInUseError, naming the
 * processes that hold it, when a service is running on the database.
 */
export async function withoutService<T>(databaseFile: string, work: () => Promise<T>): Promise<T> {
  const file = privateLockFile(databaseFile);
  const db = new Database(file, { timeout: 0 });
  try {
    try {
      db.exec('BEGIN EXCLUSIVE');
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
      throw new StoreInUseError(`DATA_DIR ${path.dirname(path.resolve(databaseFile))} is in use by a running service${holdersOf(file)}; stop the service first, then restore`);
    }
    return await work();
  } finally {
    db.close();
  }
}

/** ` (pid 812: node dist/cli/threshold.js serve)` for the processes holding SQLite locks on `file`; empty when unknown. */
function holdersOf(file: string): string {
  let table: string;
  let id: { dev: bigint; ino: bigint };
  try {
    table = fs.readFileSync('/proc/locks', 'utf8');
    id = fs.statSync(file, { bigint: true });
  } catch {
    return '';
  }
  const device = `${hex(major(id.dev))}:${hex(minor(id.dev))}:${id.ino}`;
  const pids = new Set<number>();
  // `1: POSIX  ADVISORY  READ 812 fe:00:2155014 1073741826 1073742335`; a waiter's line has `->` after the number.
  for (const line of table.split('\n')) {
    const fields = line.trim().split(/\s+/);
    if (fields[1] === '->' || fields[5] !== device || Number(fields[6]) < SQLITE_LOCK_BYTES) continue;
    pids.add(Number(fields[4]));
  }
  if (pids.size === 0) return '';
  const byCommand = new Map<string, number[]>();
  for (const pid of [...pids].sort((a, b) => a - b)) {
    const command = commandOf(pid);
    byCommand.set(command, [...(byCommand.get(command) ?? []), pid]);
  }
  return ` (${[...byCommand].map(([command, ids]) => `pid ${ids.join(', ')}${command && `: ${command}`}`).join('; ')})`;
}

/** The command line of `pid`, at most 120 characters; empty when it cannot be read. */
function commandOf(pid: number): string {
  try {
    const command = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
    return command.length > 120 ? `${command.slice(0, 119)}…` : command;
  } catch {
    return '';
  }
}

/** glibc's major()/minor() of a dev_t, as /proc/locks prints them (lower-case hex, at least two digits). */
function major(dev: bigint): bigint {
  return ((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn);
}

function minor(dev: bigint): bigint {
  return (dev & 0xffn) | ((dev >> 12n) & ~0xffn);
}

function hex(value: bigint): string {
  return value.toString(16).padStart(2, '0');
}
