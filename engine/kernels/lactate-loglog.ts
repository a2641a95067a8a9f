/**
 * LT1 by the log-log method (Beaver, Wasserman & Whipp 1985, J Appl Physiol 59:1936–40), computed as the
 * R package lactater does (ANALYTICS.md §7): the measured points, resting point included, are
 * interpolated linearly every `step` (0.1 W, 0.01 m/s) from the first intensity to the last (R's
 * `seq(first, last, step)`), then ln(lactate) is fitted on ln(intensity) by a continuous two-segment
 * least-squares line (a hinge: v = a + b·u + c·max(0, u − ψ)); LT1 is the breakpoint ψ back in intensity.
 *
 * The breakpoint is searched over the interpolated grid itself (every interior grid point is a
 * candidate; the lowest wins a tie), so its resolution is one step, where lactater's `segmented` refines
 * ψ continuously: the two differ by less than one step. Each candidate costs O(1): the normal equations
 * of the hinge need only the sums of 1, u, u², v, uv over the grid points right of ψ, kept as running
 * totals while ψ moves up; the residual sum of squares comes from an LDLᵀ solve of the 3×3 system
 * (RSS = Σv² − Σ zᵢ²/dᵢ). Grid points are generated on the fly: two passes, no allocation.
 *
 * Not here: where the resting point comes from, heart rate at LT1 (engine/analysis/lactate-thresholds.ts).
 * Reference twin: reference/lactate-loglog.ts (a materialised grid and one QR least-squares solve per
 * candidate); test/engine/kernels/lactate-thresholds.test.ts holds them to the same breakpoint.
 */

/**
 * The log-log breakpoint (same unit as `intensities`), or NaN when there is none: fewer than three grid
 * points, or an intensity ≤ 0 (no logarithm). `intensities` ascending and distinct, W or m/s;
 * `lactates` > 0, mmol/L; `step` > 0, the interpolation step.
 */
export function loglogBreakpoint(intensities: Float64Array, lactates: Float64Array, step: number): number {
  const n = intensities.length;
  if (n < 2 || !(intensities[0]! > 0)) return Number.NaN;
  const first = intensities[0]!;
  const last = intensities[n - 1]!;
  const points = Math.floor((last - first) / step + 1e-10) + 1; // R's seq(first, last, step)
  if (points < 3) return Number.NaN;
  // Shifts that centre u and v near zero, so the sums below do not cancel.
  const uShift = 0.5 * (Math.log(first) + Math.log(last));
  const vShift = 0.5 * (Math.log(lactates[0]!) + Math.log(lactates[n - 1]!));

  // Pass 1: totals over every grid point.
  let tN = 0, tU = 0, tUU = 0, tV = 0, tUV = 0, tVV = 0;
  let segment = 0;
  for (let k = 0; k < points; k++) {
    const x = first + k * step;
    while (segment < n - 2 && intensities[segment + 1]! < x) segment++;
    const u = Math.log(x) - uShift;
    const v = Math.log(interpolate(intensities, lactates, segment, x)) - vShift;
    tN += 1; tU += u; tUU += u * u; tV += v; tUV += u * v; tVV += v * v;
  }

  // Pass 2: candidates ψ = u_k for k = 1 … points − 2; the running sums hold the points at or left of ψ.
  let lN = 0, lU = 0, lUU = 0, lV = 0, lUV = 0;
  let best = Number.POSITIVE_INFINITY;
  let bestX = Number.NaN;
  segment = 0;
  for (let k = 0; k < points - 1; k++) {
    const x = first + k * step;
    while (segment < n - 2 && intensities[segment + 1]! < x) segment++;
    const u = Math.log(x) - uShift;
    const v = Math.log(interpolate(intensities, lactates, segment, x)) - vShift;
    lN += 1; lU += u; lUU += u * u; lV += v; lUV += u * v;
    if (k === 0) continue;
    // Sums over the points right of ψ = u (h = u_i − ψ > 0 there, 0 elsewhere).
    const rN = tN - lN, rU = tU - lU, rUU = tUU - lUU, rV = tV - lV, rUV = tUV - lUV;
    const sH = rU - rN * u;
    const sHH = rUU - 2 * u * rU + rN * u * u;
    const sUH = rUU - u * rU;
    const sHV = rUV - u * rV;
    // LDLᵀ of [[n, Σu, Σh], [Σu, Σu², Σuh], [Σh, Σuh, Σh²]] and the forward solve of [Σv, Σuv, Σhv].
    const d1 = tN;
    const l21 = tU / d1;
    const l31 = sH / d1;
    const d2 = tUU - l21 * tU;
    const m32 = sUH - l21 * sH;
    const l32 = m32 / d2;
    const d3 = sHH - l31 * sH - l32 * m32;
    if (!(d2 > 0) || !(d3 > 1e-12 * sHH)) continue; // h is (numerically) a combination of 1 and u
    const z1 = tV;
    const z2 = tUV - l21 * z1;
    const z3 = sHV - l31 * z1 - l32 * z2;
    const rss = tVV - (z1 * z1) / d1 - (z2 * z2) / d2 - (z3 * z3) / d3;
    if (rss < best) {
      best = rss;
      bestX = x;
    }
  }
  return bestX;
}

/** Lactate at `x` on the segment [segment, segment + 1] of the measured points, linearly. */
function interpolate(intensities: Float64Array, lactates: Float64Array, segment: number, x: number): number {
  const x0 = intensities[segment]!;
  const y0 = lactates[segment]!;
  return y0 + ((x - x0) * (lactates[segment + 1]! - y0)) / (intensities[segment + 1]! - x0);
}
