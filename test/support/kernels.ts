/** Helpers the kernel tests and benchmarks share: a seeded generator and a decoded ride's canonical series. */
import type { DecodedActivity } from '../../engine/ingest/decoded.js';
import { CANONICAL_DEFAULTS, canonicalGrid, canonicalPower, canonicalSpeed } from '../../engine/kernels/canonical.js';

/** mulberry32: a small seeded generator, so every run sees (and a failure can replay) the same numbers in [0, 1). */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export interface KernelSeries {
  values: Float64Array;
  coverage: Float64Array;
  sectionStarts: Int32Array;
}

/** The canonical power or speed series of a decoded activity (engine/kernels/canonical.ts). */
export function canonicalOf(activity: DecodedActivity, metric: 'power' | 'speed'): KernelSeries {
  const { timestamps, metrics } = activity.series;
  const column = (name: string) => metrics.find((m) => m.name === name)?.values ?? null;
  const grid = canonicalGrid(timestamps);
  const values = new Float64Array(grid.length);
  if (metric === 'power') canonicalPower(timestamps, column('power')!, grid, CANONICAL_DEFAULTS, values);
  else canonicalSpeed(timestamps, column('speed'), column('distance'), grid, CANONICAL_DEFAULTS, values);
  return { values, coverage: grid.coverage, sectionStarts: grid.sectionStarts };
}
