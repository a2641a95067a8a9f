/**
 * The blob space of the SQLite backend: `blobs(key TEXT PRIMARY KEY, user_id TEXT, bytes BLOB)`.
 * A put is one statement, so readers see the old bytes or the new ones, never a mix. Reads return
 * plain `Uint8Array` copies with their own `ArrayBuffer`, safe to transfer to a worker.
 */
import type { Blobs } from '../store.js';
import type { SqliteHandle } from './sqlite-collection.js';

export const BLOBS_SCHEMA = [
  'CREATE TABLE IF NOT EXISTS blobs (key TEXT PRIMARY KEY, user_id TEXT, bytes BLOB NOT NULL)',
  'CREATE INDEX IF NOT EXISTS blobs_by_user_id ON blobs (user_id)',
];

export class SqliteBlobs implements Blobs {
  constructor(private readonly handle: SqliteHandle) {}

  async put(key: string, bytes: Uint8Array, owner: { userId: string | null }): Promise<void> {
    this.handle.prepare(
      'INSERT INTO blobs (key, user_id, bytes) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET user_id = excluded.user_id, bytes = excluded.bytes',
    ).run(key, owner.userId, bytes);
  }

  async get(key: string): Promise<Uint8Array | null> {
    const row = this.handle.prepare('SELECT bytes FROM blobs WHERE key = ?').get(key) as { bytes: Buffer } | undefined;
    return row === undefined ? null : new Uint8Array(row.bytes);
  }

  async getMany(keys: readonly string[]): Promise<(Uint8Array | null)[]> {
    const distinct = [...new Set(keys)];
    if (distinct.length === 0) return [];
    // json_each: one statement text whatever the number of keys (no statement per list length).
    const rows = this.handle.prepare('SELECT key, bytes FROM blobs WHERE key IN (SELECT value FROM json_each(?))')
      .all(JSON.stringify(distinct)) as { key: string; bytes: Buffer }[];
    const found = new Map(rows.map((row) => [row.key, row.bytes]));
    return keys.map((key) => {
      const bytes = found.get(key);
      return bytes === undefined ? null : new Uint8Array(bytes);
    });
  }

  async size(key: string): Promise<number | null> {
    const row = this.handle.prepare('SELECT length(bytes) AS size FROM blobs WHERE key = ?').get(key) as { size: number } | undefined;
    return row === undefined ? null : row.size;
  }

  async delete(key: string): Promise<boolean> {
    return this.handle.prepare('DELETE FROM blobs WHERE key = ?').run(key).changes > 0;
  }

  async deletePrefix(prefix: string): Promise<number> {
    // substr, not LIKE: '%' and '_' in a key prefix are plain characters.
    return this.handle.prepare('DELETE FROM blobs WHERE substr(key, 1, length(?)) = ?').run(prefix, prefix).changes;
  }

  async deleteOwnedBatch(userId: string, limit: number): Promise<number> {
    return this.handle.prepare('DELETE FROM blobs WHERE key IN (SELECT key FROM blobs WHERE user_id = ? LIMIT ?)').run(userId, limit).changes;
  }

  deleteOwnedNow(userIds: readonly string[]): number {
    if (userIds.length === 0) return 0;
    return this.handle.prepare(`DELETE FROM blobs WHERE user_id IN (${userIds.map(() => '?').join(', ')})`).run(...userIds).changes;
  }
}
