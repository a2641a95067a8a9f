/**
 * The blob space of the SQLite backend:
 * `blobs(key TEXT PRIMARY KEY, user_id TEXT, bytes BLOB, encoding TEXT, size INTEGER)`, the bytes
 * encoded by storage/blob-codec.ts (`encoding` says how; `size` is the blob's own length). Rows
 * written before those two columns existed read as `identity`, their size the length of their bytes.
 * A put is one statement, so readers see the old bytes or the new ones, never a mix. Reads return
 * plain `Uint8Array`s with their own `ArrayBuffer`, safe to transfer to a worker.
 */
import type Database from 'better-sqlite3';
import type { Blobs } from '../store.js';
import { decodeBlob, encodeBlob } from '../blob-codec.js';
import type { SqliteHandle } from './sqlite-collection.js';

export const BLOBS_SCHEMA = [
  "CREATE TABLE IF NOT EXISTS blobs (key TEXT PRIMARY KEY, user_id TEXT, bytes BLOB NOT NULL, encoding TEXT NOT NULL DEFAULT 'identity', size INTEGER)",
  'CREATE INDEX IF NOT EXISTS blobs_by_user_id ON blobs (user_id)',
];

/** Columns added since the first layout, with their definitions: a file made before gets them on opening. */
const ADDED_COLUMNS: [name: string, definition: string][] = [
  ['encoding', "TEXT NOT NULL DEFAULT 'identity'"],
  ['size', 'INTEGER'],
];

/** Adds the columns a blob table made by an earlier version lacks (inside the caller's transaction). */
export function addBlobColumns(db: Database.Database): void {
  const columns = new Set((db.prepare('PRAGMA table_info(blobs)').all() as { name: string }[]).map((column) => column.name));
  for (const [name, definition] of ADDED_COLUMNS) if (!columns.has(name)) db.exec(`ALTER TABLE blobs ADD COLUMN ${name} ${definition}`);
}

export class SqliteBlobs implements Blobs {
  constructor(private readonly handle: SqliteHandle) {}

  async put(key: string, bytes: Uint8Array, owner: { userId: string | null }): Promise<void> {
    const stored = await encodeBlob(bytes);
    await this.handle.write(() => this.handle.prepare(
      'INSERT INTO blobs (key, user_id, bytes, encoding, size) VALUES (?, ?, ?, ?, ?) ON CONFLICT (key) DO UPDATE SET user_id = excluded.user_id, bytes = excluded.bytes, encoding = excluded.encoding, size = excluded.size',
    ).run(key, owner.userId, stored.bytes, stored.encoding, stored.size));
  }

  async get(key: string): Promise<Uint8Array | null> {
    const row = this.handle.prepare('SELECT bytes, encoding, coalesce(size, length(bytes)) AS size FROM blobs WHERE key = ?')
      .get(key) as { bytes: Buffer; encoding: string; size: number } | undefined;
    return row === undefined ? null : decodeBlob(key, row);
  }

  async getMany(keys: readonly string[]): Promise<(Uint8Array | null)[]> {
    const distinct = [...new Set(keys)];
    if (distinct.length === 0) return [];
    // json_each: one statement text whatever the number of keys (no statement per list length).
    const rows = this.handle.prepare('SELECT key, bytes, encoding, coalesce(size, length(bytes)) AS size FROM blobs WHERE key IN (SELECT value FROM json_each(?))')
      .all(JSON.stringify(distinct)) as { key: string; bytes: Buffer; encoding: string; size: number }[];
    // Decoded as `get` decodes (blob-codec.ts), all at once off the event loop.
    const decoded = await Promise.all(rows.map((row) => decodeBlob(row.key, row)));
    const found = new Map(rows.map((row, index) => [row.key, decoded[index]!]));
    return keys.map((key) => found.get(key) ?? null);
  }

  async size(key: string): Promise<number | null> {
    const row = this.handle.prepare('SELECT coalesce(size, length(bytes)) AS size FROM blobs WHERE key = ?').get(key) as { size: number } | undefined;
    return row === undefined ? null : row.size;
  }

  async delete(key: string): Promise<boolean> {
    return this.handle.write(() => this.handle.prepare('DELETE FROM blobs WHERE key = ?').run(key).changes > 0);
  }

  async deletePrefix(prefix: string): Promise<number> {
    // substr, not LIKE: '%' and '_' in a key prefix are plain characters.
    return this.handle.write(() => this.handle.prepare('DELETE FROM blobs WHERE substr(key, 1, length(?)) = ?').run(prefix, prefix).changes);
  }

  async deleteOwnedBatch(userId: string, limit: number): Promise<number> {
    return this.handle.write(() => this.handle.prepare('DELETE FROM blobs WHERE key IN (SELECT key FROM blobs WHERE user_id = ? LIMIT ?)').run(userId, limit).changes);
  }

  deleteOwnedNow(userIds: readonly string[]): number {
    if (userIds.length === 0) return 0;
    return this.handle.prepare(`DELETE FROM blobs WHERE user_id IN (${userIds.map(() => '?').join(', ')})`).run(...userIds).changes;
  }
}
