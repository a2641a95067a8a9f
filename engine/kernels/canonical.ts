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
 * 3. A missing power value inside recording is 0. Speed comes from the device's speed channel when the
 *    series has one, otherwise from the cumulative distance with GPS spikes removed (see canonicalSpeed).
 *    Speeds are rounded to 1e-9 m/s (SPEED_STEPS_PER_MPS) so floating error never moves a value across
 *    a 0.01 m/s bin.
 * 4. Negative power is clamped to 0; power above `maxPowerW` is a spike and counts as 0. Speed above the
 *    sport's cap `maxSpeedMps` is a spike too: it would otherwise dominate every curve and size the AWD
 *    histogram (0.01 m/s bins) beyond memory.
 *
 * Hold of sample i: [t_i, t_i + min(t_{i+1} − t_i, holdCapMs)); the activity's last sample holds
 * min(1000, holdCapMs) ms. Bin k of a section covers [anchor + 1000k, anchor + 1000(k + 1)); a section's
 * bins run to the end of its last sample's hold, rounded up to the whole second. Each bin adds, per sample,
 * value × overlap / 1000 (value·s), so a 1 Hz series on whole seconds maps to itself exactly.
 * Every function is O(n + bins); heldIntegrals and canonicalPower allocate nothing, canonicalSpeed a
 * per-sample array (and two per-bin arrays for distance), canonicalGrid the grid it returns. Not here:
 * resampling other metrics (callers use heldIntegrals), windows and analyses.
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
  /** The sport's physical cap, m/s: a speed above it is a spike (§1.3; SPEED_CAPS_MPS per sport). */
  maxSpeedMps: number;
  /**
   * Fastest change of speed an athlete makes, m/s²: a distance-derived 1 s bin further than this × 1 s
   * from the median of the bins around it left their range and came back faster than any athlete
   * accelerates (§1.3), so it is a GPS spike (removeSpikes).
   */
  maxAccelerationMps2: number;
}

/**
 * §1.3 "the sport's physical cap": foot sports 11 m/s (39.6 km/h, above the fastest 100 m split ever run,
 * 12.4 m/s, only for a fraction of a second, and no 1 s bin of a training run comes near), cycling 30 m/s
 * (108 km/h, a fast descent), every other sport 60 m/s (216 km/h: skiing, motor-paced, whatever the
 * taxonomy holds). engine/analysis/canonical-series.ts picks one by the activity's sport.
 */
export const SPEED_CAPS_MPS = { foot: 11, cycling: 30, other: 60 } as const;

/**
 * The spike filter of distance-derived speed (removeSpikes; the device's channel is already filtered,
 * §1.3) looks this many bins to each side, within the section: a two-bin jump is still a minority of the
 * five. Its threshold, maxAccelerationMps2 = 3 m/s²: beyond the first strides a runner gains well under
 * 3 m/s per second, a rider under 2, and up-then-down within a second or two is no braking either.
 */
export const SPIKE_NEIGHBOURS = 2;

/**
 * Speeds are rounded to 1 / SPEED_STEPS_PER_MPS m/s (§1.3 "rounded to 1e-9 m/s"): far below any 0.01 m/s
 * bin, far above floating error; dividing by the integer gives the double nearest the decimal value.
 */
export const SPEED_STEPS_PER_MPS = 1e9;

export const CANONICAL_DEFAULTS: Readonly<CanonicalOptions> = {
  holdCapMs: 5000, // = summary.ts HOLD_CAP_MS
  sectionGapMs: 60 * 60_000,
  maxPowerW: 3000,
  maxSpeedMps: SPEED_CAPS_MPS.other, // a caller that knows the sport passes its cap
  maxAccelerationMps2: 3,
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
 * Canonical speed, m/s per bin, into `out` (grid.length), §1.3:
 * - The device's speed channel when the series has one ("FIT `enhanced_speed`, else `speed`": the decoder
 *   already chose), i.e. `speed` holds a value above 0 somewhere (a channel that never leaves 0, as in
 *   fit-file-parser/snorkeling-unknown-sport.fit while its distance grows, measured nothing). A missing,
 *   negative or above-cap value is 0; the held signal is binned like power.
 * - Otherwise the cumulative distance (at least two values), made monotone with a running max (missing
 *   values skipped): for consecutive samples i < j that carry distance and lie at most holdCapMs apart,
 *   every sample in [i, j) gets (D_j − D_i) / (t_j − t_i), so a window's mean speed is its distance
 *   difference over its duration; every other sample's speed is unknown and counts as 0. Held and
 *   binned, then GPS spikes are removed (removeSpikes): a bin above the cap, or a fully known bin more
 *   than maxAccelerationMps2 × 1 s from the median of the ±SPIKE_NEIGHBOURS s around it, takes that median.
 * - Neither: 0. Unheld time is 0. Every value is rounded to 1e-9 m/s.
 * Allocates one per-sample array and, for distance, two per-bin arrays.
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
  const perSample = new Float64Array(n);
  const fromChannel = speed !== null && hasMotion(speed);
  const fromDistance = !fromChannel && distance !== null;
  if (fromChannel) {
    for (let i = 0; i < n; i++) {
      const v = speed[i]!;
      perSample[i] = v > 0 && v <= maxSpeedMps ? v : 0;
    }
  } else if (fromDistance) {
    perSample.fill(Number.NaN); // unknown until a distance pair says
    // "mean speed over a window = distance difference / duration" wherever consecutive distance-bearing
    // samples are at most the hold cap apart. With fewer than two distance values no pair exists.
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
        for (let k = previous; k < j; k++) perSample[k] = derived;
      }
      previous = j;
      previousMs = t;
      previousM = runningMaxM;
    }
  }
  out.fill(0);
  if (fromDistance) {
    // An unknown speed counts as 0 (held nothing); `known` says which time a derived speed held.
    const known = new Float64Array(grid.length);
    spreadHolds(timestamps, perSample, grid.sectionStarts, grid.sectionAnchors, options, false, false, out, known);
    removeSpikes(out, known, grid.sectionStarts, options, Float64Array.from(out));
  } else {
    spreadHolds(timestamps, perSample, grid.sectionStarts, grid.sectionAnchors, options, true, false, out, null);
  }
  for (let k = 0; k < out.length; k++) out[k] = roundSpeed(out[k]!);
}

