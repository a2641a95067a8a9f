/**
 * A plain, independent calculation of LT1 (log-log) and LT2 (modified Dmax) as ANALYTICS.md §7 defines
 * them, for tests to hold the engine's derived values against. Deliberately simple: grids, explicit least
 * squares and a quadratic formula, nothing shared with engine/kernels. Checked against the published worked
 * example (lactater's demo data) in test/gateway/tests-records.test.ts.
 */

export interface StepPoint {
  /** W or m/s; 0 for the resting point. */
  intensity: number;
  lactate: number;
  heart_rate: number | null;
}

export interface Threshold {
  intensity: number;
  lactate: number;
  heart_rate: number | null;
}

/** Resting point (intensity 0) placed one step below the first step; steps ascending. */
function placed(points: readonly StepPoint[]): { rest: StepPoint; steps: StepPoint[] } {
  const rest = points.find((point) => point.intensity === 0)!;
  const steps = points.filter((point) => point.intensity > 0).sort((a, b) => a.intensity - b.intensity);
  const first = steps[0]!.intensity;
  return { rest: { ...rest, intensity: first - (steps[1]!.intensity - first) }, steps };
}

/** Linear interpolation of `y` over ascending `x`. */
function interpolate(xs: readonly number[], ys: readonly number[], x: number): number {
  for (let i = 0; i < xs.length - 1; i++) {
    if (x <= xs[i + 1]!) return ys[i]! + ((ys[i + 1]! - ys[i]!) * (x - xs[i]!)) / (xs[i + 1]! - xs[i]!);
  }
  return ys[ys.length - 1]!;
}

/** Solves A·x = b (small, dense) by Gaussian elimination with partial pivoting. */
function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(m[r]![col]!) > Math.abs(m[pivot]![col]!)) pivot = r;
    [m[col], m[pivot]] = [m[pivot]!, m[col]!];
    for (let r = 0; r < n; r++) {
      if (r === col) continue;
      const f = m[r]![col]! / m[col]![col]!;
      for (let c = col; c <= n; c++) m[r]![c]! -= f * m[col]![c]!;
    }
  }
  return m.map((row, i) => row[n]! / row[i]!);
}

/** Least-squares coefficients of `basis(x)` for the points. */
function leastSquares(xs: readonly number[], ys: readonly number[], basis: (x: number) => number[]): { coefficients: number[]; sse: number } {
  const k = basis(xs[0]!).length;
  const ata = Array.from({ length: k }, () => new Array<number>(k).fill(0));
  const aty = new Array<number>(k).fill(0);
  xs.forEach((x, i) => {
    const row = basis(x);
    for (let p = 0; p < k; p++) {
      aty[p]! += row[p]! * ys[i]!;
      for (let q = 0; q < k; q++) ata[p]![q]! += row[p]! * row[q]!;
    }
  });
  const coefficients = solve(ata, aty);
  const sse = xs.reduce((sum, x, i) => sum + (basis(x).reduce((v, c, p) => v + c * coefficients[p]!, 0) - ys[i]!) ** 2, 0);
  return { coefficients, sse };
}

/** LT1: points interpolated every `step`, then the best continuous two-segment fit of ln(lactate) on ln(intensity). */
export function logLogLt1(points: readonly StepPoint[], step: number): Threshold {
  const { rest, steps } = placed(points);
  const all = [rest, ...steps];
  const xs = all.map((point) => point.intensity);
  const lactates = all.map((point) => point.lactate);
  const grid: number[] = [];
  for (let x = xs[0]!; x <= xs[xs.length - 1]! + step / 2; x += step) grid.push(Math.min(x, xs[xs.length - 1]!));
  const lx = grid.map(Math.log);
  const ly = grid.map((x) => Math.log(interpolate(xs, lactates, x)));
  let best = { sse: Infinity, at: 0 };
  for (let i = 1; i < grid.length - 1; i++) {
    const knot = lx[i]!;
    const { sse } = leastSquares(lx, ly, (x) => [1, x, Math.max(0, x - knot)]);
    if (sse < best.sse) best = { sse, at: grid[i]! };
  }
  const heartRates = all.map((point) => point.heart_rate ?? NaN);
  const heart = interpolate(xs, heartRates, best.at);
  return { intensity: best.at, lactate: interpolate(xs, lactates, best.at), heart_rate: Number.isNaN(heart) ? null : heart };
}

/** LT2: cubic fit over the steps; chord from the first step whose next rises ≥ 0.4 mmol/L to the last; slope match. */
export function modifiedDmaxLt2(points: readonly StepPoint[]): Threshold {
  const { steps } = placed(points);
  const xs = steps.map((point) => point.intensity);
  const ys = steps.map((point) => point.lactate);
  const [d, c, b, a] = leastSquares(xs, ys, (x) => [1, x, x * x, x * x * x]).coefficients as [number, number, number, number];
  const from = steps.findIndex((point, i) => i + 1 < steps.length && steps[i + 1]!.lactate - point.lactate >= 0.4);
  const last = steps.length - 1;
  const slope = (ys[last]! - ys[from]!) / (xs[last]! - xs[from]!);
  // 3a x² + 2b x + c = slope
  const disc = Math.sqrt((2 * b) ** 2 - 4 * (3 * a) * (c - slope));
  const roots = [(-2 * b + disc) / (6 * a), (-2 * b - disc) / (6 * a)].filter((x) => x >= xs[from]! && x <= xs[last]!);
  const at = Math.min(Math.max(...roots), xs[last]!);
  const heartRates = steps.map((point) => point.heart_rate ?? NaN);
  const heart = interpolate(xs, heartRates, at);
  return { intensity: at, lactate: d + c * at + b * at * at + a * at ** 3, heart_rate: Number.isNaN(heart) ? null : heart };
}
