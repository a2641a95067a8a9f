/**
 * The row count a Parquet file's footer declares, read from the file's last bytes.
 *
 * Why: parquet-wasm's streaming writer (`transformParquetStream`) drops a record batch it fails to
 * write without telling anyone, so the stream writer (stream-writer.ts) checks that the finished file
 * declares every row it was fed. Only the footer is parsed: `<FileMetaData><length: u32 LE>PAR1`, where
 * FileMetaData is a Thrift struct in the compact protocol whose field 3 is `num_rows: i64`
 * (parquet-format, parquet.thrift; Thrift compact protocol spec, thrift/doc/specs/thrift-compact-protocol.md).
 * Everything else is skipped, not interpreted. test/engine/parquet.test.ts checks it against hyparquet.
 */

const MAGIC = [0x50, 0x41, 0x52, 0x31]; // "PAR1"

/** Compact-protocol type ids (the low nibble of a field header, or of a list header). */
const enum CompactType {
  Stop = 0, True = 1, False = 2, Byte = 3, I16 = 4, I32 = 5, I64 = 6, Double = 7, Binary = 8, List = 9, Set = 10,
  Map = 11, Struct = 12, Uuid = 13,
}

/** FileMetaData's `3: required i64 num_rows`. */
const NUM_ROWS_FIELD = 3;
/** Nesting depth beyond which the footer is treated as corrupt (parquet metadata nests a few levels). */
const MAX_DEPTH = 64;

/**
 * The `num_rows` of the footer at the end of `tail` (the whole file, or any suffix of it that holds
 * the footer and its 8-byte trailer). Throws when the trailer is missing or the footer does not fit.
 */
export function parquetRowCount(tail: Uint8Array): number {
  const n = tail.length;
  if (n < 12 || MAGIC.some((byte, i) => tail[n - 4 + i] !== byte)) throw new Error('parquet footer: the bytes do not end with PAR1');
  const length = (tail[n - 8]! | (tail[n - 7]! << 8) | (tail[n - 6]! << 16) | (tail[n - 5]! << 24)) >>> 0;
  if (length + 8 > n) throw new Error(`parquet footer: ${length} bytes of metadata do not fit in the last ${n} bytes`);
  const reader = new CompactReader(tail, n - 8 - length, n - 8);
  let fieldId = 0;
  for (;;) {
    const header = reader.byte();
    const type = header & 0x0f;
    if (type === CompactType.Stop) break;
    const delta = header >> 4;
    fieldId = delta === 0 ? reader.zigzag() : fieldId + delta;
    if (fieldId === NUM_ROWS_FIELD && type === CompactType.I64) return reader.zigzag();
    reader.skip(type, 0);
  }
  throw new Error('parquet footer: FileMetaData has no num_rows');
}

class CompactReader {
  constructor(private readonly bytes: Uint8Array, private position: number, private readonly end: number) {}

  byte(): number {
    if (this.position >= this.end) throw new Error('parquet footer: metadata ends early');
    return this.bytes[this.position++]!;
  }

  /** An unsigned varint as a Number (exact below 2^53, which row counts and lengths are). */
  varint(): number {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      const b = this.byte();
      value += (b & 0x7f) * scale;
      if ((b & 0x80) === 0) return value;
      scale *= 128;
    }
    throw new Error('parquet footer: varint longer than 10 bytes');
  }

  /** A zigzag-encoded signed varint (i16, i32, i64). */
  zigzag(): number {
    const n = this.varint();
    return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
  }

  advance(count: number): void {
    if (count < 0 || this.position + count > this.end) throw new Error('parquet footer: metadata ends early');
    this.position += count;
  }

  /** Skips one value of `type`. */
  skip(type: number, depth: number): void {
    if (depth > MAX_DEPTH) throw new Error('parquet footer: metadata nests too deep');
    switch (type) {
      case CompactType.True:
      case CompactType.False:
        return; // a struct field's boolean lives in its header
      case CompactType.Byte:
        return this.advance(1);
      case CompactType.I16:
      case CompactType.I32:
      case CompactType.I64:
        this.varint();
        return;
      case CompactType.Double:
        return this.advance(8);
      case CompactType.Uuid:
        return this.advance(16);
      case CompactType.Binary:
        return this.advance(this.varint());
      case CompactType.List:
      case CompactType.Set: {
        const header = this.byte();
        const size = header >> 4 === 15 ? this.varint() : header >> 4;
        const element = header & 0x0f;
        for (let i = 0; i < size; i++) this.skipElement(element, depth + 1);
        return;
      }
      case CompactType.Map: {
        const size = this.varint();
        if (size === 0) return;
        const kinds = this.byte();
        for (let i = 0; i < size; i++) {
          this.skipElement(kinds >> 4, depth + 1);
          this.skipElement(kinds & 0x0f, depth + 1);
        }
        return;
      }
      case CompactType.Struct:
        for (;;) {
          const header = this.byte();
          const fieldType = header & 0x0f;
          if (fieldType === CompactType.Stop) return;
          if (header >> 4 === 0) this.zigzag(); // long-form field id
          this.skip(fieldType, depth + 1);
        }
      default:
        throw new Error(`parquet footer: unknown compact type ${type}`);
    }
  }

  /** A list, set or map element: booleans there take one byte each. */
  private skipElement(type: number, depth: number): void {
    if (type === CompactType.True || type === CompactType.False) this.advance(1);
    else this.skip(type, depth);
  }
}
