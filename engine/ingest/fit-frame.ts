/**
 * FIT framing: finds the FIT files inside an upload (one, or several chained back to back), checks
 * their header and file CRCs, and walks each file's message structure to find how much of it is sound,
 * before any byte reaches fit-file-parser.
 *
 * The walk reads only record headers and definition messages (data messages are skipped by their
 * defined size), so it is linear in the file size and always terminates: every step advances. It stops
 * at the first byte that cannot be the start of a well-formed message (a reserved header bit set, a data
 * message whose local type was never defined, a definition with an impossible architecture or field) or
 * at a message that runs past the bytes present. Everything before that point is "sound": whole messages,
 * framed exactly as fit-file-parser frames them, so the parser cannot throw or read out of step on it.
 *
 * It does not decode field values, and it cannot see corruption that keeps the framing intact (a flipped
 * value byte): only the file CRC reveals that. test/engine/fit-corpus.test.ts walks the corpus.
 */

/**
 * FIT protocol: the base type ids (low five bits of the base type byte) run 0–16. A field whose size is
 * not a multiple of its type's width is still framed by its size (fit-file-parser skips its value).
 */
const BASE_TYPE_COUNT = 17;
/** "Global message number" of `record` in the FIT profile. */
const MESG_RECORD = 20;
const FIELD_TIMESTAMP = 253;

export interface FitHeader {
  /** 12 or 14. */
  headerSize: number;
  /** Bytes of message data the header announces. */
  dataSize: number;
  protocolVersion: number;
  profileVersion: number;
  /** 'absent' for a 12-byte header; 'zero' when written as 0x0000 ("not computed", allowed by the spec). */
  headerCrc: 'ok' | 'zero' | 'mismatch' | 'absent';
}

/** Why the structure walk stopped before the end of the announced data. */
export type BreakReason =
  /** The bytes end before the announced data does (an interrupted upload or an unfinished file). */
  | 'truncated'
  /** A byte that cannot start a well-formed message. */
  | 'malformed';

export interface FitSegment {
  /** Byte offset of the segment's header within the upload. */
  offset: number;
  header: FitHeader;
  /** Announced data bytes actually present (≤ header.dataSize). */
  presentSize: number;
  /** Leading data bytes that form whole, well-formed messages. */
  soundSize: number;
  /** Null when the whole announced data is sound. */
  break: { reason: BreakReason; at: number; detail: string } | null;
  /** File CRC over header + announced data; 'missing' when the two CRC bytes are not there. */
  crc: 'ok' | 'mismatch' | 'missing';
  storedCrc: number;
  computedCrc: number;
  /** Data messages in the sound part, and how many of them are `record` messages. */
  messages: number;
  records: number;
}

export interface FitFrames {
  segments: FitSegment[];
  /** Bytes after the last segment's CRC that do not start another FIT file (ignored). */
  trailingBytes: number;
}

const CRC_TABLE = new Uint16Array([
  0x0000, 0xcc01, 0xd801, 0x1400, 0xf001, 0x3c00, 0x2800, 0xe401,
  0xa001, 0x6c00, 0x7800, 0xb401, 0x5000, 0x9c01, 0x8801, 0x4400,
]);

/** The FIT CRC-16 (FIT protocol, "CRC") of bytes[start, end). */
export function fitCrc(bytes: Uint8Array, start: number, end: number): number {
  let crc = 0;
  for (let i = start; i < end; i++) {
    const byte = bytes[i]!;
    let tmp = CRC_TABLE[crc & 0xf]!;
    crc = (crc >> 4) & 0x0fff;
    crc = crc ^ tmp ^ CRC_TABLE[byte & 0xf]!;
    tmp = CRC_TABLE[crc & 0xf]!;
    crc = (crc >> 4) & 0x0fff;
    crc = crc ^ tmp ^ CRC_TABLE[(byte >> 4) & 0xf]!;
  }
  return crc;
}

/**
 * A FIT file header at `at`, or null when the bytes there are not one: a header is 12 or 14 bytes,
 * says ".FIT" at bytes 8–11 and carries a protocol major version up to 2 (FIT protocol, "File Header";
 * early ANT-FS downloads such as python-fitparse's compressed-speed-distance.fit write version 0).
 */
