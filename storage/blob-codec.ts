/**
 * How blob bytes are kept at rest, for both backends (sqlite/sqlite-blobs.ts, mongo/mongo-blobs.ts):
 * Brotli (quality 5) when that saves at least a tenth, otherwise the bytes as given. The encoding is
 * recorded beside the bytes (a column, a header field), never guessed from them: an uploaded file may
 * begin with any bytes at all. A blob written before compression existed has no recorded encoding and
 * reads as `identity`.
 *
 * Chosen by measurement on the FIT corpus (bench/blob-compression.bench.ts; figures in the README):
 * series (Arrow IPC) shrink 7.1× and original FIT files 3.1× (deflate-6: 6.1× and 2.4×), at about 3 ms
 * of encoding and 1 ms of decoding per hour of activity. Brotli 6 gains under 1 % for a quarter more
 * time, 9 under 2 % for four times as much; zstd is not in Node 20.
 * Analysis caches stay as they are: their parts are already deflated, so Brotli saves nothing.
 *
 * Both directions use zlib's asynchronous API, which runs on libuv's thread pool: a 64 MiB upload
 * never holds up the gateway's or the engine's event loop. Kept honest by the blob tests of the
 * storage contract (test/storage/contract.ts) and the backends' own tests.
 */
import { promisify } from 'node:util';
import zlib from 'node:zlib';

/** How a blob's stored bytes are encoded (named as in HTTP's Content-Encoding). */
export type BlobEncoding = 'identity' | 'br';

export interface EncodedBlob {
  encoding: BlobEncoding;
  /** The bytes to store. */
  bytes: Uint8Array;
  /** The blob's own length in bytes (what `Blobs.size` answers), whatever its encoding. */
  size: number;
}

/** Below this, a blob is stored as given: a few hundred bytes saved is not worth a trip to the thread pool. */
const MIN_COMPRESSED_BYTES = 1024;
/** Compressed bytes are kept only when at most this fraction of the original (they save at least a tenth). */
const MAX_KEPT_RATIO = 0.9;
/** Brotli quality 5: on the corpus's series 7.1×, against 6.3× at quality 4 and 7.1× at 6 for a quarter more time. */
const BROTLI_QUALITY = 5;

const brotliCompress = promisify(zlib.brotliCompress);
const brotliDecompress = promisify(zlib.brotliDecompress);

/** The bytes to store for `bytes`, and how they are encoded (identity answers `bytes` itself, not a copy). */
export async function encodeBlob(bytes: Uint8Array): Promise<EncodedBlob> {
  const size = bytes.byteLength;
  if (size >= MIN_COMPRESSED_BYTES) {
    const compressed = await brotliCompress(bytes, {
      params: {
        [zlib.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
        [zlib.constants.BROTLI_PARAM_SIZE_HINT]: size,
      },
    });
    if (compressed.byteLength <= size * MAX_KEPT_RATIO) return { encoding: 'br', bytes: compressed, size };
  }
  return { encoding: 'identity', bytes, size };
}

/**
 * A stored blob's bytes as they were put: a Uint8Array that owns its whole ArrayBuffer, so a caller
 * may transfer it to a worker. `encoding` null or undefined is a blob stored before encodings were
 * recorded (identity). Throws when the encoding is unknown or the bytes do not decode to `size`.
 */
export async function decodeBlob(key: string, stored: { encoding: string | null | undefined; bytes: Uint8Array; size: number }): Promise<Uint8Array> {
  const encoding = stored.encoding ?? 'identity';
  let bytes: Uint8Array;
  if (encoding === 'identity') {
    bytes = stored.bytes;
  } else if (encoding === 'br') {
    try {
      // maxOutputLength: bytes that would decode past their recorded size stop there, not at memory's end.
      bytes = await brotliDecompress(stored.bytes, { maxOutputLength: Math.max(1, stored.size) });
    } catch (error) {
      throw new Error(`store: blob ${key} does not decode as Brotli to its recorded ${stored.size} bytes`, { cause: error });
    }
  } else {
    throw new Error(`store: blob ${key} has the unknown encoding ${JSON.stringify(encoding)} (written by a newer version?)`);
  }
  if (bytes.byteLength !== stored.size) {
    throw new Error(`store: blob ${key} holds ${bytes.byteLength} bytes, its record says ${stored.size}`);
  }
  return owned(bytes);
}

/**
 * A plain Uint8Array over the whole of its own ArrayBuffer: `bytes`' memory when that is so, else a copy.
 * (zlib answers small results as views into a larger output buffer; `Buffer#slice` would not copy.)
 */
function owned(bytes: Uint8Array): Uint8Array {
  if (bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.byteLength && !(bytes.buffer instanceof SharedArrayBuffer)) {
    return new Uint8Array(bytes.buffer, 0, bytes.byteLength);
  }
  return new Uint8Array(bytes);
}
