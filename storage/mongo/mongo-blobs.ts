/**
 * The blob space of the MongoDB backend. A document is limited to 16 MB, so bytes are stored in
 * chunks: a header `{_id: key, user_id, size, version, chunks, encoding, stored_size}` in `blobs` and
 * chunk documents `{_id: version:n, version, n, bytes}` in `blob_chunks`. The chunks hold the bytes as
 * storage/blob-codec.ts encoded them (`encoding`, `stored_size` of them); `size` is the blob's own
 * length. A header written before encodings existed has neither field: identity, `size` bytes stored.
 *
 * "Readers see either the old or the new value, never a mix": a put writes its chunks under a
 * fresh version first, then points the header at that version, then deletes the chunks of the
 * version it replaced. A reader reads the header, then the chunks of that version; if a concurrent
 * put removed them in between, the count is short and the reader starts again. A crash between
 * the chunk writes and the header leaves unreferenced chunks behind, never a broken blob.
 */
import { randomUUID } from 'node:crypto';
import { Binary, type ClientSession, type Db, type Filter, type Collection as MongoCollectionApi } from 'mongodb';
import type { Blobs } from '../store.js';
import { decodeBlob, encodeBlob, type BlobEncoding } from '../blob-codec.js';
import { escapeRegex } from './mongo-filter.js';
import { portError } from './mongo-collection.js';

/** Bytes per chunk document: well under the 16 MB document limit. */
const CHUNK_BYTES = 1024 * 1024;
/** Reads that start again when a concurrent put replaced the blob mid-read. */
const READ_ATTEMPTS = 5;

interface BlobHeader {
  _id: string;
  user_id: string | null;
  /** The blob's own length in bytes. */
  size: number;
  version: string;
  chunks: number;
  /** How the chunks' bytes are encoded; absent on headers written before encodings (identity). */
  encoding?: BlobEncoding;
  /** Bytes in the chunks; absent before encodings (then `size`). */
  stored_size?: number;
}

interface BlobChunk {
  _id: string;
  version: string;
  n: number;
  bytes: Binary;
}

export class MongoBlobs implements Blobs {
  private readonly headers: MongoCollectionApi<BlobHeader>;
  private readonly chunks: MongoCollectionApi<BlobChunk>;

  constructor(db: Db) {
    this.headers = db.collection<BlobHeader>('blobs');
    this.chunks = db.collection<BlobChunk>('blob_chunks');
  }

  async createIndexes(): Promise<void> {
    await this.headers.createIndexes([{ key: { user_id: 1 }, name: 'blobs_by_user_id' }]);
    await this.chunks.createIndexes([{ key: { version: 1, n: 1 }, name: 'blob_chunks_by_version_n', unique: true }]);
  }

  async put(key: string, bytes: Uint8Array, owner: { userId: string | null }): Promise<void> {
    const stored = await encodeBlob(bytes);
    const version = randomUUID();
    const count = Math.ceil(stored.bytes.byteLength / CHUNK_BYTES);
    const docs: BlobChunk[] = [];
    for (let n = 0; n < count; n++) {
      const part = stored.bytes.subarray(n * CHUNK_BYTES, Math.min(stored.bytes.byteLength, (n + 1) * CHUNK_BYTES));
      docs.push({ _id: `${version}:${n}`, version, n, bytes: new Binary(part) });
    }
    if (docs.length > 0) await this.chunks.insertMany(docs, { ordered: true });

    let previous: BlobHeader | null;
    try {
      previous = await this.headers.findOneAndUpdate(
        { _id: key },
        { $set: { user_id: owner.userId, size: stored.size, version, chunks: count, encoding: stored.encoding, stored_size: stored.bytes.byteLength } },
        { upsert: true, returnDocument: 'before' },
      );
    } catch (error) {
      await this.chunks.deleteMany({ version });
      throw portError(error, 'blobs');
    }
    if (previous !== null) await this.chunks.deleteMany({ version: previous.version });
  }

