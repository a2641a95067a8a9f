/**
 * Storage settings, read from the environment by each process's config.ts through
 * `readStoreConfig` (the only place storage looks at the environment; the backends take options).
 * Every problem is pushed to `problems`, so a process reports all of them at once.
 */
import path from 'node:path';
import type { StoreOptions } from './open-store.js';

export interface StoreConfig {
  /** Directory of the embedded SQLite file, or ':memory:' for a store that lives and dies with the process. */
  dataDir: string;
  /** MongoDB connection string; null selects the embedded SQLite store. */
  mongodbUri: string | null;
  /** Database used when the URI names none. */
  mongodbDatabase: string;
}

export const STORE_DEFAULTS = {
  /** DATA_DIR: where the embedded SQLite file lives. */
  dataDir: './data',
  /** MONGODB_DATABASE: used when MONGODB_URI names no database. */
  mongodbDatabase: 'threshold',
} as const;

/** MongoDB database names: no `/\. "$*<>:|?`, at most 63 characters. */
const DATABASE_NAME = /^[^/\\. "$*<>:|?]{1,63}$/;

function setting(env: Record<string, string | undefined>, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

export function readStoreConfig(env: Record<string, string | undefined>, problems: string[]): StoreConfig {
  const dataDir = setting(env, 'DATA_DIR') ?? STORE_DEFAULTS.dataDir;

  const mongodbUri = setting(env, 'MONGODB_URI') ?? null;
  if (mongodbUri !== null && !/^mongodb(\+srv)?:\/\//.test(mongodbUri)) {
    problems.push('MONGODB_URI must start with mongodb:// or mongodb+srv://');
  }

  const mongodbDatabase = setting(env, 'MONGODB_DATABASE') ?? STORE_DEFAULTS.mongodbDatabase;
  if (!DATABASE_NAME.test(mongodbDatabase)) {
    problems.push('MONGODB_DATABASE must be 1-63 characters without / \\ . space " $ * < > : | ?');
  }

  return { dataDir, mongodbUri, mongodbDatabase };
}

/** The embedded store's file: `<dataDir>/threshold.sqlite`, or ':memory:'. */
export function sqliteFileFor(config: StoreConfig): string {
  return config.dataDir === ':memory:' ? ':memory:' : path.join(config.dataDir, 'threshold.sqlite');
}

/** What `openStore` and `storeLocation` take, for this configuration. */
export function storeOptionsFor(config: StoreConfig): StoreOptions {
  return { mongodbUri: config.mongodbUri, mongodbDatabase: config.mongodbDatabase, sqliteFile: sqliteFileFor(config) };
}
