/**
 * The duration grids of the mean-max endpoints (interface §4 "Duration grids", ANALYTICS.md §2), in
 * seconds, ascending. Pure; test/engine/duration-grid.test.ts pins them.
 */

/** "19 defaults: 1, 2, 5, 10, 20, 30 s; 1, 2, 3, 5, 10, 15, 20, 30 min; 1, 2, 3, 4, 6 h." */
export const DEFAULT_DURATIONS: readonly number[] = [
  1, 2, 5, 10, 20, 30, 60, 120, 180, 300, 600, 900, 1200, 1800, 3600, 7200, 10_800, 14_400, 21_600,
];

/**
 * "durations=all: 1 s steps to 3 min, then 5, 10, 30 and 60 s steps" — our breakpoints (ANALYTICS.md §2):
 * 5 s steps to 10 min, 10 s to 20 min, 30 s to 60 min, 60 s beyond.
 */
const STEPS: readonly { until: number; step: number }[] = [
  { until: 180, step: 1 },
  { until: 600, step: 5 },
  { until: 1200, step: 10 },
  { until: 3600, step: 30 },
  { until: Infinity, step: 60 },
];

/** The full grid up to and including `maxSeconds` (every grid point ≤ it). */
export function fullGrid(maxSeconds: number): Int32Array {
  const out: number[] = [];
  let d = 0;
  for (const { until, step } of STEPS) {
    while (d + step <= until && d + step <= maxSeconds) {
      d += step;
      out.push(d);
    }
    if (d + step > maxSeconds) break;
  }
  return Int32Array.from(out);
}