export function readHeader(bytes: Uint8Array, at: number): FitHeader | null {
  if (bytes.length - at < 12) return null;
  const headerSize = bytes[at]!;
  if (headerSize !== 12 && headerSize !== 14) return null;
  if (bytes[at + 8] !== 0x2e || bytes[at + 9] !== 0x46 || bytes[at + 10] !== 0x49 || bytes[at + 11] !== 0x54) return null;
  const protocolVersion = bytes[at + 1]!;
  if (protocolVersion >> 4 > 2) return null; // 0.x (early ANT-FS dumps), 1.x and 2.x
  let headerCrc: FitHeader['headerCrc'] = 'absent';
  if (headerSize === 14) {
    if (bytes.length - at < 14) return null;
    const stored = bytes[at + 12]! | (bytes[at + 13]! << 8);
    headerCrc = stored === 0 ? 'zero' : stored === fitCrc(bytes, at, at + 12) ? 'ok' : 'mismatch';
  }
  return {
    headerSize,
    dataSize: (bytes[at + 4]! | (bytes[at + 5]! << 8) | (bytes[at + 6]! << 16) | (bytes[at + 7]! << 24)) >>> 0,
    protocolVersion,
    profileVersion: bytes[at + 2]! | (bytes[at + 3]! << 8),
    headerCrc,
  };
}

/** True when the upload starts like a FIT file (what the "not a FIT file" failure is about). */
export function looksLikeFit(bytes: Uint8Array): boolean {
  return readHeader(bytes, 0) !== null;
}

/**
 * Splits the upload into its FIT files and walks each. Chained files follow one another directly
 * (FIT protocol: files may be chained); a file whose data is cut short ends the chain.
 * Precondition: the upload starts with a FIT header (looksLikeFit).
 */
export function frameFit(bytes: Uint8Array): FitFrames {
  const segments: FitSegment[] = [];
  let at = 0;
  let trailingBytes = 0;
  while (at < bytes.length) {
    const header = readHeader(bytes, at);
    if (header === null) {
      trailingBytes = bytes.length - at;
      break;
    }
    const dataStart = at + header.headerSize;
    const presentSize = Math.min(header.dataSize, bytes.length - dataStart);
    const walk = walkMessages(bytes, dataStart, presentSize, header.dataSize);
    const crcAt = dataStart + header.dataSize;
    let crc: FitSegment['crc'] = 'missing';
    let storedCrc = 0;
    let computedCrc = 0;
    if (crcAt + 2 <= bytes.length) {
      storedCrc = bytes[crcAt]! | (bytes[crcAt + 1]! << 8);
      computedCrc = fitCrc(bytes, at, crcAt);
      crc = storedCrc === computedCrc ? 'ok' : 'mismatch';
    }
    segments.push({ offset: at, header, presentSize, ...walk, crc, storedCrc, computedCrc });
    if (crc === 'missing') break;
    at = crcAt + 2;
  }
  return { segments, trailingBytes };
}

interface Walk {
  soundSize: number;
  break: FitSegment['break'];
  messages: number;
  records: number;
}

/**
 * Walks the messages of data bytes [start, start + present) of a file announcing `announced` bytes,
 * framing them as fit-file-parser's readRecord does (a compressed-timestamp message whose definition
 * starts with the timestamp field omits that field's bytes).
 */
