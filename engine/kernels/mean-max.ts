/**
 * Mean-max over a canonical series (ANALYTICS.md §2–3): MM(d) = max_i (P[i + d] − P[i]) / d over windows
 * of d bins inside one section, P the prefix sums; `start` = the earliest maximising window (strict >).
 * Every mean is computed with exactly that expression, so results equal the brute-force reference twin
 * reference/mean-max.ts bit for bit (test/engine/kernels/mean-max.test.ts; speed: bench/mean-max.bench.ts).
 *
 * meanMax, an exact branch and bound per duration, durations visited in ascending order:
 * - Bound. With x ≥ 0 the windows starting in a block [b, b + B) all lie inside [b, b + B − 1 + d), so
 *   U = (P[e] − P[b]) / d with e = min(b + B − 1 + d, sectionEnd) bounds their means. It bounds the
 *   *computed* means too: P is non-decreasing in floating point (fl(P[k] + x) ≥ P[k] for x ≥ 0), and
 *   correctly rounded subtraction and division by the same d are monotone (rounding is monotone and so
 *   are the exact operations), so P[i + d] ≤ P[e] and P[i] ≥ P[b] give
 *   fl(fl(P[i + d] − P[i]) / d) ≤ fl(fl(P[e] − P[b]) / d).
 * - Seed. The previous (shorter) duration's best window stretched to d bins, aligned on its start, centre
 *   and end (for consecutive grid durations it is usually the answer or close to it).
 * - Blocks of B = clamp(d / 4, 8, 64) starts, aligned to section starts; blocks whose bound is below the
 *   best are dropped. The block with the highest bound is scanned first, then the others in position
 *   order, each only while its bound still reaches the best. A kept block is scanned in runs of 8 starts,
 *   each run first tested against its own (tighter) bound. (A full sort or heap by bound, measured, cost
 *   more than it saved: the seed and the top block already give the answer or close to it.)
 * - Ties. A window replaces the best when its mean is greater, or equal and it starts earlier; a bound
 *   equal to the best is still scanned when its block begins before the best start. So the result is
 *   the exact (max, earliest argmax) whatever the visiting order.
 * - A window sum below sumBelow(best, d) cannot reach best after the division, so most windows and bounds
 *   are rejected by one comparison, without dividing.
 * - d ≤ 2: every window (the bound spans 4× the window or more). A repeated duration copies its twin.
 * On rides (bench: a synthetic 6-hour ride and a real one) most blocks fall to their bound; on
 * structureless noise, where many windows are near-ties, most survive and the cost approaches the brute
 * force's (measured on uniform noise, n = 21,600: 1.3–2.7× faster than the reference, against 5–17× on rides).
 * Scratch (the kept blocks) is allocated once per call, nothing in the loops.
 *
 * meanMaxAfter: one right-to-left pass per duration over every window start keeping a running max
 * (updated on ≥ so the earliest start wins); the states, sorted by start descending, take the running
 * max when the pass goes below their start.
 */

/** Durations at or below this are scanned window by window. */
const BRUTE_MAX_D = 2;
/** Block size (window starts per block) = d / BLOCK_DIVISOR clamped to [BLOCK_MIN, BLOCK_MAX]. */
const BLOCK_DIVISOR = 4;
const BLOCK_MIN = 8;
const BLOCK_MAX = 64;
/** A kept block is scanned in runs of LEAF starts, each first checked against its own bound. */
const LEAF = 8;
/** 1 − 2⁻³⁰, the margin of sumBelow. */
const SAFE = 1 - 2 ** -30;

/** prefix[0] = 0, prefix[k + 1] = prefix[k] + values[k]; `prefix.length` = values.length + 1. */
export function prefixSums(values: Float64Array, prefix: Float64Array): void {
  let sum = 0;
  prefix[0] = 0;
  for (let k = 0; k < values.length; k++) {
    sum += values[k]!;
    prefix[k + 1] = sum;
  }
}

/**
 * For each durations[j] (whole seconds ≥ 1, any order): out[j] = the best mean over windows of that many
 * bins lying inside one section (sectionStarts as CanonicalGrid's), starts[j] = the bin index where the
 * earliest maximising window begins; out[j] = NaN and starts[j] = −1 when no section lasts that long.
 * Values must be ≥ 0 (the pruning bound relies on it). No allocation per sample.
 */
