/**
 * Picks the backend: MongoDB when a URI is configured, the embedded SQLite file otherwise. Each
 * backend is imported on demand, so the embedded default never loads the MongoDB driver.
 * `storeLocation` says where the chosen backend keeps the data, in a form safe to log; every entry
 * point that opens a store logs it once at start.
 */
import path from 'node:path';
import type { Store } from './store.js';
import { databaseFor, hostsOf } from './mongo/uri.js';

export interface StoreOptions {
  /** MongoDB connection string, or null for the embedded store. */
  mongodbUri: string | null;
  /** Database used when the URI names none (default 'threshold'). */
  mongodbDatabase?: string;
  /** SQLite file path, or ':memory:'. */
  sqliteFile: string;
}

/** Where the data lives: the SQLite file's absolute path, or MongoDB's hosts (no credentials, no options) and database. */
export type StoreLocation = { backend: 'sqlite'; file: string } | { backend: 'mongo'; hosts: string; database: string };

export async function openStore(options: StoreOptions): Promise<Store> {
  if (options.mongodbUri) {
    const { openMongoStore } = await import('./mongo/mongo-store.js');
    return openMongoStore({ uri: options.mongodbUri, database: databaseFor(options.mongodbUri, options.mongodbDatabase) });
  }
  const { openSqliteStore } = await import('./sqlite/sqlite-store.js');
  return openSqliteStore({ file: options.sqliteFile });
}

export function storeLocation(options: StoreOptions): StoreLocation {
  if (options.mongodbUri) {
    return { backend: 'mongo', hosts: hostsOf(options.mongodbUri), database: databaseFor(options.mongodbUri, options.mongodbDatabase) };
  }
  return { backend: 'sqlite', file: options.sqliteFile === ':memory:' ? ':memory:' : path.resolve(options.sqliteFile) };
}
