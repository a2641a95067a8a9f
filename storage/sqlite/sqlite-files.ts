/** The names of an embedded store's files, beside its database file; one place, so every user of them agrees. */

/** The write-ahead log and its shared-memory index: SQLite makes them beside the database, with its mode. */
export function walFilesOf(databaseFile: string): [wal: string, shm: string] {
  return [`${databaseFile}-wal`, `${databaseFile}-shm`];
}

/** The service lock (service-lock.ts). */
export function lockFileOf(databaseFile: string): string {
  return `${databaseFile}.lock`;
}

/** Every file of the store: the database, its write-ahead log and index, the service lock. */
export function storeFilesOf(databaseFile: string): string[] {
  return [databaseFile, ...walFilesOf(databaseFile), lockFileOf(databaseFile)];
}
