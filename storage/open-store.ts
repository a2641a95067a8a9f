/**
 * Picks the backend: MongoDB when a URI is configured, the embedded SQLite file otherwise. Each
 * backend is imported on demand, so the embedded default never loads the MongoDB driver.
 * `storeLocation` says where the chosen backend keeps the data, in a form safe to log; every entry
 * point that opens a store logs it once at start. Either is wrapped so that writes renew listing stamps
 * (listing-stamps.ts). `openServiceStore` is how the service's processes open it.
 */
import path from 'node:path';
import type { Logger } from '../domain/logger.js';
import type { Store } from './store.js';
import { databaseFor, hostsOf } from './mongo/uri.js';
import { withListingStamps } from './listing-stamps.js';
import { exposedToOthers } from './private-files.js';
import { storeFilesOf } from './sqlite/sqlite-files.js';
import type { GroupCommit } from './sqlite/write-groups.js';

export interface StoreOptions {
  /** MongoDB connection string, or null for the embedded store. */
  mongodbUri: string | null;
  /** Database used when the URI names none (default 'threshold'). */
  mongodbDatabase?: string;
  /** SQLite file path, or ':memory:'. */
  sqliteFile: string;
  /** Embedded store only: commit the port's writes in bounded groups (sqlite/write-groups.ts); MongoDB ignores it. */
  groupCommit?: GroupCommit;
}

/** Where the data lives: the SQLite file's absolute path, or MongoDB's hosts (no credentials, no options) and database. */
export type StoreLocation = { backend: 'sqlite'; file: string } | { backend: 'mongo'; hosts: string; database: string };

/** `service`: opened by a process of the running service (see `openServiceStore`); commands leave it false. */
export async function openStore(options: StoreOptions, service = false): Promise<Store> {
  if (options.mongodbUri) {
    const { openMongoStore } = await import('./mongo/mongo-store.js');
    return withListingStamps(await openMongoStore({ uri: options.mongodbUri, database: databaseFor(options.mongodbUri, options.mongodbDatabase) }));
  }
  const { openSqliteStore } = await import('./sqlite/sqlite-store.js');
  return withListingStamps(await openSqliteStore({ file: options.sqliteFile, service, ...(options.groupCommit && { groupCommit: options.groupCommit }) }));
}

/**
 * Opens the store for a process of the running service. On the embedded store the process holds the
 * service lock until `close` (sqlite/service-lock.ts), so `threshold restore` refuses while it runs.
 * With a `logger` (once per service, not per gateway process) it logs where the data lives and warns in
 * one line when the data folder, or a file in it, is open to other users.
 */
export async function openServiceStore(options: StoreOptions, logger: Logger | null): Promise<Store> {
  const store = await openStore(options, true);
  if (logger === null) return store;
  const location = storeLocation(options);
  logger.info(location, 'store opened');
  if (location.backend === 'sqlite' && location.file !== ':memory:') {
    const dataDir = path.dirname(location.file);
    const exposed = exposedToOthers([dataDir, ...storeFilesOf(location.file)]);
    if (exposed.length > 0) {
      logger.warn({ data_dir: dataDir, exposed }, `the data folder is open to other users: ${exposed.join(', ')}; it holds password hashes and signing keys (chmod 700 the folder, 600 its files)`);
    }
  }
  return store;
}

export function storeLocation(options: StoreOptions): StoreLocation {
  if (options.mongodbUri) {
    return { backend: 'mongo', hosts: hostsOf(options.mongodbUri), database: databaseFor(options.mongodbUri, options.mongodbDatabase) };
  }
  return { backend: 'sqlite', file: options.sqliteFile === ':memory:' ? ':memory:' : path.resolve(options.sqliteFile) };
}