export function meanMax(prefix: Float64Array, sectionStarts: Int32Array, durations: Int32Array, out: Float64Array, starts: Int32Array): void {
  const sections = sectionStarts.length - 1;
  let longest = 0;
  let capacity = 0;
  for (let s = 0; s < sections; s++) {
    const length = sectionStarts[s + 1]! - sectionStarts[s]!;
    if (length > longest) longest = length;
    if (length > 0) capacity += Math.ceil(length / BLOCK_MIN);
  }
  const order = Int32Array.from(durations.keys()).sort((a, b) => durations[a]! - durations[b]!);
  // The blocks kept for scanning: bound and first and last window start.
  const keptBound = new Float64Array(capacity);
  const keptFirst = new Int32Array(capacity);
  const keptLast = new Int32Array(capacity);

  let previousD = 0;
  let previousJ = -1;
  let seedD = 0; // the last duration answered, and its best start
  let seedStart = -1;
  for (let o = 0; o < order.length; o++) {
    const j = order[o]!;
    const d = durations[j]!;
    if (d === previousD && previousJ >= 0) {
      out[j] = out[previousJ]!;
      starts[j] = starts[previousJ]!;
      continue;
    }
    previousD = d;
    previousJ = j;
    if (d < 1 || d > longest) {
      out[j] = NaN;
      starts[j] = -1;
      continue;
    }
    // best / bestStart: the answer so far. A window sum (or bound sum) below `low` has a mean < best.
    let best = -Infinity;
    let bestStart = -1;
    let low = -Infinity;

    if (d <= BRUTE_MAX_D) {
      for (let s = 0; s < sections; s++) {
        const last = sectionStarts[s + 1]! - d;
        for (let i = sectionStarts[s]!; i <= last; i++) {
          const sum = prefix[i + d]! - prefix[i]!;
          if (sum < low) continue;
          const v = sum / d;
          if (v > best) {
            best = v;
            bestStart = i;
            low = sumBelow(best, d);
          }
        }
      }
    } else {
      // Seed: the previous (shorter) duration's best window, stretched to d bins three ways.
      if (seedStart >= 0) {
        const s = sectionOf(sectionStarts, seedStart);
        const first = sectionStarts[s]!;
        const last = sectionStarts[s + 1]! - d;
        if (last >= first) {
          for (let c = 0; c < 3; c++) {
            let i = c === 0 ? seedStart : c === 1 ? seedStart - ((d - seedD) >> 1) : seedStart - (d - seedD);
            if (i < first) i = first;
            if (i > last) i = last;
            const v = (prefix[i + d]! - prefix[i]!) / d;
            if (v > best || (v === best && i < bestStart)) {
              best = v;
              bestStart = i;
            }
          }
          low = sumBelow(best, d);
        }
      }
      let block = (d / BLOCK_DIVISOR) | 0;
      if (block < BLOCK_MIN) block = BLOCK_MIN;
      if (block > BLOCK_MAX) block = BLOCK_MAX;
      // Block bounds: blocks that cannot beat the seed are dropped at once, the others kept in position order
      // with the highest bound noted.
      let kept = 0;
      let top = -1;
      for (let s = 0; s < sections; s++) {
        const end = sectionStarts[s + 1]!;
        const last = end - d;
        for (let b = sectionStarts[s]!; b <= last; b += block) {
          let e = b + block - 1 + d;
          if (e > end) e = end;
          const enclosing = prefix[e]! - prefix[b]!;
          if (enclosing < low) continue;
          const bound = enclosing / d;
          if (bound > best || (bound === best && b < bestStart)) {
            if (top < 0 || bound > keptBound[top]!) top = kept;
            keptBound[kept] = bound;
            keptFirst[kept] = b;
            keptLast[kept] = e - d;
            kept++;
          }
        }
      }
      // The block with the highest bound first (it usually holds the answer), then the rest in order, each
      // only while its bound can still beat or tie-and-precede the best.
      for (let q = -1; q < kept; q++) {
        const k = q < 0 ? top : q;
        if (k < 0 || (q >= 0 && k === top)) continue;
        const bound = keptBound[k]!;
        const first = keptFirst[k]!;
        if (bound < best || (bound === best && first >= bestStart)) continue;
        const last = keptLast[k]!;
        for (let f = first; f <= last; f += LEAF) {
          let l = f + LEAF - 1;
          if (l > last) l = last;
          if (l > f && last > first + LEAF - 1) {
            const enclosing = prefix[l + d]! - prefix[f]!;
            if (enclosing < low) continue;
            const u = enclosing / d;
            if (u < best || (u === best && f >= bestStart)) continue;
          }
          for (let i = f; i <= l; i++) {
            const sum = prefix[i + d]! - prefix[i]!;
            if (sum < low) continue;
            const v = sum / d;
            if (v > best || (v === best && i < bestStart)) {
              best = v;
              bestStart = i;
              low = sumBelow(best, d);
            }
          }
        }
      }
    }
    out[j] = bestStart < 0 ? NaN : best;
    starts[j] = bestStart;
    seedD = d;
    seedStart = bestStart;
  }
}

