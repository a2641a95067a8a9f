/**
 * Plain least squares for the reference twins: the design matrix as rows of numbers, solved by modified
 * Gram–Schmidt QR (never the normal equations), the residual sum of squares summed from the residuals
 * themselves. Slow and allocating on purpose; null when the columns are (numerically) dependent.
 */

export interface LeastSquaresFit {
  coefficients: number[];
  rss: number;
}

export function leastSquares(rows: readonly number[][], y: readonly number[]): LeastSquaresFit | null {
  const m = rows.length;
  const p = rows[0]!.length;
  const q: number[][] = [];
  const r: number[][] = Array.from({ length: p }, () => new Array<number>(p).fill(0));
  for (let j = 0; j < p; j++) {
    const column = rows.map((row) => row[j]!);
    const original = norm2(column);
    for (let i = 0; i < j; i++) {
      const dot = column.reduce((sum, value, row) => sum + value * q[i]![row]!, 0);
      r[i]![j] = dot;
      for (let row = 0; row < m; row++) column[row] = column[row]! - dot * q[i]![row]!;
    }
    const norm = norm2(column);
    if (!(norm > 1e-9 * original)) return null;
    r[j]![j] = norm;
    q.push(column.map((value) => value / norm));
  }
  const qty = q.map((column) => column.reduce((sum, value, row) => sum + value * y[row]!, 0));
  const coefficients = new Array<number>(p).fill(0);
  for (let j = p - 1; j >= 0; j--) {
    let sum = qty[j]!;
    for (let k = j + 1; k < p; k++) sum -= r[j]![k]! * coefficients[k]!;
    coefficients[j] = sum / r[j]![j]!;
  }
  const rss = rows.reduce((sum, row, i) => {
    const fitted = row.reduce((acc, value, j) => acc + value * coefficients[j]!, 0);
    return sum + (y[i]! - fitted) ** 2;
  }, 0);
  return { coefficients, rss };
}

function norm2(values: readonly number[]): number {
  return Math.sqrt(values.reduce((sum, value) => sum + value * value, 0));
}
