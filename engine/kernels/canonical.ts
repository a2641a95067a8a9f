/**
 * The canonical 1 s series (ANALYTICS.md §1): recorded samples (irregular, smart recording, pauses) →
 * one value per second on a grid anchored at the first sample's UTC second. Every analysis runs on it.
 *
 * 1. Each sample holds its value until the next sample or for at most `holdCapMs` (the last sample of
 *    the activity for 1 s, as engine/kernels/summary.ts weighs it); each bin is the time-weighted mean
 *    of the held signal over its second, so total work is preserved.
 * 2. Time no sample holds (a gap longer than the hold cap) is 0 for power and speed and is not recorded
 *    time (`coverage` 0). A gap longer than `sectionGapMs` splits the activity into sections: each
 *    section has its own grid, anchored at its first sample's second, and no window spans a split.
 * 3. A missing power value inside recording is 0. Speed comes from the cumulative distance when it has
 *    at least two values (see canonicalSpeed), otherwise from the speed channel (missing = 0).
 * 4. Negative power is clamped to 0; power above `maxPowerW` is a spike and counts as 0. Likewise speed above
 *    `maxSpeedMps` (a corrupt value, or a distance jump within a second): it would otherwise dominate every
 *    curve and size the AWD histogram (0.01 m/s bins) beyond memory.
 *
 * Hold of sample i: [t_i, t_i + min(t_{i+1} − t_i, holdCapMs)); the activity's last sample holds
 * min(1000, holdCapMs) ms. Bin k of a section covers [anchor + 1000k, anchor + 1000(k + 1)); a section's
 * bins run to the end of its last sample's hold, rounded up to the whole second. Each bin adds, per sample,
 * value × overlap / 1000 (value·s), so a 1 Hz series on whole seconds maps to itself exactly.
 * Every function is O(n + bins); heldIntegrals and canonicalPower allocate nothing, canonicalSpeed one
 * per-sample array, canonicalGrid the grid it returns. Not here: resampling other metrics (callers use heldIntegrals), windows and analyses.
 * Reference twin: reference/canonical.ts (per bin, the overlaps of the holds it intersects, in sample
 * order, so results are bit-identical); test/engine/kernels/canonical.test.ts keeps both honest.
 */

export interface CanonicalOptions {
  /** A sample holds its value until the next sample or for at most this long, ms (§1.1). */
  holdCapMs: number;
  /** A gap between samples longer than this splits the activity into sections, ms (§1.2). */
  sectionGapMs: number;
  /** Power above this, W, is a spike and counts as 0 (§1.4). */
  maxPowerW: number;
  /** Speed above this, m/s, is a spike and counts as 0 (ours, after §1.4). */
  maxSpeedMps: number;
}

export const CANONICAL_DEFAULTS: Readonly<CanonicalOptions> = {
  holdCapMs: 5000, // = summary.ts HOLD_CAP_MS
  sectionGapMs: 60 * 60_000,
  maxPowerW: 3000,
  maxSpeedMps: 100, // 360 km/h: beyond any sport the taxonomy holds
};


export interface CanonicalGrid {
  /** Bins (seconds) of all sections together, in time order. */
  length: number;
  /** Section s covers bins [sectionStarts[s], sectionStarts[s + 1]); sections + 1 entries, the last = length. */
  sectionStarts: Int32Array;
  /** UTC epoch ms of each section's first bin: its first sample's timestamp floored to the whole second. */
  sectionAnchors: Float64Array;
  /** Milliseconds of each bin held by some sample, whole numbers 0..1000 (0 = not recorded time). */
  coverage: Float64Array;
}

/**
 * The grid of a series: sections, anchors, bin count and coverage. `timestamps`: UTC epoch ms, whole
 * numbers, strictly increasing (the stored series guarantees it); none gives an empty grid (length 0,
 * sectionStarts [0], no anchors).
 */
export function canonicalGrid(timestamps: Float64Array, options: CanonicalOptions = CANONICAL_DEFAULTS): CanonicalGrid {
  checkOptions(options);
  const n = timestamps.length;
  const { holdCapMs, sectionGapMs } = options;
  if (n > 0 && !Number.isFinite(timestamps[0]!)) throw new RangeError(`canonical: timestamp 0 is ${timestamps[0]}`);
  // Pass 1: count sections (and check the order the rest relies on).
  let sections = n > 0 ? 1 : 0;
  for (let i = 1; i < n; i++) {
    const gapMs = timestamps[i]! - timestamps[i - 1]!;
    if (!(gapMs > 0 && gapMs < Infinity)) {
      throw new RangeError(`canonical: timestamps must be strictly increasing; sample ${i} is at ${timestamps[i]} after ${timestamps[i - 1]}`);
    }
    if (gapMs > sectionGapMs) sections++;
  }
  // Pass 2: each section's anchor and bin count, from its first sample's second to its last hold's end.
  const sectionStarts = new Int32Array(sections + 1);
  const sectionAnchors = new Float64Array(sections);
  let length = 0;
  let s = 0;
  for (let i = 0; i < n; i++) {
    const t = timestamps[i]!;
    if (i === 0 || t - timestamps[i - 1]! > sectionGapMs) {
      sectionAnchors[s] = Math.floor(t / 1000) * 1000;
      sectionStarts[s] = length;
    }
    if (i === n - 1) {
      length += Math.ceil((t + lastHoldMs(holdCapMs) - sectionAnchors[s]!) / 1000);
      s++;
    } else {
      const gapMs = timestamps[i + 1]! - t;
      if (gapMs > sectionGapMs) {
        length += Math.ceil((t + (gapMs < holdCapMs ? gapMs : holdCapMs) - sectionAnchors[s]!) / 1000);
        s++;
      }
    }
  }
  sectionStarts[sections] = length;
  // Pass 3: milliseconds held per bin.
  const coverage = new Float64Array(length);
  spreadHolds(timestamps, null, sectionStarts, sectionAnchors, options, false, false, coverage, null);
  return { length, sectionStarts, sectionAnchors, coverage };
}