/**
 * A sum S < sumBelow(best, d) has fl(S / d) < best, strictly, so it can neither beat nor tie `best`: a
 * filter that spares the division. With SAFE = 1 − 2⁻³⁰ and two roundings of relative error ≤ 2⁻⁵³,
 * sumBelow < best·d·(1 − 2⁻³⁰ + 2⁻⁵²), so S / d < best·(1 − 2⁻³⁰ + 2⁻⁵²) and after one more rounding
 * fl(S / d) < best·(1 − 2⁻³⁰ + 2⁻⁵⁰) < best. Outside best ∈ [1e-300, 1e290] (subnormal or overflowing
 * products, d < 2³¹) it returns −∞: no filtering, every sum is divided.
 */
function sumBelow(best: number, d: number): number {
  return best >= 1e-300 && best <= 1e290 ? best * d * SAFE : -Infinity;
}

/** The section holding bin i (sectionStarts[s] ≤ i < sectionStarts[s + 1]), by binary search. */
function sectionOf(sectionStarts: Int32Array, i: number): number {
  let lo = 0;
  let hi = sectionStarts.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (sectionStarts[mid]! <= i) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * The first bin from which windows may start for a fatigue state of `threshold` (work in J, or distance in m):
 * the least k with prefix[k] ≥ threshold, or −1 when the series never reaches it (prefix[n] < threshold).
 */
export function stateStart(prefix: Float64Array, threshold: number): number {
  // "each activity's part after the first sample at which accumulated work (or distance) reaches W" (§3).
  if (prefix.length === 0 || !(prefix[prefix.length - 1]! >= threshold)) return -1;
  let lo = 0;
  let hi = prefix.length - 1; // prefix[hi] ≥ threshold; P is non-decreasing
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (prefix[mid]! >= threshold) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * Mean-max after fatigue states (§3): for each state s (stateStarts[s] from stateStart; −1 = never reached)
 * and duration j, the best mean over windows of durations[j] bins that start at a bin ≥ stateStarts[s] and lie
 * inside one section, into out[s * durations.length + j], with the earliest maximising start in starts[…];
 * NaN / −1 when there is none. One right-to-left running-max pass per duration answers every state.
 */
export function meanMaxAfter(
  prefix: Float64Array, sectionStarts: Int32Array, durations: Int32Array, stateStarts: Int32Array, out: Float64Array, starts: Int32Array,
): void {
  const D = durations.length;
  const sections = sectionStarts.length - 1;
  // States by start descending; the unreached ones (−1) sort last and are answered without a pass.
  const order = Int32Array.from(stateStarts.keys()).sort((a, b) => stateStarts[b]! - stateStarts[a]!);
  let reached = 0;
  while (reached < order.length && stateStarts[order[reached]!]! >= 0) reached++;
  for (let r = reached; r < order.length; r++) {
    for (let j = 0; j < D; j++) {
      out[order[r]! * D + j] = NaN;
      starts[order[r]! * D + j] = -1;
    }
  }
  for (let j = 0; j < D; j++) {
    const d = durations[j]!;
    let best = -Infinity;
    let bestStart = -1;
    let low = -Infinity; // sums below it have means < best (sumBelow)
    let next = 0; // the next state (in `order`) to record
    let nextFrom = next < reached ? stateStarts[order[next]!]! : -1;
    if (d >= 1) {
      for (let s = sections - 1; s >= 0; s--) {
        const first = sectionStarts[s]!;
        for (let i = sectionStarts[s + 1]! - d; i >= first; i--) {
          // Every start ≥ nextFrom has been seen: that state's answer is the running max.
          while (i < nextFrom) {
            const state = order[next]!;
            out[state * D + j] = bestStart < 0 ? NaN : best;
            starts[state * D + j] = bestStart;
            next++;
            nextFrom = next < reached ? stateStarts[order[next]!]! : -1;
          }
          const sum = prefix[i + d]! - prefix[i]!;
          if (sum < low) continue;
          const v = sum / d;
          if (v >= best) {
            best = v;
            bestStart = i;
            low = sumBelow(best, d);
          }
        }
      }
    }
    for (; next < reached; next++) {
      const state = order[next]!;
      out[state * D + j] = bestStart < 0 ? NaN : best;
      starts[state * D + j] = bestStart;
    }
  }
}
