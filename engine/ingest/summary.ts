/**
 * An activity's `summary` and each lap's blocks (gaps.md "Shapes": power{mean,max}, speed{mean,max},
 * distance{sum}, altitude{mean,gain,loss,min,max}, heart_rate{mean,min,max,start,end}, cadence{mean,max},
 * temperature / core_temperature / smo2 {mean,min,max,start,end}), from the statistics kernels
 * (engine/kernels/summary.ts) over the decoded series. test/engine/summary.test.ts checks hand-computed values.
 */
import type { MetricSummary, SummaryBlocks } from '../../storage/records.js';
import { summarizeColumn, type Statistic } from '../kernels/summary.js';
import type { RecordedSeries, SeriesMetric } from './series.js';

const BLOCKS: Partial<Record<SeriesMetric, Statistic[]>> = {
  power: ['mean', 'max'],
  speed: ['mean', 'max'],
  distance: ['sum'],
  altitude: ['mean', 'gain', 'loss', 'min', 'max'],
  heart_rate: ['mean', 'min', 'max', 'start', 'end'],
  cadence: ['mean', 'max'],
  temperature: ['mean', 'min', 'max', 'start', 'end'],
  core_temperature: ['mean', 'min', 'max', 'start', 'end'],
  smo2: ['mean', 'min', 'max', 'start', 'end'],
};

/** The summary blocks of samples [from, to) of the series; metrics without a value there are left out. */
export function summarize(series: RecordedSeries, weights: Float64Array, from: number, to: number): SummaryBlocks {
  const blocks: SummaryBlocks = {};
  for (const column of series.metrics) {
    const statistics = BLOCKS[column.name];
    if (!statistics) continue;
    const summary = summarizeColumn(column.values, weights, from, to, column.name === 'altitude');
    if (summary === null) continue;
    const block: MetricSummary = {};
    for (const statistic of statistics) block[statistic] = summary[statistic];
    blocks[column.name] = block;
  }
  return blocks;
}
