/**
 * Speed bests of the FIT corpus's activities before and after ANALYTICS.md §1.3 (speed from the device's
 * channel when the series has one, else distance with GPS spikes removed), for bench/speed-bests.bench.ts
 * (the table) and test/engine/speed-spikes.test.ts (the bounds). Three series per activity:
 * - before: the rule up to ANALYSIS_VERSION 2, re-enacted here (distance-derived whenever the distance has
 *   two values, its jumps kept; a sample without a pair or a speed above 100 m/s took the channel or 0);
 * - after: what the engine computes now (canonicalSeries with the activity's sport);
 * - distance only: the same activity with its speed channel dropped, so the spike filter does the work.
 * No test framework here: the bench uses it too.
 */
import { readFileSync } from 'node:fs';
import { canonicalOptions, canonicalSeries } from '../../engine/analysis/canonical-series.js';
import { decodeFit } from '../../engine/ingest/fit.js';
import type { RecordedSeries } from '../../engine/ingest/series.js';
import { canonicalGrid, hasMotion, heldIntegrals, type CanonicalOptions } from '../../engine/kernels/canonical.js';
import { meanMax, prefixSums } from '../../engine/kernels/mean-max.js';
import { fitCorpusKeys, fitCorpusPath } from './fit-corpus.js';

/** The durations of the table, s. */
export const BEST_DURATIONS = [1, 2, 5, 10, 20, 30] as const;

export interface SpeedBests {
  /** `<corpus key>#<activity index>`. */
  name: string;
  sport: string;
  /** Where the engine's speed comes from now. */
  source: 'channel' | 'distance';
  /** Largest value of the recorded speed channel, m/s (NaN without one). */
  channelMax: number;
  /** m/s at BEST_DURATIONS (NaN beyond the activity). */
  before: number[];
  after: number[];
  distanceOnly: number[] | null;
}

/** Every corpus activity with a speed channel or a distance, in corpus order; files that fail to decode are skipped. */
export async function corpusSpeedBests(keep: (sport: string) => boolean = () => true): Promise<SpeedBests[]> {
  const out: SpeedBests[] = [];
  for (const key of fitCorpusKeys().filter((name) => name.toLowerCase().endsWith('.fit'))) {
    let activities;
    try {
      activities = (await decodeFit(new Uint8Array(readFileSync(fitCorpusPath(key))))).activities;
    } catch {
      continue;
    }
    activities.forEach((activity, index) => {
      if (!keep(activity.sport)) return;
      const series = activity.series;
      const speed = column(series, 'speed');
      const distance = column(series, 'distance');
      const after = bestsOf(series, activity.sport);
      if (after === null) return;
      const withoutChannel: RecordedSeries = { ...series, metrics: series.metrics.filter((metric) => metric.name !== 'speed') };
      let channelMax = Number.NaN;
      if (speed !== null) for (const value of speed) if (value > channelMax || (value === value && channelMax !== channelMax)) channelMax = value;
      out.push({
        name: `${key}#${index}`,
        sport: activity.sport,
        source: speed !== null && hasMotion(speed) ? 'channel' : 'distance',
        channelMax,
        before: beforeBests(series.timestamps, speed, distance, canonicalOptions(activity.sport)),
        after,
        distanceOnly: distance === null ? null : bestsOf(withoutChannel, activity.sport),
      });
    });
  }
  return out;
}

function column(series: RecordedSeries, name: string): Float64Array | null {
  return series.metrics.find((metric) => metric.name === name)?.values ?? null;
}

function bestsOf(series: RecordedSeries, sport: string): number[] | null {
  const canonical = canonicalSeries(series, ['speed'], canonicalOptions(sport));
  return canonical.speed === null ? null : bests(canonical.speed, canonical.grid.sectionStarts);
}

function bests(values: Float64Array, sectionStarts: Int32Array): number[] {
  const prefix = new Float64Array(values.length + 1);
  prefixSums(values, prefix);
  const out = new Float64Array(BEST_DURATIONS.length);
  meanMax(prefix, sectionStarts, Int32Array.from(BEST_DURATIONS), out, new Int32Array(BEST_DURATIONS.length));
  return Array.from(out, (value, j) => (BEST_DURATIONS[j]! > values.length ? Number.NaN : value));
}

/** The bests under the rule up to ANALYSIS_VERSION 2 (engine/kernels/canonical.ts before §1.3's filter). */
function beforeBests(timestamps: Float64Array, speed: Float64Array | null, distance: Float64Array | null, options: CanonicalOptions): number[] {
  const grid = canonicalGrid(timestamps, options);
  const n = timestamps.length;
  const oldCap = 100; // m/s, the old maxSpeedMps
  const perSample = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const v = speed === null ? 0 : speed[i]!;
    perSample[i] = v > 0 && v <= oldCap ? v : 0;
  }
  let present = 0;
  if (distance !== null) for (const metres of distance) if (metres === metres) present++;
  if (distance !== null && present >= 2) {
    let previous = -1;
    let previousMs = 0;
    let previousM = 0;
    let runningMaxM = -Infinity;
    for (let j = 0; j < n; j++) {
      const d = distance[j]!;
      if (d !== d) continue;
      if (d > runningMaxM) runningMaxM = d;
      if (previous >= 0 && timestamps[j]! - previousMs <= options.holdCapMs) {
        const derived = ((runningMaxM - previousM) / (timestamps[j]! - previousMs)) * 1000;
        for (let k = previous; k < j; k++) perSample[k] = derived <= oldCap ? derived : 0;
      }
      previous = j;
      previousMs = timestamps[j]!;
      previousM = runningMaxM;
    }
  }
  const values = new Float64Array(grid.length);
  heldIntegrals(timestamps, perSample, grid, options, true, values, null);
  return bests(values, grid.sectionStarts);
}
