/** Buffers handed across threads. */

/** The bytes as an ArrayBuffer of their own, so transferring it moves (detaches) nothing else. */
export function standalone(bytes: Uint8Array): ArrayBuffer {
  const { buffer, byteOffset, byteLength } = bytes;
  if (buffer instanceof ArrayBuffer && byteOffset === 0 && byteLength === buffer.byteLength) return buffer;
  return bytes.slice().buffer as ArrayBuffer;
}