function walkMessages(bytes: Uint8Array, start: number, present: number, announced: number): Walk {
  // Per local message type (0–15): data bytes of a normal message, bytes a compressed-timestamp
  // message omits, and the global message number; size −1 = not defined yet.
  const size = new Int32Array(16).fill(-1);
  const compressedOmits = new Int32Array(16);
  const global = new Int32Array(16);
  const end = start + present;
  let at = start;
  let messages = 0;
  let records = 0;
  const stop = (reason: BreakReason, detail: string): Walk => ({
    soundSize: at - start, break: { reason, at: at - start, detail }, messages, records,
  });

  while (at < end) {
    const header = bytes[at]!;
    if ((header & 0x80) !== 0) {
      // Compressed timestamp header: local type in bits 5–6.
      const local = (header >> 5) & 3;
      if (size[local]! < 0) return stop('malformed', `compressed-timestamp message of undefined local type ${local}`);
      const next = at + 1 + size[local]! - compressedOmits[local]!;
      if (next > end) return stop('truncated', 'a message runs past the end of the data');
      at = next;
      messages++;
      if (global[local] === MESG_RECORD) records++;
      continue;
    }
    const local = header & 0x0f;
    if ((header & 0x40) === 0) {
      if ((header & 0x30) !== 0) return stop('malformed', `data message header 0x${hex(header)} has reserved bits set`);
      if (size[local]! < 0) return stop('malformed', `data message of undefined local type ${local}`);
      const next = at + 1 + size[local]!;
      if (next > end) return stop('truncated', 'a message runs past the end of the data');
      at = next;
      messages++;
      if (global[local] === MESG_RECORD) records++;
      continue;
    }
    // Definition message: reserved, architecture, global number (2), field count, fields (3 bytes each),
    // then, with the developer-data flag (bit 5), a developer field count and developer fields.
    if ((header & 0x10) !== 0) return stop('malformed', `definition header 0x${hex(header)} has the reserved bit set`);
    if (at + 6 > end) return stop('truncated', 'a definition runs past the end of the data');
    const architecture = bytes[at + 2]!;
    if (architecture > 1) return stop('malformed', `definition with architecture byte ${architecture}`);
    const fieldCount = bytes[at + 5]!;
    let next = at + 6 + fieldCount * 3;
    if (next > end) return stop('truncated', 'a definition runs past the end of the data');
    let dataSize = 0;
    let omits = 0;
    for (let f = 0; f < fieldCount; f++) {
      const p = at + 6 + f * 3;
      const fieldSize = bytes[p + 1]!;
      const baseType = bytes[p + 2]! & 0x1f;
      if (fieldSize === 0) return stop('malformed', `definition field ${bytes[p]} has size 0`);
      if (baseType >= BASE_TYPE_COUNT) return stop('malformed', `definition field ${bytes[p]} has unknown base type 0x${hex(bytes[p + 2]!)}`);
      if (f === 0 && bytes[p] === FIELD_TIMESTAMP) omits = fieldSize;
      dataSize += fieldSize;
    }
    if ((header & 0x20) !== 0) {
      if (next + 1 > end) return stop('truncated', 'a definition runs past the end of the data');
      const developerCount = bytes[next]!;
      const developerStart = next + 1;
      next = developerStart + developerCount * 3;
      if (next > end) return stop('truncated', 'a definition runs past the end of the data');
      for (let f = 0; f < developerCount; f++) {
        const fieldSize = bytes[developerStart + f * 3 + 1]!;
        if (fieldSize === 0) return stop('malformed', `developer field ${bytes[developerStart + f * 3]} has size 0`);
        dataSize += fieldSize;
      }
    }
    size[local] = dataSize;
    compressedOmits[local] = omits;
    global[local] = architecture === 0 ? bytes[at + 3]! | (bytes[at + 4]! << 8) : (bytes[at + 3]! << 8) | bytes[at + 4]!;
    at = next;
  }
  if (present < announced) {
    return { soundSize: at - start, break: { reason: 'truncated', at: at - start, detail: 'the data ends early' }, messages, records };
  }
  return { soundSize: at - start, break: null, messages, records };
}

function hex(byte: number): string {
  return byte.toString(16).padStart(2, '0');
}

/**
 * The bytes fit-file-parser should read for a segment: its header with the data size rewritten to the
 * sound part and the header CRC set to 0x0000 ("not computed"), then that data. No file CRC (the parser
 * in its default mode does not read one). Returns a view without copying when nothing needs rewriting.
 */
export function soundBytes(bytes: Uint8Array, segment: FitSegment): Uint8Array {
  const { offset, header, soundSize } = segment;
  const length = header.headerSize + soundSize;
  if (soundSize === header.dataSize && segment.crc !== 'missing') {
    return bytes.subarray(offset, offset + length + 2);
  }
  const out = new Uint8Array(length);
  out.set(bytes.subarray(offset, offset + length));
  out[4] = soundSize & 0xff;
  out[5] = (soundSize >>> 8) & 0xff;
  out[6] = (soundSize >>> 16) & 0xff;
  out[7] = (soundSize >>> 24) & 0xff;
  if (header.headerSize === 14) {
    out[12] = 0;
    out[13] = 0;
  }
  return out;
}
