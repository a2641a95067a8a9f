/**
 * Golden analytics of the real rides in test/fixtures/fit/sweatpy: mean-max (default grid and full grid),
 * AWD and `after` curves, computed by the slow reference twins only (engine/kernels/reference/) and
 * pinned in `<ride>.analytics.expected.json` beside each file. test/engine/analytics-golden.test.ts checks
 * the twins still give them and the fast path equals them; test/gateway/analytics.test.ts checks the
 * endpoints return them. `UPDATE_GOLDEN=1 npm test -- analytics-golden` rewrites the files.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { decodeFit } from '../../engine/ingest/fit.js';
import type { RecordedSeries } from '../../engine/ingest/series.js';
import { CANONICAL_DEFAULTS, type CanonicalGrid } from '../../engine/kernels/canonical.js';
import * as canonical from '../../engine/kernels/reference/canonical.js';
import * as meanMax from '../../engine/kernels/reference/mean-max.js';
import * as awd from '../../engine/kernels/reference/awd.js';
import { DEFAULT_DURATIONS, fullGrid } from '../../engine/kernels/duration-grid.js';
import { FIXTURES } from './paths.js';

export const GOLDEN_DIR = path.join(FIXTURES, 'fit', 'sweatpy');

/** The rides with goldens: power at 1 Hz, a pause, gaps, speed without power. */
export const GOLDEN_RIDES = ['4078723797.fit', '2020-06-01-16-52-40.fit', '6449921903_ACTIVITY.fit', '4801048867.fit'] as const;

/** Fatigue states of the goldens: kJ for power, m for speed. */
export const GOLDEN_AFTER = { power: [0, 100, 500, 1000], speed: [0, 1000, 10_000] } as const;

export interface CurveRow { duration: number; value: number; start: string }
export interface AwdRow { intensity: number; duration: number }

export interface MetricGolden {
  default_grid: CurveRow[];
  full_grid: CurveRow[];
  awd: AwdRow[];
  /** Per state (as in GOLDEN_AFTER, kJ or m): the default-grid curve after it; absent when not reached. */
  after: Record<string, CurveRow[]>;
}

export interface RideGolden {
  file: string;
  samples: number;
  bins: number;
  sections: number;
  power: MetricGolden | null;
  speed: MetricGolden | null;
}

export async function decodeRide(file: string): Promise<RecordedSeries> {
  const decoded = await decodeFit(new Uint8Array(readFileSync(path.join(GOLDEN_DIR, file))));
  return decoded.activities[0]!.series;
}

export function goldenPath(file: string): string {
  return path.join(GOLDEN_DIR, `${file.replace(/\.fit$/, '')}.analytics.expected.json`);
}

export function readGolden(file: string): RideGolden | null {
  const at = goldenPath(file);
  return existsSync(at) ? (JSON.parse(readFileSync(at, 'utf8')) as RideGolden) : null;
}

export function writeGolden(golden: RideGolden): void {
  writeFileSync(goldenPath(golden.file), `${JSON.stringify(golden, null, 1)}\n`);
}

/** Everything the golden holds, by the reference twins. */
export function referenceGolden(file: string, series: RecordedSeries): RideGolden {
  const grid = canonical.canonicalGrid(series.timestamps, CANONICAL_DEFAULTS);
  const column = (name: string) => series.metrics.find((metric) => metric.name === name)?.values ?? null;
  const power = column('power');
  const speed = column('speed');
  const distance = column('distance');
  const present = (values: Float64Array | null, enough: number) => values !== null && values.filter((v) => v === v).length >= enough;
  let powerBins: Float64Array | null = null;
  if (present(power, 1)) {
    powerBins = new Float64Array(grid.length);
    canonical.canonicalPower(series.timestamps, power!, grid, CANONICAL_DEFAULTS, powerBins);
  }
  let speedBins: Float64Array | null = null;
  if (present(speed, 1) || present(distance, 2)) {
    speedBins = new Float64Array(grid.length);
    canonical.canonicalSpeed(series.timestamps, present(speed, 1) ? speed : null, present(distance, 2) ? distance : null, grid, CANONICAL_DEFAULTS, speedBins);
  }
  return {
    file,
    samples: series.timestamps.length,
    bins: grid.length,
    sections: grid.sectionAnchors.length,
    power: powerBins === null ? null : metricGolden(grid, powerBins, 1, GOLDEN_AFTER.power.map((kj) => [String(kj), kj * 1000])),
    speed: speedBins === null ? null : metricGolden(grid, speedBins, 100, GOLDEN_AFTER.speed.map((m) => [String(m), m])),
  };
}

function metricGolden(grid: CanonicalGrid, values: Float64Array, resolution: number, states: [string, number][]): MetricGolden {
  const prefix = new Float64Array(values.length + 1);
  meanMax.prefixSums(values, prefix);
  const longest = Math.max(0, ...Array.from({ length: grid.sectionAnchors.length }, (_, s) => grid.sectionStarts[s + 1]! - grid.sectionStarts[s]!));
  const curve = (durations: Int32Array): CurveRow[] => {
    const out = new Float64Array(durations.length);
    const starts = new Int32Array(durations.length);
    meanMax.meanMax(prefix, grid.sectionStarts, durations, out, starts);
    return rows(grid, durations, out, starts, 0);
  };
  const defaults = Int32Array.from(DEFAULT_DURATIONS);
  const stateStarts = Int32Array.from(states, ([, threshold]) => meanMax.stateStart(prefix, threshold));
  const afterValues = new Float64Array(states.length * defaults.length);
  const afterStarts = new Int32Array(afterValues.length);
  meanMax.meanMaxAfter(prefix, grid.sectionStarts, defaults, stateStarts, afterValues, afterStarts);
  const after: Record<string, CurveRow[]> = {};
  states.forEach(([name], state) => {
    if (stateStarts[state]! >= 0) after[name] = rows(grid, defaults, afterValues, afterStarts, state * defaults.length);
  });
  const histogram = new Float64Array(awd.histogramLength(values, grid.coverage, resolution));
  awd.awdHistogram(values, grid.coverage, resolution, histogram);
  const cumulative = new Float64Array(histogram.length);
  awd.reverseCumulative(histogram, cumulative);
  const awdRows: AwdRow[] = [];
  for (let bin = histogram.length - 1; bin >= 0; bin--) awdRows.push({ intensity: bin / resolution, duration: cumulative[bin]! / 1000 });
  return { default_grid: curve(defaults), full_grid: curve(fullGrid(longest)), awd: awdRows, after };
}

function rows(grid: CanonicalGrid, durations: Int32Array, values: Float64Array, starts: Int32Array, offset: number): CurveRow[] {
  const out: CurveRow[] = [];
  durations.forEach((duration, j) => {
    const bin = starts[offset + j]!;
    if (bin < 0) return;
    let section = 0;
    while (section + 1 < grid.sectionAnchors.length && grid.sectionStarts[section + 1]! <= bin) section++;
    const ms = grid.sectionAnchors[section]! + (bin - grid.sectionStarts[section]!) * 1000;
    out.push({ duration, value: values[offset + j]!, start: new Date(ms).toISOString() });
  });
  return out;
}
