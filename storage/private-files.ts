/**
 * The embedded store's files are its owner's alone: the database holds the token-signing private key,
 * password hashes and webhook secrets. Folders this code creates are 0700 and files 0600, whatever the
 * umask (the modes are set with chmod, which the umask does not touch); SQLite gives the `-wal` and `-shm`
 * files the mode of their database file, so a database created 0600 keeps its log private too.
 *
 * A folder that already exists is left as it is (it may be an operator's mount point or home directory):
 * `exposedToOthers` finds it, and the service warns at start-up (open-store.ts).
 *
 * Deliberately never opens an existing file: closing any descriptor of a file drops every POSIX lock this
 * process holds on it, and SQLite's locks (the store's, the service lock's) are POSIX locks.
 * test/storage/private-files.test.ts keeps it honest.
 */
import fs from 'node:fs';
import path from 'node:path';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;
/** Permission bits for the group and others. */
const SHARED_BITS = 0o077;

/** Creates `dir` and its missing parents, each 0700; an existing folder keeps its mode. */
export function makePrivateDir(dir: string): void {
  const target = path.resolve(dir);
  const first = fs.mkdirSync(target, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (first === undefined) return;
  for (let made = target; ; made = path.dirname(made)) {
    fs.chmodSync(made, PRIVATE_DIR_MODE);
    if (made === first || made === path.dirname(made)) break;
  }
}

/** Creates `file` empty and 0600 when it does not exist; tightens an existing one to 0600 (see `tighten`). */
export function makePrivateFile(file: string): void {
  try {
    fs.closeSync(fs.openSync(file, 'wx', PRIVATE_FILE_MODE));
    fs.chmodSync(file, PRIVATE_FILE_MODE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    tighten(file);
  }
}

/**
 * Takes the group's and others' permissions off `file` when it exists. A file this user does not own
 * cannot be changed (EPERM): it is left for `exposedToOthers` to report.
 */
export function tighten(file: string): void {
  try {
    if ((fs.statSync(file).mode & SHARED_BITS) !== 0) fs.chmodSync(file, PRIVATE_FILE_MODE);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'EPERM') throw error;
  }
}

/** Those of `paths` (folders or files) that the group or others may use, each as `path (mode 0755)`; empty when all are private. */
export function exposedToOthers(paths: string[]): string[] {
  return paths.flatMap((entry) => {
    let mode: number;
    try {
      mode = fs.statSync(entry).mode & 0o777;
    } catch {
      return []; // not there (a -wal between checkpoints)
    }
    return (mode & SHARED_BITS) === 0 ? [] : [`${path.resolve(entry)} (mode ${mode.toString(8).padStart(4, '0')})`];
  });
}
