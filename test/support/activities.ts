/**
 * Activities for tests, inserted straight into a store (no upload, no ingest job): the record as ingest
 * writes it (engine/service/ingest-source.ts) and its series blob, an Arrow IPC stream from
 * `encodeSeriesIpc`. `syntheticSeries` builds a series from per-row formulas, so tests know every value.
 */
import { encodeSeriesIpc } from '../../engine/ingest/arrow.js';
import { SERIES_METRICS, type RecordedSeries, type SeriesMetric } from '../../engine/ingest/series.js';
import { canonicalSport } from '../../domain/sport.js';
import { localDate } from '../../domain/time.js';
import { newId } from '../../storage/ids.js';
import type { ActivityRecord, Store } from '../../storage/store.js';

/** Per-row formulas: row index → value (NaN = no value in that row). */
export type MetricFormulas = Partial<Record<SeriesMetric, (row: number) => number>>;

export interface SeriesSpec {
  rows: number;
  /** Milliseconds between samples (default 1000). */
  intervalMs?: number;
  metrics: MetricFormulas;
}

export interface InsertActivityOptions {
  /** Any well-formed Open Sport Taxonomy string; stored canonical. */
  sport: string;
  /** UTC epoch milliseconds of the first sample; required with a SeriesSpec, taken from a RecordedSeries. */
  start?: number;
  /** Minutes east of UTC (default 0). */
  offset?: number;
  series: RecordedSeries | SeriesSpec;
  id?: string;
  tags?: string[];
}

/** `rows` samples `intervalMs` apart from `start` (UTC ms); metrics in the stored column order. */
export function syntheticSeries(start: number, spec: SeriesSpec): RecordedSeries {
  const interval = spec.intervalMs ?? 1000;
  const timestamps = new Float64Array(spec.rows);
  for (let i = 0; i < spec.rows; i++) timestamps[i] = start + i * interval;
  const metrics = SERIES_METRICS.flatMap((name) => {
    const formula = spec.metrics[name];
    if (formula === undefined) return [];
    const values = new Float64Array(spec.rows);
    for (let i = 0; i < spec.rows; i++) values[i] = formula(i);
    return [{ name, values }];
  });
  return { timestamps, metrics };
}

/** Stores the series blob, then the record (the order ingest uses); returns the record. */
export async function insertActivity(store: Store, userId: string, options: InsertActivityOptions): Promise<ActivityRecord> {
  const series = 'timestamps' in options.series ? options.series : syntheticSeries(requireStart(options.start), options.series);
  const sport = canonicalSport(options.sport);
  if (sport === null) throw new Error(`insertActivity: '${options.sport}' is not a sport`);
  const id = options.id ?? newId();
  const n = series.timestamps.length;
  const start = n > 0 ? series.timestamps[0]! : requireStart(options.start);
  const end = n > 0 ? series.timestamps[n - 1]! : start;
  const offset = options.offset ?? 0;
  const now = Date.now();
  const record: ActivityRecord = {
    id,
    user_id: userId,
    source_id: newId(),
    source_index: 0,
    sport,
    start,
    end,
    offset,
    local_date: localDate(start, offset),
    duration_s: (end - start) / 1000,
    metrics: ['duration', ...series.metrics.map((column) => column.name)],
    tags: options.tags ?? [],
    devices: [],
    distance: null,
    summary: null,
    laps: null,
    app_metadata: {},
    series_key: `series:${id}`,
    samples: n,
    created_at: now,
    updated_at: now,
  };
  await store.blobs.put(record.series_key, encodeSeriesIpc(series), { userId });
  await store.activities.insert(record);
  return record;
}

function requireStart(start: number | undefined): number {
  if (start === undefined) throw new Error('insertActivity: a SeriesSpec needs a start');
  return start;
}
