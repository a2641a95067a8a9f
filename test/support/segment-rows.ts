/**
 * Mean-max of segment rows read as a client reads them (ANALYTICS.md §4): each row is a constant block of
 * `duration` seconds from `start` at its mean. Computed exactly for any window length: the work over a
 * window [t, t + d] is C(t + d) − C(t), C the cumulative work, linear between row edges, so it is piecewise
 * linear in t with breaks only where t or t + d meets an edge; its maximum is at such a t. Every window
 * start on an edge and every window end on an edge is tried, whether the window begins or ends inside a
 * row. Rows that do not follow one another (a section split, gaps.md: no window spans it) start a new
 * stretch; no window spans two. Deliberately no test framework here: bench/segmentation.bench.ts uses it too.
 */

export interface SegmentRow {
  /** UTC epoch ms. */
  start: number;
  /** Seconds. */
  duration: number;
  /** The row's mean (W or m/s); null counts as 0. */
  value: number | null;
}

/** A stretch of rows that follow one another: edges (s from its start) and the cumulative work at each. */
interface Stretch {
  edges: Float64Array;
  work: Float64Array;
}

function stretches(rows: readonly SegmentRow[]): Stretch[] {
  const out: Stretch[] = [];
  let edges: number[] = [];
  let work: number[] = [];
  let end = Number.NaN;
  for (const row of rows) {
    if (row.start !== end) {
      if (edges.length > 1) out.push({ edges: Float64Array.from(edges), work: Float64Array.from(work) });
      edges = [0];
      work = [0];
    }
    edges.push(edges.at(-1)! + row.duration);
    work.push(work.at(-1)! + (row.value ?? 0) * row.duration);
    end = row.start + row.duration * 1000;
  }
  if (edges.length > 1) out.push({ edges: Float64Array.from(edges), work: Float64Array.from(work) });
  return out;
}

/** C(t) of one stretch, 0 ≤ t ≤ its length. */
function workAt({ edges, work }: Stretch, t: number): number {
  let lo = 0;
  let hi = edges.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (edges[mid]! <= t) lo = mid;
    else hi = mid;
  }
  const span = edges[hi]! - edges[lo]!;
  return work[lo]! + (span > 0 ? ((work[hi]! - work[lo]!) * (t - edges[lo]!)) / span : 0);
}

/** The best mean over windows of each of `durations` (s) inside one stretch; NaN where no stretch lasts that long. */
export function rowsMeanMax(rows: readonly SegmentRow[], durations: readonly number[]): number[] {
  const all = stretches(rows);
  return durations.map((d) => {
    let best = Number.NaN;
    for (const stretch of all) {
      const length = stretch.edges.at(-1)!;
      if (d > length) continue;
      for (const edge of stretch.edges) {
        for (const t of [edge, edge - d]) {
          if (t < 0 || t + d > length) continue;
          const mean = (workAt(stretch, t + d) - workAt(stretch, t)) / d;
          if (!(mean <= best)) best = mean;
        }
      }
    }
    return best;
  });
}

/** Whole seconds from `from` to `to` on a log grid (each about `ratio` × the one before), `to` included. */
export function logGrid(from: number, to: number, ratio = 1.2): number[] {
  const grid: number[] = [];
  for (let d = from; d < to; d = Math.max(d + 1, Math.round(d * ratio))) grid.push(d);
  if (to >= from) grid.push(to);
  return grid;
}
