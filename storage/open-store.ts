/**
 * Picks the backend: MongoDB when a URI is configured, the embedded SQLite file otherwise. Each
 * backend is imported on demand, so the embedded default never loads the MongoDB driver.
 */
import type { Store } from './store.js';

export async function openStore(options: {
  /** MongoDB connection string, or null for the embedded store. */
  mongodbUri: string | null;
  /** Database used when the URI names none (default 'threshold'). */
  mongodbDatabase?: string;
  /** SQLite file path, or ':memory:'. */
  sqliteFile: string;
}): Promise<Store> {
  if (options.mongodbUri) {
    const { openMongoStore, databaseNamedBy } = await import('./mongo/mongo-store.js');
    return openMongoStore({ uri: options.mongodbUri, database: databaseNamedBy(options.mongodbUri) ?? options.mongodbDatabase });
  }
  const { openSqliteStore } = await import('./sqlite/sqlite-store.js');
  return openSqliteStore({ file: options.sqliteFile });
}
