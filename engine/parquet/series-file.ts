/**
 * The two series-table tasks as the worker runs them (engine/pool/worker.ts dispatches to them by name):
 *
 * - `encodeSeriesFile`: one activity's stored series → one whole file with a column for every requested
 *   metric (all null where the activity lacks it).
 *   With `segmentation`, rows are the activity's adaptive segments (engine/analysis/segments.ts).
 * - `streamSeriesFile`: the activities the handler feeds through the task's MessagePort → one file,
 *   its bytes posted back through the port as they are produced (stream-protocol.ts).
 */
import { tableFromIPC, type RecordBatch, type Table } from 'apache-arrow';
import { decodeSeriesIpc } from '../ingest/arrow.js';
import { segmentSeries } from '../analysis/segments.js';
import type { CurveMetric } from '../analysis/canonical-series.js';
import type { EncodedSeriesTable, EncodeSeriesTableTask, StreamSeriesTableTask, StreamedSeriesTable } from '../pool/tasks.js';
import { requestActivity, type FromWorker } from './stream-protocol.js';
import { segmentBatches, seriesBatches, seriesLayout, type SeriesActivity, type SeriesLayout } from './series-table.js';
import { encodeTableFile, streamTableFile } from './table-file.js';
import { standalone } from '../pool/standalone.js';

export function encodeSeriesFile(task: EncodeSeriesTableTask): EncodedSeriesTable {
  const bytes = new Uint8Array(task.series);
  const stored = tableFromIPC(bytes);
  const layout = seriesLayout(task.metrics, { activityColumns: false });
  const batches = tableBatches(bytes, stored, layout, { id: task.activityId, sport: task.sport, offset: task.offset }, task.segmentation);
  const rows = batches.reduce((sum, batch) => sum + batch.numRows, 0);
  const data = standalone(encodeTableFile(layout.schema, batches, task.format));
  return { data, rows, metrics: layout.metrics };
}

export async function streamSeriesFile(task: StreamSeriesTableTask): Promise<StreamedSeriesTable> {
  const { port } = task;
  const layout = seriesLayout(task.metrics, { activityColumns: true });
  let bytes = 0;
  const emit = (chunk: Uint8Array): void => {
    const data = standalone(chunk);
    bytes += data.byteLength;
    port.postMessage({ type: 'chunk', data } satisfies FromWorker, [data]);
  };
  // The handler closes the port when it is done with it (or the thread ends); closing it here could
  // cut off the messages still on their way.
  const rows = await streamTableFile(layout.schema, task.format, async () => {
    const message = await requestActivity(port);
    if (message.type === 'end') return null;
    const series = new Uint8Array(message.series);
    return tableBatches(series, tableFromIPC(series), layout, message, task.segmentation);
  }, emit);
  port.postMessage({ type: 'done', rows, bytes } satisfies FromWorker);
  return { rows, bytes };
}

/** One activity's rows: its samples, or its adaptive segments on `segmentation`. */
function tableBatches(bytes: Uint8Array, stored: Table, layout: SeriesLayout, activity: SeriesActivity, segmentation: CurveMetric | null): RecordBatch[] {
  if (segmentation === null) return seriesBatches(stored, layout, activity);
  return segmentBatches(segmentSeries(decodeSeriesIpc(bytes), segmentation, layout.metrics, activity.sport), layout, activity);
}
