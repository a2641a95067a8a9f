/**
 * Reference twin of ../lactate-loglog.ts for tests: the interpolated grid built as arrays (each grid
 * point interpolated on its own), then, for every interior grid point as the breakpoint ψ, the hinge
 * v = a + b·u + c·max(0, u − ψ) fitted by QR least squares and its residuals summed. The lowest RSS wins,
 * the lowest ψ on a tie. Slow (one full fit per candidate) and allocating on purpose.
 */
import { leastSquares } from './least-squares.js';

/** ln(intensity) and ln(lactate) at every grid point, and the grid intensities. */
export function loglogGrid(intensities: Float64Array, lactates: Float64Array, step: number): { x: number[]; u: number[]; v: number[] } {
  const first = intensities[0]!;
  const last = intensities[intensities.length - 1]!;
  const count = Math.floor((last - first) / step + 1e-10) + 1;
  const x: number[] = [];
  for (let k = 0; k < count; k++) x.push(first + k * step);
  const lactate = x.map((at) => {
    let j = 0;
    while (j < intensities.length - 2 && intensities[j + 1]! < at) j++;
    const x0 = intensities[j]!;
    const y0 = lactates[j]!;
    return y0 + ((at - x0) * (lactates[j + 1]! - y0)) / (intensities[j + 1]! - x0);
  });
  return { x, u: x.map(Math.log), v: lactate.map(Math.log) };
}

/** The hinge fit's residual sum of squares with the breakpoint at grid point `k`, or null when singular. */
export function hingeRss(u: readonly number[], v: readonly number[], k: number): number | null {
  const psi = u[k]!;
  return leastSquares(u.map((ui) => [1, ui, Math.max(0, ui - psi)]), v)?.rss ?? null;
}

export function loglogBreakpoint(intensities: Float64Array, lactates: Float64Array, step: number): number {
  if (intensities.length < 2 || !(intensities[0]! > 0)) return Number.NaN;
  const { x, u, v } = loglogGrid(intensities, lactates, step);
  let best = Number.POSITIVE_INFINITY;
  let breakpoint = Number.NaN;
  for (let k = 1; k < x.length - 1; k++) {
    const rss = hingeRss(u, v, k);
    if (rss !== null && rss < best) {
      best = rss;
      breakpoint = x[k]!;
    }
  }
  return breakpoint;
}