  async get(key: string): Promise<Uint8Array | null> {
    for (let attempt = 0; attempt < READ_ATTEMPTS; attempt++) {
      const header = await this.headers.findOne({ _id: key });
      if (header === null) return null;
      const parts = await this.chunks.find({ version: header.version }, { sort: { n: 1 } }).toArray();
      const bytes = assemble(header, parts);
      if (bytes !== null) return decodeBlob(key, { encoding: header.encoding, bytes, size: header.size });
    }
    throw new Error(`store: blob ${key} kept being replaced while it was read`);
  }

  /**
   * Two queries for any number of keys: the headers, then every chunk of the versions they name. A blob
   * replaced between the two reads (its chunks gone) is read again alone, as `get` does.
   */
  async getMany(keys: readonly string[]): Promise<(Uint8Array | null)[]> {
    const distinct = [...new Set(keys)];
    if (distinct.length === 0) return [];
    const headers = await this.headers.find({ _id: { $in: distinct } }).toArray();
    const chunks = headers.length === 0 ? [] : await this.chunks.find({ version: { $in: headers.map((h) => h.version) } }).toArray();
    const partsOf = new Map<string, BlobChunk[]>();
    for (const chunk of chunks) {
      const parts = partsOf.get(chunk.version);
      if (parts === undefined) partsOf.set(chunk.version, [chunk]);
      else parts.push(chunk);
    }
    // Decoded as `get` decodes (blob-codec.ts), all at once off the event loop.
    const read = await Promise.all(headers.map(async (header): Promise<[string, Uint8Array | null]> => {
      const bytes = assemble(header, (partsOf.get(header.version) ?? []).sort((a, b) => a.n - b.n));
      if (bytes === null) return [header._id, await this.get(header._id)];
      return [header._id, await decodeBlob(header._id, { encoding: header.encoding, bytes, size: header.size })];
    }));
    const found = new Map(read);
    return keys.map((key) => found.get(key) ?? null);
  }

  async size(key: string): Promise<number | null> {
    const header = await this.headers.findOne({ _id: key }, { projection: { size: 1 } });
    return header === null ? null : header.size;
  }

  async delete(key: string): Promise<boolean> {
    const header = await this.headers.findOneAndDelete({ _id: key });
    if (header === null) return false;
    await this.chunks.deleteMany({ version: header.version });
    return true;
  }

  async deletePrefix(prefix: string): Promise<number> {
    return this.deleteWhere({ _id: { $regex: `^${escapeRegex(prefix)}` } });
  }

  /** Deletes the blobs owned by these users (inside the caller's transaction when given a session). */
  async deleteOwned(userIds: readonly string[], session?: ClientSession): Promise<number> {
    if (userIds.length === 0) return 0;
    return this.deleteWhere({ user_id: { $in: [...userIds] } }, session);
  }

  async deleteOwnedBatch(userId: string, limit: number): Promise<number> {
    return this.deleteWhere({ user_id: userId }, undefined, limit);
  }

  /**
   * Deletes the matching headers (at most `limit`), then the chunks of the versions they pointed at. (A put
   * racing with the deletion can leave its new chunks unreferenced; never a header without its chunks.)
   */
  private async deleteWhere(filter: Filter<BlobHeader>, session?: ClientSession, limit?: number): Promise<number> {
    const doomed = await this.headers.find(filter, { projection: { _id: 1, version: 1 }, session, ...(limit !== undefined && { limit }) }).toArray();
    if (doomed.length === 0) return 0;
    const result = await this.headers.deleteMany({ _id: { $in: doomed.map((h) => h._id) } }, { session });
    await this.chunks.deleteMany({ version: { $in: doomed.map((h) => h.version) } }, { session });
    return result.deletedCount;
  }
}

/** The blob's stored bytes from its chunks, or null when they are incomplete (the version was replaced mid-read). */
function assemble(header: BlobHeader, parts: BlobChunk[]): Uint8Array | null {
  if (parts.length !== header.chunks) return null;
  const stored = header.stored_size ?? header.size;
  const bytes = new Uint8Array(stored);
  let offset = 0;
  for (let n = 0; n < parts.length; n++) {
    const part = parts[n]!;
    const value = part.bytes.value();
    if (part.n !== n || offset + value.byteLength > bytes.byteLength) return null;
    bytes.set(value, offset);
    offset += value.byteLength;
  }
  return offset === stored ? bytes : null;
}
