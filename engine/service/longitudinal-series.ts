/**
 * GetLongitudinalSeries: the recorded series of every matching activity, oldest first, concatenated
 * into ONE Parquet (or Arrow IPC) file with `activity_id` and `sport` columns, streamed as it is encoded.
 *
 * Design — the result (a year of 1 Hz data is millions of rows) never sits whole in any process:
 * - Here, on the event loop: validate, find the matching records (small documents; series stay in the
 *   blob store), fix the column set, then start ONE `streamSeriesTable` pool task, handing it one end
 *   of a MessageChannel (engine/parquet/stream-protocol.ts).
 * - The worker asks for activities one at a time; each answer is one stored series, read from the store
 *   only when asked for and moved to the worker (one copy out of the store's buffer, then a transfer). The worker turns it into record
 *   batches and feeds parquet-wasm's streaming writer, which emits each row group as it fills
 *   (engine/parquet/table-file.ts); the bytes come back through the port, transferred.
 * - Each piece goes to the gRPC stream through the StreamSink, which waits for 'drain' when the caller
 *   reads slowly, and the worker's next request is read only after the pieces before it are written,
 *   so backpressure reaches the encoder: memory holds about one activity, one row group and
 *   grpc-js's buffer.
 * - Abort (deadline, cancellation, failure) aborts the pool task: Piscina ends the worker thread, which
 *   closes the port. The task holds its worker for the whole transfer, bounded by the call's deadline.
 *
 * Columns: timestamp, timestamp_local, activity_id, sport, then `duration` (always) and the requested
 * metrics in request order (with `segmentation_on`, rows are each activity's adaptive segments and
 * `duration` is a segment's length) — every one of them, whether or not any matching activity has it ("a
 * column for every requested metric", gaps.md); an activity without it has nulls there, typed as the
 * metric (engine/parquet/series-table.ts metricType). No match still gives a valid file, zero rows.
 */
import { MessageChannel } from 'node:worker_threads';
import type { Logger } from '../../domain/logger.js';
import type { CallContext, StreamSink } from '../errors.js';
import { PortInbox, type ToWorker } from '../parquet/stream-protocol.js';
import type { GetLongitudinalSeriesRequest, TableChunk } from '../contract.js';
import { requestedMetrics, tableFormat, writeChunks, type SeriesDeps } from './activity-series.js';
import { optionalCurveMetric, requireField } from './request-fields.js';
import { matchingActivities, selectionOf } from './activity-selection.js';

const SUBSYSTEM = 'longitudinal series';

export function getLongitudinalSeries(deps: SeriesDeps & { logger: Logger }) {
  return async function getLongitudinalSeriesCall(request: GetLongitudinalSeriesRequest, sink: StreamSink<TableChunk>, { signal }: CallContext): Promise<void> {
    const userId = requireField(request.user_id, 'user_id', SUBSYSTEM);
    const selection = selectionOf(request, SUBSYSTEM, { requireSport: true });
    const segmentation = optionalCurveMetric(request.segmentation_on, 'segmentation_on', SUBSYSTEM);
    const requested = requestedMetrics(request.metrics, SUBSYSTEM);
    // "`duration` is always included"
    const columns = requested.includes('duration') ? requested : ['duration', ...requested];
    const format = tableFormat(request.format);

    const records = await matchingActivities(deps.store, userId, selection);
    signal.throwIfAborted();

    const channel = new MessageChannel();
    const inbox = new PortInbox(channel.port1, signal);
    const task = deps.pool.run('streamSeriesTable', { port: channel.port2, metrics: columns, format, segmentation }, { signal, transferList: [channel.port2] });
    task.catch((error: unknown) => inbox.fail(error));

    let next = 0;
    const nextActivity = async (): Promise<ToWorker> => {
      while (next < records.length) {
        const record = records[next++]!;
        const stored = await deps.store.blobs.get(record.series_key);
        signal.throwIfAborted();
        if (stored === null) {
          // Ingest stores the series before the record, so this is a deletion racing this call.
          deps.logger.warn({ activityId: record.id }, `${SUBSYSTEM}: activity ${record.id} has no stored series; left out`);
          continue;
        }
        // A standalone buffer: transferring it to the worker must not detach the store's memory.
        return { type: 'activity', series: stored.slice().buffer as ArrayBuffer, id: record.id, sport: record.sport, offset: record.offset };
      }
      return { type: 'end' };
    };

    // Messages are handled in order, each chunk written (and drained) before the next message is
    // read. An activity is fetched and sent as soon as its 'next' is read, without holding up the
    // chunks behind it: the worker asks again only after encoding it, and that request waits in the
    // inbox behind the chunks, so the encoder runs at most one activity ahead of the caller.
    let feeding: Promise<void> = Promise.resolve();
    try {
      for (;;) {
        const message = await inbox.next();
        if (message.type === 'next') {
          feeding = nextActivity().then((answer) => inbox.send(answer));
          feeding.catch((error: unknown) => inbox.fail(error));
        } else if (message.type === 'chunk') {
          await writeChunks(sink, message.data);
        } else {
          break; // 'done': every byte has been written
        }
      }
      await feeding;
      await task;
    } finally {
      inbox.close();
    }
  };
}
