/**
 * Parquet bytes read by DuckDB, a reader independent of ours (the Rust `parquet` crate writes, hyparquet
 * reads elsewhere in the tests): gaps.md "Wire conventions" promises files readable by DuckDB, with UTC
 * instants as `timestamp[ms, UTC]` and `_local` columns as naive `timestamp[ms]`.
 *
 * `readWithDuckDb` writes the bytes to a temporary file (DuckDB's Node API reads Parquet from paths only),
 * runs `DESCRIBE` and `SELECT *` over `read_parquet` in a fresh in-memory database, and removes the file.
 * Values come back as hyparquet gives them with `timestampFromMilliseconds: Number`, so the two reads can
 * be compared as they are: timestamps (naive or UTC) as epoch milliseconds, computed exactly from
 * DuckDB's microseconds (a sub-millisecond part would show as a fraction, not be truncated), BIGINT as
 * bigint, DOUBLE as number, VARCHAR as string, NULL as null. Any other value type throws, so a column
 * that turns into something unexpected fails loudly.
 *
 * It deliberately does not check types itself: each test names the DuckDB types its endpoint promises.
 * Used by test/gateway/activity-series.test.ts and test/gateway/analytics.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DuckDBInstance, DuckDBTimestampTZValue, DuckDBTimestampValue, type DuckDBValue } from '@duckdb/node-api';
import { tempDir } from './stack.js';

export type DuckDbRow = Record<string, number | bigint | string | boolean | null>;

export interface DuckDbRead {
  /** `[name, DuckDB type]` in file order, e.g. `['timestamp', 'TIMESTAMP WITH TIME ZONE']`. */
  columns: [string, string][];
  rows: DuckDbRow[];
}

/** The columns (with DuckDB's types) and rows of a Parquet file, as DuckDB reads it. */
export async function readWithDuckDb(bytes: Uint8Array): Promise<DuckDbRead> {
  const dir = tempDir('threshold-duckdb-');
  const file = path.join(dir, 'response.parquet');
  fs.writeFileSync(file, bytes);
  const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  const connection = await instance.connect();
  try {
    const source = `read_parquet('${file.replace(/'/g, "''")}')`;
    const described = await connection.runAndReadAll(`DESCRIBE SELECT * FROM ${source}`);
    const columns = described.getRowObjects().map((row): [string, string] => [String(row.column_name), String(row.column_type)]);
    const selected = await connection.runAndReadAll(`SELECT * FROM ${source}`);
    const rows = selected.getRowObjects().map((row) => {
      const out: DuckDbRow = {};
      for (const [name, value] of Object.entries(row)) out[name] = plain(name, value);
      return out;
    });
    return { columns, rows };
  } finally {
    connection.closeSync();
    instance.closeSync();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function plain(column: string, value: DuckDBValue): DuckDbRow[string] {
  if (value instanceof DuckDBTimestampValue || value instanceof DuckDBTimestampTZValue) return Number(value.micros) / 1000;
  if (value === null || typeof value === 'number' || typeof value === 'bigint' || typeof value === 'string' || typeof value === 'boolean') return value;
  throw new Error(`duckdb read: column ${column} holds an unexpected ${value.constructor.name} (${String(value)})`);
}
