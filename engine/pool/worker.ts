/**
 * The worker entry: one dispatch table from task name to the function that runs it (ingest, series
 * tables, analyses — each lives beside its subject) and the result buffers to transfer back. pool.ts
 * sends `{ name, task }`; inputs arrive by transfer and results return with `Piscina.move`, so the
 * listed buffers are moved, not copied. Failures the caller should see (undecodable files) are
 * returned as values; thrown errors are bugs.
 */
import { move, transferableSymbol, valueSymbol } from 'piscina';
import * as analyses from '../analysis/analysis-tasks.js';
import { fitIntensityModel } from '../analysis/intensity-model.js';
import { decodeFile } from '../ingest/ingest-tasks.js';
import { encodeSeriesFile, streamSeriesFile } from '../parquet/series-file.js';
import type { PoolTasks, TaskName } from './tasks.js';
import { warmUp } from './warm-up.js';

interface TaskEntry<K extends TaskName> {
  run(task: PoolTasks[K]['task']): PoolTasks[K]['result'] | Promise<PoolTasks[K]['result']>;
  /** The result's buffers to move back (none: the result is copied, as small values are). */
  transfer?(result: PoolTasks[K]['result']): ArrayBuffer[];
}

const tableBytes = (file: { data: ArrayBuffer }): ArrayBuffer[] => [file.data];

const TASKS: { [K in TaskName]: TaskEntry<K> } = {
  decodeFile: {
    run: decodeFile,
    transfer: (outcome) => (outcome.ok ? outcome.activities.flatMap((activity) => [activity.series, activity.analysis]) : []),
  },
  encodeSeriesTable: { run: encodeSeriesFile, transfer: tableBytes },
  // Its bytes go back through the task's port as they are produced (engine/parquet/stream-protocol.ts).
  streamSeriesTable: { run: streamSeriesFile },
  analyzeSeries: { run: analyses.analyzeSeries, transfer: (result) => [result.analysis] },
  activityMeanMax: { run: analyses.activityMeanMax, transfer: tableBytes },
  activityAwd: { run: analyses.activityAwd, transfer: tableBytes },
  curveFile: { run: analyses.curveFile, transfer: tableBytes },
  awdFile: { run: analyses.awdFile, transfer: tableBytes },
  afterBests: { run: analyses.afterBests, transfer: (result) => [result.values.buffer, result.starts.buffer, result.holders.buffer] as ArrayBuffer[] },
  meanMaxTable: { run: analyses.meanMaxTable, transfer: tableBytes },
  longitudinalAwd: { run: analyses.longitudinalAwd, transfer: tableBytes },
  trainingLoadTable: { run: analyses.trainingLoadTable, transfer: tableBytes },
  // A few numbers back: copied.
  fitIntensityModel: { run: fitIntensityModel },
  warmUp: { run: warmUp },
};

/** What pool.ts posts for every task. */
export interface TaskMessage<K extends TaskName = TaskName> {
  name: K;
  task: PoolTasks[K]['task'];
}

export default async function runTask<K extends TaskName>({ name, task }: TaskMessage<K>): Promise<unknown> {
  const entry = TASKS[name] as TaskEntry<K> | undefined;
  if (entry === undefined) throw new Error(`engine worker: unknown task ${String(name)}`);
  const result = await entry.run(task);
  const transfer = entry.transfer?.(result);
  return transfer && transfer.length > 0 ? move({ [transferableSymbol]: transfer, [valueSymbol]: result }) : result;
}
