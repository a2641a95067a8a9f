/**
 * The two series-table tasks as the worker runs them (engine/pool/worker.ts exports them by name):
 *
 * - `encodeSeriesFile`: one activity's stored series → one whole file of its requested metrics.
 * - `streamSeriesFile`: the activities the handler feeds through the task's MessagePort → one file,
 *   its bytes posted back through the port as they are produced (stream-protocol.ts).
 */
import { tableFromIPC } from 'apache-arrow';
import type { EncodedSeriesTable, EncodeSeriesTableTask, StreamSeriesTableTask, StreamedSeriesTable } from '../pool/tasks.js';
import { requestActivity, type FromWorker } from './stream-protocol.js';
import { availableMetrics, seriesBatches, seriesLayout } from './series-table.js';
import { encodeTableFile, streamTableFile } from './table-file.js';

export function encodeSeriesFile(task: EncodeSeriesTableTask): EncodedSeriesTable {
  const stored = tableFromIPC(new Uint8Array(task.series));
  const layout = seriesLayout(availableMetrics(task.metrics, stored.schema), { activityColumns: false });
  const batches = seriesBatches(stored, layout, { id: task.activityId, sport: '', offset: task.offset });
  const data = standalone(encodeTableFile(layout.schema, batches, task.format));
  return { data, rows: stored.numRows, metrics: layout.metrics };
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
    return seriesBatches(tableFromIPC(new Uint8Array(message.series)), layout, message);
  }, emit);
  port.postMessage({ type: 'done', rows, bytes } satisfies FromWorker);
  return { rows, bytes };
}

/** The bytes as an ArrayBuffer of their own, so transferring it moves nothing else. */
function standalone(bytes: Uint8Array): ArrayBuffer {
  const { buffer, byteOffset, byteLength } = bytes;
  if (buffer instanceof ArrayBuffer && byteOffset === 0 && byteLength === buffer.byteLength) return buffer;
  return bytes.slice().buffer as ArrayBuffer;
}