/** True when the channel holds a speed above 0 somewhere: the series has a speed channel (§1.3). */
export function hasMotion(speed: Float64Array): boolean {
  for (let i = 0; i < speed.length; i++) if (speed[i]! > 0) return true;
  return false;
}

/** A speed rounded to 1e-9 m/s. */
export function roundSpeed(mps: number): number {
  return Math.round(mps * SPEED_STEPS_PER_MPS) / SPEED_STEPS_PER_MPS;
}

/**
 * GPS spikes of distance-derived speed (§1.3), in place; `original` is a copy of `values` the filter reads,
 * so the result does not depend on the order bins are visited. `known[k]`: seconds of bin k held by
 * samples with a derived speed (a sample without a distance pair, before a pause or at the end, holds an
 * unknown speed that counts as 0 but is no evidence). Bin k's window is symmetric: radius r =
 * min(SPIKE_NEIGHBOURS, bins to its section's first, bins to its section's last), so an edge (a stop, a
 * start) is judged by as much data before as after it. The window's values: its fully known bins at most
 * the cap. Their median (a Hampel filter; the mean of the middle two for an even count) replaces a bin
 * above the cap (0 when the window has none), and a fully known bin, among at least three values, more
 * than maxAccelerationMps2 × 1 s from it: it left its neighbours' range and came back faster than an
 * athlete accelerates. A partly known bin (beside a pause) is only held to the cap: its lower mean is the
 * pause, not GPS.
 */
function removeSpikes(values: Float64Array, known: Float64Array, sectionStarts: Int32Array, options: CanonicalOptions, original: Float64Array): void {
  const { maxSpeedMps, maxAccelerationMps2 } = options;
  const window = new Float64Array(2 * SPIKE_NEIGHBOURS + 1);
  for (let s = 0; s + 1 < sectionStarts.length; s++) {
    const first = sectionStarts[s]!;
    const last = sectionStarts[s + 1]! - 1;
    for (let k = first; k <= last; k++) {
      const v = original[k]!;
      const full = known[k]! >= FULLY_KNOWN_S;
      if (v <= maxSpeedMps && !full) continue;
      let radius = SPIKE_NEIGHBOURS;
      if (k - first < radius) radius = k - first;
      if (last - k < radius) radius = last - k;
      let count = 0;
      for (let j = k - radius; j <= k + radius; j++) {
        const w = original[j]!;
        if (known[j]! < FULLY_KNOWN_S || w > maxSpeedMps) continue;
        let at = count++; // insertion into the sorted window
        while (at > 0 && window[at - 1]! > w) {
          window[at] = window[at - 1]!;
          at--;
        }
        window[at] = w;
      }
      const median = count === 0 ? 0 : (count & 1) === 1 ? window[count >> 1]! : (window[(count >> 1) - 1]! + window[count >> 1]!) / 2;
      if (v > maxSpeedMps) values[k] = median;
      else if (count >= 3 && (v - median > maxAccelerationMps2 || median - v > maxAccelerationMps2)) values[k] = median;
    }
  }
}

/** A bin held for this many seconds by samples with a derived speed is fully known (sums of ms / 1000). */
export const FULLY_KNOWN_S = 1 - 1e-9;

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
  if (!(options.maxAccelerationMps2 > 0)) throw new RangeError(`canonical: maxAccelerationMps2 must be a number > 0, got ${options.maxAccelerationMps2}`);
}

function checkShapes(timestamps: Float64Array, values: Float64Array, grid: CanonicalGrid, out: Float64Array, weights: Float64Array | null): void {
  if (values.length !== timestamps.length) throw new RangeError(`canonical: ${values.length} values for ${timestamps.length} timestamps`);
  if (out.length !== grid.length) throw new RangeError(`canonical: output has ${out.length} bins, the grid ${grid.length}`);
  if (weights !== null && weights.length !== grid.length) throw new RangeError(`canonical: weights have ${weights.length} bins, the grid ${grid.length}`);
}
