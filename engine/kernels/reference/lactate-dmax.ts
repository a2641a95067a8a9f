/**
 * Reference twin of ../lactate-dmax.ts for tests: the cubic fitted by QR least squares on the raw
 * intensities (columns 1, x, x², x³), the chord as the text says it, and the slope equation solved with the
 * textbook quadratic formula in raw units; the largest real root at or below the last step. Slow and
 * allocating on purpose.
 */
import { leastSquares } from './least-squares.js';

export function modifiedDmax(intensities: Float64Array, lactates: Float64Array, out: Float64Array): void {
  out[0] = Number.NaN;
  out[1] = Number.NaN;
  const x = [...intensities];
  const y = [...lactates];
  if (x.length < 4) return;
  // "the first step whose next step rises ≥ 0.4 mmol/L" (with the kernel's slack for binary rounding)
  const rise = y.findIndex((value, i) => i + 1 < y.length && y[i + 1]! - value >= 0.4 - 1e-9);
  if (rise < 0) return;
  const fit = leastSquares(x.map((xi) => [1, xi, xi * xi, xi * xi * xi]), y);
  if (fit === null) return;
  const [c0, c1, c2, c3] = fit.coefficients as [number, number, number, number];
  const last = x.at(-1)!;
  const slope = (y.at(-1)! - y[rise]!) / (last - x[rise]!);
  // 3·c3·x² + 2·c2·x + (c1 − slope) = 0
  const a = 3 * c3;
  const b = 2 * c2;
  const c = c1 - slope;
  const roots = a === 0 ? (b === 0 ? [] : [-c / b]) : b * b - 4 * a * c < 0 ? [] : [(-b + Math.sqrt(b * b - 4 * a * c)) / (2 * a), (-b - Math.sqrt(b * b - 4 * a * c)) / (2 * a)];
  const eligible = roots.filter((root) => root <= last);
  if (eligible.length === 0) return;
  const at = Math.max(...eligible);
  out[0] = at;
  out[1] = c0 + c1 * at + c2 * at * at + c3 * at * at * at;
}
