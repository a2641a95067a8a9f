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
 * metrics in request order — each one that at least one matching activity has (by its record's
 * `metrics`); an activity without it has nulls there. No match still gives a valid file, zero rows.
 */
import { MessageChannel } from 'node:worker_threads';
import { status } from '@grpc/grpc-js';
import type { Logger } from '../../domain/logger.js';
import { canonicalSport, sportMatchesAny, sportStorePrefix } from '../../domain/sport.js';
import { parseDate } from '../../domain/time.js';
import type { ActivityRecord, Filter, Store } from '../../storage/store.js';
import { EngineError, type CallContext, type StreamSink } from '../errors.js';
import { PortInbox, type ToWorker } from '../parquet/stream-protocol.js';
import type { TableFormat } from '../proto.js';
import { isSeriesMetric, requestedMetrics, tableFormat, writeChunks, type SeriesDeps, type TableChunk } from './activity-series.js';
import { requireField } from './request-fields.js';

export interface GetLongitudinalSeriesRequest {
  user_id: string;
  sports?: string[];
  /** Inclusive local dates YYYY-MM-DD; empty = unbounded on that side. */
  start_date?: string;
  end_date?: string;
  metrics?: string[];
  format?: TableFormat;
}

const SUBSYSTEM = 'longitudinal series';

export function getLongitudinalSeries(deps: SeriesDeps & { logger: Logger }) {
  return async function getLongitudinalSeriesCall(request: GetLongitudinalSeriesRequest, sink: StreamSink<TableChunk>, { signal }: CallContext): Promise<void> {
    const userId = requireField(request.user_id, 'user_id', SUBSYSTEM);
    const sports = sportFilters(request.sports ?? []);
    const startDate = optionalDate(request.start_date, 'start_date');
    const endDate = optionalDate(request.end_date, 'end_date');
    if (startDate !== null && endDate !== null && startDate > endDate) {
      throw new EngineError(status.INVALID_ARGUMENT, `${SUBSYSTEM}: start_date ${startDate} is after end_date ${endDate}`);
    }
    const requested = requestedMetrics(request.metrics, SUBSYSTEM);
    // "`duration` is always included"
    const metrics = requested.includes('duration') ? requested : ['duration', ...requested];
    const format = tableFormat(request.format);

    const records = await matchingActivities(deps.store, userId, sports, startDate, endDate);
    const recorded = new Set(records.flatMap((record) => record.metrics));
    const columns = metrics.filter((name) => name === 'duration' || (isSeriesMetric(name) && recorded.has(name)));
    signal.throwIfAborted();

    const channel = new MessageChannel();
    const inbox = new PortInbox(channel.port1, signal);
    const task = deps.pool.run('streamSeriesTable', { port: channel.port2, metrics: columns, format }, { signal, transferList: [channel.port2] });
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

/** The user's activities matching any filter (sub-sport containment) with a local date in range, oldest first. */
async function matchingActivities(store: Store, userId: string, sports: string[], startDate: string | null, endDate: string | null): Promise<ActivityRecord[]> {
  const prefixes = [...new Set(sports.map((sport) => sportStorePrefix(sport)!))];
  const filter: Filter<ActivityRecord> = { user_id: userId, $or: prefixes.map((prefix) => ({ sport: { $prefix: prefix } })) };
  if (startDate !== null || endDate !== null) {
    filter.local_date = { ...(startDate !== null && { $gte: startDate }), ...(endDate !== null && { $lte: endDate }) };
  }
  // The prefix pre-selects (`cycling` also admits `cycling_x`); containment decides.
  const found = await store.activities.find(filter, { sort: { start: 1 } });
  return found.filter((record) => sportMatchesAny(record.sport, sports));
}

function sportFilters(sports: string[]): string[] {
  if (sports.length === 0) throw new EngineError(status.INVALID_ARGUMENT, `${SUBSYSTEM}: at least one sport is required`);
  return sports.map((sport) => {
    const canonical = canonicalSport(sport);
    if (canonical === null) throw new EngineError(status.INVALID_ARGUMENT, `${SUBSYSTEM}: '${sport}' is not a valid Open Sport Taxonomy sport`);
    return canonical;
  });
}

function optionalDate(value: string | undefined, field: string): string | null {
  if (value === undefined || value === '') return null;
  if (parseDate(value) === null) throw new EngineError(status.INVALID_ARGUMENT, `${SUBSYSTEM}: ${field} '${value}' is not a date (YYYY-MM-DD)`);
  return value;
}
