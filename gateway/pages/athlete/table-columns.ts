/**
 * Reading the engine's Arrow IPC tables for the pages: a column as a Float64Array with NaN where the value is
 * null (engine/analysis/tables.ts writes NaN as null, instants as timestamp[ms, UTC]), and a streamed table
 * read whole (an activity's series is a few megabytes at most). Nothing here computes: the numbers are the
 * API's, in the same table the API sends as Parquet.
 */
import type { Readable } from 'node:stream';
import { tableFromIPC, type Table } from 'apache-arrow';

export async function readTable(stream: Readable): Promise<Table> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return tableFromIPC(Buffer.concat(chunks));
}

export function tableOf(bytes: Uint8Array): Table {
  return tableFromIPC(bytes);
}

/** The column as numbers (instants as epoch ms), NaN for null; null when the table has no such column. */
export function numberColumn(table: Table, name: string): Float64Array | null {
  const vector = table.getChild(name);
  if (!vector) return null;
  const out = new Float64Array(vector.length);
  for (let i = 0; i < vector.length; i++) {
    const value = vector.get(i) as number | bigint | null;
    out[i] = value === null || value === undefined ? Number.NaN : Number(value);
  }
  return out;
}

/** The column as strings, null where null; null when the table has no such column. */
export function stringColumn(table: Table, name: string): (string | null)[] | null {
  const vector = table.getChild(name);
  if (!vector) return null;
  return Array.from({ length: vector.length }, (_, i) => {
    const value = vector.get(i) as unknown;
    return value === null || value === undefined ? null : String(value);
  });
}

/** A point of a mean-max curve: seconds and the metric (W or m/s). */
export interface Point {
  duration: number;
  value: number;
}

/** A mean-max table's (duration, metric) rows as points, ascending. */
export function points(table: Table, metric: string): Point[] {
  const durations = numberColumn(table, 'duration');
  const values = numberColumn(table, metric);
  if (!durations || !values) return [];
  const out: Point[] = [];
  for (let i = 0; i < durations.length; i++) if (!Number.isNaN(values[i]!)) out.push({ duration: durations[i]!, value: values[i]! });
  return out.sort((a, b) => a.duration - b.duration);
}

/** The `after` table split into one curve per fatigue state. */
export function afterStates(table: Table, metric: string): { after: number; points: Point[] }[] {
  const durations = numberColumn(table, 'duration');
  const values = numberColumn(table, metric);
  const after = numberColumn(table, 'after');
  if (!durations || !values || !after) return [];
  const curves = new Map<number, Point[]>();
  for (let i = 0; i < durations.length; i++) {
    if (Number.isNaN(values[i]!)) continue;
    const list = curves.get(after[i]!) ?? [];
    list.push({ duration: durations[i]!, value: values[i]! });
    curves.set(after[i]!, list);
  }
  return [...curves].sort(([a], [b]) => a - b).map(([state, list]) => ({ after: state, points: list.sort((a, b) => a.duration - b.duration) }));
}
