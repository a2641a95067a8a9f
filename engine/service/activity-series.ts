/**
 * GetActivitySeries: one activity's recorded series as a Parquet (or Arrow IPC) table, server-streamed
 * in chunks. Validate → load the record (NOT_FOUND unless it is the caller's) and its stored series →
 * encode in the pool (engine/parquet/series-file.ts) → stream the file back in CHUNK_BYTES pieces,
 * waiting for the caller to read (StreamSink). One activity's file is small enough to encode whole;
 * GetLongitudinalSeries (longitudinal-series.ts) streams as it encodes. The helpers below are shared
 * with it. test/gateway/activity-series.test.ts drives it through the gateway.
 */
import { status } from '@grpc/grpc-js';
import type { Store } from '../../storage/store.js';
import { EngineError, type CallContext, type StreamSink } from '../errors.js';
import type { TableFileFormat } from '../parquet/table-file.js';
import type { EnginePool } from '../pool/pool.js';
import { DEFAULT_METRICS, METRICS, type GetActivitySeriesRequest, type TableChunk, type TableFormat } from '../contract.js';
import { optionalCurveMetric, requireField } from './request-fields.js';
import { ownActivity, storedSeries } from './activity-records.js';

export interface SeriesDeps {
  store: Store;
  pool: EnginePool;
}

/** Size of the pieces a table file is streamed in, bytes. */
export const CHUNK_BYTES = 1024 * 1024;

const KNOWN_METRICS: ReadonlySet<string> = new Set(METRICS);

export function getActivitySeries(deps: SeriesDeps) {
  return async function getActivitySeriesCall(request: GetActivitySeriesRequest, sink: StreamSink<TableChunk>, { signal }: CallContext): Promise<void> {
    const userId = requireField(request.user_id, 'user_id', 'activity series');
    const activityId = requireField(request.activity_id, 'activity_id', 'activity series');
    const segmentation = optionalCurveMetric(request.segmentation_on, 'segmentation_on', 'activity series');
    const requested = requestedMetrics(request.metrics, 'activity series');
    // Segment rows always carry their length.
    const metrics = segmentation !== null && !requested.includes('duration') ? ['duration', ...requested] : requested;
    const format = tableFormat(request.format);

    const record = await ownActivity(deps.store, userId, activityId);
    const series = await storedSeries(deps.store, record, 'activity series');
    signal.throwIfAborted();
    const table = await deps.pool.run(
      'encodeSeriesTable',
      { series, metrics, offset: record.offset, activityId, sport: record.sport, format, segmentation },
      { signal, transferList: [series] },
    );
    await writeChunks(sink, table.data);
  };
}

/** Sends `data` in pieces of at most CHUNK_BYTES, each after the call has room for it. */
export async function writeChunks(sink: StreamSink<TableChunk>, data: ArrayBuffer): Promise<void> {
  for (let offset = 0; offset < data.byteLength; offset += CHUNK_BYTES) {
    await sink.write({ data: Buffer.from(data, offset, Math.min(CHUNK_BYTES, data.byteLength - offset)) });
  }
}

/** The requested metrics without repeats (the defaults when none); an unknown name is INVALID_ARGUMENT. */
export function requestedMetrics(metrics: string[] | undefined, subsystem: string): string[] {
  const list = metrics !== undefined && metrics.length > 0 ? metrics : DEFAULT_METRICS;
  for (const name of list) {
    if (!KNOWN_METRICS.has(name)) throw new EngineError(status.INVALID_ARGUMENT, `${subsystem}: unknown metric '${name}'`);
  }
  return [...new Set(list)];
}

/** "PARQUET (default for this call) or ARROW_IPC". */
export function tableFormat(format: TableFormat | undefined): TableFileFormat {
  return format === 'ARROW_IPC' ? 'arrow_ipc' : 'parquet';
}

