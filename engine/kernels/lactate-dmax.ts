/**
 * LT2 by the modified Dmax method (Bishop, Jenkins & Mackinnon 1998, Med Sci Sports Exerc 30:1270–5), as
 * ANALYTICS.md §7 states it: a cubic least-squares fit of lactate on intensity over the steps (resting
 * point excluded); the chord runs from the first step whose next step rises ≥ 0.4 mmol/L to the last
 * step, at their measured lactate; LT2 is the largest intensity, at most the last step's, where the
 * cubic's slope equals the chord's (the farthest point of the curve below the chord).
 *
 * Numerics: the cubic is fitted in t = (x − centre) / half-range ∈ [−1, 1] through the 4×4 normal
 * equations (well conditioned there; raw watts would put Σx⁶ near 1e16), and the slope equation
 * p′(t) = slope · half-range is solved with the cancellation-free quadratic formula. A rise counts when it
 * is ≥ 0.4 − 1e-9 mmol/L, so a measured 0.40 is not lost to binary rounding (1.23 − 0.83 < 0.4 in
 * floating point). No real root at or below the last step means no LT2 (lactater would take the real
 * part of a complex root; that is not a threshold).
 *
 * Not here: the points' assembly, heart rate at LT2 (engine/analysis/lactate-thresholds.ts). Reference
 * twin: reference/lactate-dmax.ts (QR fit on raw intensities, the textbook quadratic formula);
 * test/engine/kernels/lactate-thresholds.test.ts holds them together.
 */

/** The smallest rise, mmol/L, from one step to the next that starts the chord (0.4, with rounding slack). */
export const DMAX_RISE = 0.4 - 1e-9;

/**
 * Writes LT2 into `out`: out[0] the intensity (W or m/s), out[1] the cubic's lactate there (mmol/L);
 * both NaN when there is none (fewer than 4 steps, no rise of 0.4 mmol/L, a singular fit, no real root
 * at or below the last step). `intensities` ascending and distinct; `lactates` mmol/L.
 */
export function modifiedDmax(intensities: Float64Array, lactates: Float64Array, out: Float64Array): void {
  out[0] = Number.NaN;
  out[1] = Number.NaN;
  const n = intensities.length;
  if (n < 4) return;
  let rise = -1;
  for (let i = 0; i < n - 1; i++) {
    if (lactates[i + 1]! - lactates[i]! >= DMAX_RISE) {
      rise = i;
      break;
    }
  }
  if (rise < 0) return;
  const first = intensities[0]!;
  const last = intensities[n - 1]!;
  const centre = 0.5 * (first + last);
  const half = 0.5 * (last - first);

  // Normal equations in t: A[p][q] = Σ t^(p+q), b[p] = Σ t^p·y, p, q = 0…3, as an augmented 4×5 matrix.
  const m = new Float64Array(20);
  for (let i = 0; i < n; i++) {
    const t = (intensities[i]! - centre) / half;
    const y = lactates[i]!;
    let tp = 1;
    for (let p = 0; p < 4; p++) {
      let tq = tp;
      for (let q = 0; q < 4; q++) {
        m[p * 5 + q]! += tq;
        tq *= t;
      }
      m[p * 5 + 4]! += tp * y;
      tp *= t;
    }
  }
  // Gaussian elimination (the matrix is symmetric positive definite: no pivoting needed), then back-substitution.
  for (let p = 0; p < 4; p++) {
    const pivot = m[p * 5 + p]!;
    if (!(pivot > 1e-12 * m[0]!)) return;
    for (let r = p + 1; r < 4; r++) {
      const factor = m[r * 5 + p]! / pivot;
      for (let c = p; c < 5; c++) m[r * 5 + c]! -= factor * m[p * 5 + c]!;
    }
  }
  for (let p = 3; p >= 0; p--) {
    let sum = m[p * 5 + 4]!;
    for (let c = p + 1; c < 4; c++) sum -= m[p * 5 + c]! * m[c * 5 + 4]!;
    m[p * 5 + 4] = sum / m[p * 5 + p]!;
  }
  const a0 = m[4]!, a1 = m[9]!, a2 = m[14]!, a3 = m[19]!;

  // p′(t) = a1 + 2·a2·t + 3·a3·t² equals the chord's slope in t units.
  const slope = ((lactates[n - 1]! - lactates[rise]!) / (last - intensities[rise]!)) * half;
  const qa = 3 * a3;
  const qb = 2 * a2;
  const qc = a1 - slope;
  let root = Number.NaN;
  if (Math.abs(qa) <= 1e-12 * (Math.abs(qb) + Math.abs(qc))) {
    if (qb !== 0) root = -qc / qb;
    if (!(root <= 1)) root = Number.NaN;
  } else {
    const discriminant = qb * qb - 4 * qa * qc;
    if (discriminant < 0) return;
    const q = -0.5 * (qb + (qb >= 0 ? 1 : -1) * Math.sqrt(discriminant));
    const r1 = q / qa;
    const r2 = q !== 0 ? qc / q : r1;
    if (r1 <= 1) root = r1;
    if (r2 <= 1 && !(r2 <= root)) root = r2;
  }
  if (Number.isNaN(root)) return;
  out[0] = centre + half * root;
  out[1] = a0 + root * (a1 + root * (a2 + root * a3));
}
