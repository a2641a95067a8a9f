/**
 * Training load, fitness, fatigue and form (ANALYTICS.md §10) as the rows `GET /api/v1/ext/training-load`
 * answers with `format=json`, shared by that route and the training pages (/training/load, /training/calendar
 * and the coach's views of them), so a page states exactly the numbers an app can fetch.
 * Kept honest by test/gateway/training-load.test.ts and test/browser/training-hub.test.ts.
 */
import { tableFromIPC } from 'apache-arrow';
import type { CallOptions } from '../engine-client.js';
import type { GatewayDeps } from '../deps.js';

/** One local day of the table, as the API's JSON row. */
export interface LoadDay {
  date: string;
  load: number;
  fitness: number;
  fatigue: number;
  form: number;
  activities: number;
  activities_without_load: number;
  activity_ids: string;
}

export interface LoadQuery {
  /** Canonical sports; empty: every sport. */
  sports: string[];
  /** Inclusive local dates; `start` null: from the first activity. */
  start: string | null;
  end: string;
}

/** The engine's table for `userId` as Arrow IPC or Parquet bytes. */
export async function trainingLoadTable(deps: Pick<GatewayDeps, 'engine'>, userId: string, query: LoadQuery, format: 'ARROW_IPC' | 'PARQUET', options: CallOptions): Promise<Uint8Array> {
  const result = await deps.engine.trainingLoad({ user_id: userId, sports: query.sports, start_date: query.start ?? '', end_date: query.end, format }, options);
  return result.data;
}

/** The table's rows as the API's JSON (its int64 counts as numbers). */
export function loadRowsOf(ipc: Uint8Array): Record<string, unknown>[] {
  return tableFromIPC(ipc).toArray().map((row) => jsonRow(row.toJSON()));
}

/** The days of `query` for `userId`, oldest first. */
export async function trainingLoadDays(deps: Pick<GatewayDeps, 'engine'>, userId: string, query: LoadQuery, options: CallOptions): Promise<LoadDay[]> {
  return loadRowsOf(await trainingLoadTable(deps, userId, query, 'ARROW_IPC', options)) as unknown as LoadDay[];
}

function jsonRow(row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row).map(([key, value]) => [key, typeof value === 'bigint' ? Number(value) : value]));
}