/**
 * Integrals of a held signal per bin: `sums[k]` = ∫ value dt over bin k (value·s), `weights[k]` = seconds
 * of bin k held by a sample with a value. A missing (NaN) sample holds nothing, or holds 0 when
 * `missingAsZero`. Outputs are caller-owned, `grid.length` long, overwritten; `weights` may be null.
 * For other metrics a segment's time-weighted mean is Σ sums / Σ weights over its bins.
 */
export function heldIntegrals(
  timestamps: Float64Array, values: Float64Array, grid: CanonicalGrid, options: CanonicalOptions, missingAsZero: boolean,
  sums: Float64Array, weights: Float64Array | null,
): void {
  checkShapes(timestamps, values, grid, sums, weights);
  sums.fill(0);
  if (weights !== null) weights.fill(0);
  spreadHolds(timestamps, values, grid.sectionStarts, grid.sectionAnchors, options, missingAsZero, false, sums, weights);
}

/** Canonical power, W per bin, into `out` (grid.length): negatives and spikes → 0, missing → 0, unheld time → 0. */
export function canonicalPower(timestamps: Float64Array, power: Float64Array, grid: CanonicalGrid, options: CanonicalOptions, out: Float64Array): void {
  checkShapes(timestamps, power, grid, out, null);
  out.fill(0);
  // Bins are 1 s, so the integral over a bin in J is its mean in W.
  spreadHolds(timestamps, power, grid.sectionStarts, grid.sectionAnchors, options, true, true, out, null);
}

/**
 * Canonical speed, m/s per bin, into `out` (grid.length). With a distance channel of at least two values:
 * the distance is made monotone with a running max (missing values skipped); for consecutive samples i < j
 * that carry distance and lie at most holdCapMs apart, every sample in [i, j) gets the speed
 * (D_j − D_i) / (t_j − t_i), so a window's mean speed is its distance difference over its duration. Every
 * other sample (before the first distance, at a pause, the last one) uses its speed channel value, 0 when
 * missing or absent. Without distance: the speed channel, missing → 0. Negative speeds and speeds above
 * maxSpeedMps are 0. Then held and binned like power (unheld time → 0).
 */
export function canonicalSpeed(
  timestamps: Float64Array, speed: Float64Array | null, distance: Float64Array | null, grid: CanonicalGrid, options: CanonicalOptions,
  out: Float64Array,
): void {
  const n = timestamps.length;
  if (speed !== null) checkShapes(timestamps, speed, grid, out, null);
  if (distance !== null) checkShapes(timestamps, distance, grid, out, null);
  if (out.length !== grid.length) throw new RangeError(`canonical: output has ${out.length} bins, the grid ${grid.length}`);
  const { holdCapMs, maxSpeedMps } = options;
  // Per-sample speed, m/s: the speed channel first (NaN, negatives and spikes → 0) …
  const perSample = new Float64Array(n);
  if (speed !== null) {
    for (let i = 0; i < n; i++) {
      const v = speed[i]!;
      perSample[i] = v > 0 && v <= maxSpeedMps ? v : 0;
    }
  }
  // … then "mean speed over a window = distance difference / duration" wherever consecutive distance-bearing
  // samples are at most the hold cap apart. With fewer than two distance values no pair exists.
  if (distance !== null) {
    let previous = -1; // last sample with a distance
    let previousMs = 0;
    let previousM = 0; // monotone distance there, m
    let runningMaxM = -Infinity;
    for (let j = 0; j < n; j++) {
      const d = distance[j]!;
      if (d !== d) continue; // NaN: bridged by the pair around it
      if (d > runningMaxM) runningMaxM = d; // "made monotone with a running max"
      const t = timestamps[j]!;
      if (previous >= 0 && t - previousMs <= holdCapMs) {
        const derived = ((runningMaxM - previousM) / (t - previousMs)) * 1000;
        const v = derived <= maxSpeedMps ? derived : 0;
        for (let k = previous; k < j; k++) perSample[k] = v;
      }
      previous = j;
      previousMs = t;
      previousM = runningMaxM;
    }
  }
  out.fill(0);
  spreadHolds(timestamps, perSample, grid.sectionStarts, grid.sectionAnchors, options, true, false, out, null);
}

