/**
 * The blob codec both backends store through (storage/blob-codec.ts): what it keeps compressed, what it
 * keeps as given, that it works off the event loop, and the errors for stored bytes it cannot trust.
 */
import { brotliCompressSync } from 'node:zlib';
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { decodeBlob, encodeBlob } from '../../storage/blob-codec.js';

/** Text-like bytes: compress well. */
function text(size: number): Uint8Array {
  return new Uint8Array(Buffer.from('timestamp,power\n2024-05-01T05:00:00Z,231\n'.repeat(Math.ceil(size / 40)).slice(0, size)));
}

async function rejectsWith(work: () => Promise<unknown>, pattern: RegExp): Promise<void> {
  let thrown: unknown = null;
  try {
    await work();
  } catch (error) {
    thrown = error;
  }
  assert.ok(thrown instanceof Error, 'expected an error');
  assert.match((thrown as Error).message, pattern);
}

test('compresses a compressible blob with Brotli and reads it back as it was', async () => {
  const bytes = text(100_000);
  const stored = await encodeBlob(bytes);
  assert.is(stored.encoding, 'br');
  assert.is(stored.size, bytes.byteLength);
  assert.ok(stored.bytes.byteLength < bytes.byteLength / 10);
  assert.ok(Buffer.from(await decodeBlob('k', stored)).equals(bytes));
});

test('keeps small blobs and blobs that would shrink by less than a tenth as given', async () => {
  const small = text(500);
  assert.equal((await encodeBlob(small)).encoding, 'identity');
  const packed = new Uint8Array(brotliCompressSync(text(200_000)));
  const stored = await encodeBlob(packed);
  assert.is(stored.encoding, 'identity');
  assert.ok(Buffer.from(await decodeBlob('k', stored)).equals(packed), 'identity bytes are never decompressed');
});

test('compresses off the event loop: timers keep firing while a 16 MB blob is compressed and decoded', async () => {
  const bytes = text(16 * 1024 * 1024);
  let ticks = 0;
  let running = true;
  const tick = (): void => {
    ticks++;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  const stored = await encodeBlob(bytes);
  const decoded = await decodeBlob('big', stored);
  running = false;
  assert.ok(Buffer.from(decoded).equals(bytes));
  assert.ok(ticks >= 3, `the event loop turned ${ticks} times meanwhile`);
});

test('reads a blob with no recorded encoding (stored by a release before compression) as it is', async () => {
  const bytes = brotliCompressSync(text(10_000));
  const read = await decodeBlob('old', { encoding: null, bytes, size: bytes.byteLength });
  assert.ok(Buffer.from(read).equals(bytes));
});

test('refuses an unknown encoding, bytes that are no Brotli, and bytes that decode to another size, naming the blob', async () => {
  const bytes = text(10_000);
  await rejectsWith(() => decodeBlob('series:a1', { encoding: 'zstd', bytes, size: bytes.byteLength }), /blob series:a1 has the unknown encoding "zstd"/);
  await rejectsWith(() => decodeBlob('series:a1', { encoding: 'br', bytes, size: bytes.byteLength }), /blob series:a1 does not decode as Brotli/);
  const stored = await encodeBlob(bytes);
  await rejectsWith(() => decodeBlob('series:a1', { ...stored, size: bytes.byteLength + 1 }), /blob series:a1 holds 10000 bytes, its record says 10001/);
  await rejectsWith(() => decodeBlob('series:a1', { ...stored, size: bytes.byteLength - 1 }), /blob series:a1 does not decode as Brotli to its recorded 9999 bytes/);
  await rejectsWith(() => decodeBlob('series:a1', { encoding: 'identity', bytes, size: 3 }), /blob series:a1 holds 10000 bytes, its record says 3/);
});

test.run();