/** A section's last sample (followed by a gap > sectionGapMs) holds for the cap; the activity's last for 1 s at most. */
function lastHoldMs(holdCapMs: number): number {
  return holdCapMs < 1000 ? holdCapMs : 1000;
}

/**
 * The hot loop: adds each sample's hold [t_i, min(t_{i+1}, t_i + holdCapMs)) (the last sample:
 * min(1000, holdCapMs) ms) to every bin it overlaps. `values` null: `sums[k]` += overlap in ms (coverage).
 * Otherwise `sums[k]` += value · overlap / 1000 and `weights[k]` += overlap / 1000, written as
 * value · (overlap / 1000) so a full bin adds the value itself, exactly. Samples are visited in time
 * order, so each bin receives its terms in sample order (the reference twin sums in the same order,
 * which makes the parity test exact). O(n + bins): holds are disjoint, so a bin is touched by the samples
 * inside it plus at most one from before.
 */
function spreadHolds(
  timestamps: Float64Array, values: Float64Array | null, sectionStarts: Int32Array, sectionAnchors: Float64Array,
  options: CanonicalOptions, missingAsZero: boolean, clampPower: boolean, sums: Float64Array, weights: Float64Array | null,
): void {
  checkOptions(options);
  const n = timestamps.length;
  const { holdCapMs, sectionGapMs, maxPowerW } = options;
  const finalHoldMs = lastHoldMs(holdCapMs);
  const sections = sectionAnchors.length;
  let s = -1;
  let anchorMs = 0;
  let sectionBase = 0;
  let sectionEnd = 0;
  for (let i = 0; i < n; i++) {
    const t = timestamps[i]!;
    if (i === 0 || t - timestamps[i - 1]! > sectionGapMs) {
      s++;
      if (s >= sections || sectionAnchors[s] !== Math.floor(t / 1000) * 1000) throw gridMismatch(i);
      anchorMs = sectionAnchors[s]!;
      sectionBase = sectionStarts[s]!;
      sectionEnd = sectionStarts[s + 1]!;
    }
    let holdMs = finalHoldMs;
    if (i + 1 < n) {
      holdMs = timestamps[i + 1]! - t;
      if (holdMs > holdCapMs) holdMs = holdCapMs;
    }
    let value = 0;
    if (values !== null) {
      value = values[i]!;
      if (value !== value) {
        if (!missingAsZero) continue; // a missing sample holds nothing
        value = 0;
      } else if (clampPower && (value < 0 || value > maxPowerW)) {
        value = 0; // §1.4: negative → 0, spike → 0
      }
    }
    const fromMs = t - anchorMs; // hold, relative to the anchor
    const toMs = fromMs + holdMs;
    let binMs = Math.floor(fromMs / 1000) * 1000;
    let bin = sectionBase + binMs / 1000;
    for (; binMs < toMs; binMs += 1000, bin++) {
      if (bin >= sectionEnd) throw gridMismatch(i);
      const endMs = binMs + 1000;
      const overlapMs = (toMs < endMs ? toMs : endMs) - (fromMs > binMs ? fromMs : binMs);
      if (values === null) {
        sums[bin] += overlapMs;
      } else {
        const overlapS = overlapMs / 1000;
        sums[bin] += value * overlapS;
        if (weights !== null) weights[bin] += overlapS;
      }
    }
  }
  if (s + 1 !== sections) throw gridMismatch(n);
}

function gridMismatch(sample: number): Error {
  return new RangeError(`canonical: the grid does not match the timestamps and options (at sample ${sample})`);
}

function checkOptions(options: CanonicalOptions): void {
  const { holdCapMs, sectionGapMs, maxPowerW } = options;
  if (!(Number.isInteger(holdCapMs) && holdCapMs > 0)) throw new RangeError(`canonical: holdCapMs must be a positive whole number of ms, got ${holdCapMs}`);
  if (!(sectionGapMs >= holdCapMs)) throw new RangeError(`canonical: sectionGapMs (${sectionGapMs}) must be at least holdCapMs (${holdCapMs})`);
  if (!(maxPowerW >= 0)) throw new RangeError(`canonical: maxPowerW must be a number ≥ 0, got ${maxPowerW}`);
  if (!(options.maxSpeedMps >= 0)) throw new RangeError(`canonical: maxSpeedMps must be a number ≥ 0, got ${options.maxSpeedMps}`);
}

function checkShapes(timestamps: Float64Array, values: Float64Array, grid: CanonicalGrid, out: Float64Array, weights: Float64Array | null): void {
  if (values.length !== timestamps.length) throw new RangeError(`canonical: ${values.length} values for ${timestamps.length} timestamps`);
  if (out.length !== grid.length) throw new RangeError(`canonical: output has ${out.length} bins, the grid ${grid.length}`);
  if (weights !== null && weights.length !== grid.length) throw new RangeError(`canonical: weights have ${weights.length} bins, the grid ${grid.length}`);
}
