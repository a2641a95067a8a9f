/**
 * Reference twin of ../canonical.ts, for tests only: the same rules (ANALYTICS.md §1) written the slow,
 * direct way. Sections are lists of sample indices; every sample's hold interval is written out once;
 * every bin then sums the overlaps of the holds that intersect it (found by binary search on the hold
 * ends, which rise because holds never overlap), in sample order. The fast kernel walks samples instead of
 * bins but adds each bin's terms in the same order with the same expression, so results are bit-identical.
 */
import { CANONICAL_DEFAULTS, FULLY_KNOWN_S, SPEED_STEPS_PER_MPS, SPIKE_NEIGHBOURS, type CanonicalGrid, type CanonicalOptions } from '../canonical.js';

interface Section {
  /** First and last sample index, inclusive. */
  first: number;
  last: number;
  /** UTC epoch ms of the first bin. */
  anchorMs: number;
  bins: number;
}

/** Where each sample's hold ends, ms: the next sample or the cap, whichever is first; the last: 1 s (≤ cap). */
function holdEnds(timestamps: Float64Array, options: CanonicalOptions): number[] {
  const ends: number[] = [];
  for (let i = 0; i < timestamps.length; i++) {
    const t = timestamps[i]!;
    if (i === timestamps.length - 1) ends.push(t + Math.min(1000, options.holdCapMs));
    else ends.push(Math.min(timestamps[i + 1]!, t + options.holdCapMs));
  }
  return ends;
}

function sectionsOf(timestamps: Float64Array, options: CanonicalOptions): Section[] {
  const ends = holdEnds(timestamps, options);
  const sections: Section[] = [];
  let first = 0;
  for (let i = 0; i < timestamps.length; i++) {
    const splitsAfter = i === timestamps.length - 1 || timestamps[i + 1]! - timestamps[i]! > options.sectionGapMs;
    if (!splitsAfter) continue;
    const anchorMs = Math.floor(timestamps[first]! / 1000) * 1000;
    sections.push({ first, last: i, anchorMs, bins: Math.ceil((ends[i]! - anchorMs) / 1000) });
    first = i + 1;
  }
  return sections;
}

function overlapMs(fromA: number, toA: number, fromB: number, toB: number): number {
  return Math.max(0, Math.min(toA, toB) - Math.max(fromA, fromB));
}

/** Sample indices of `section` whose holds overlap [fromMs, toMs), in order. */
function samplesHolding(timestamps: Float64Array, ends: number[], section: Section, fromMs: number, toMs: number): number[] {
  let low = section.first;
  let high = section.last + 1;
  while (low < high) {
    const mid = Math.floor((low + high) / 2);
    if (ends[mid]! <= fromMs) low = mid + 1;
    else high = mid;
  }
  const found: number[] = [];
  for (let i = low; i <= section.last && timestamps[i]! < toMs; i++) found.push(i);
  return found;
}

/** For every bin of every section, in order: (bin index, [sample, overlap ms] pairs in sample order). */
function eachBin(
  timestamps: Float64Array, options: CanonicalOptions, visit: (bin: number, holds: [number, number][]) => void,
): void {
  const ends = holdEnds(timestamps, options);
  let bin = 0;
  for (const section of sectionsOf(timestamps, options)) {
    for (let k = 0; k < section.bins; k++, bin++) {
      const fromMs = section.anchorMs + k * 1000;
      const toMs = fromMs + 1000;
      const holds = samplesHolding(timestamps, ends, section, fromMs, toMs)
        .map((i): [number, number] => [i, overlapMs(timestamps[i]!, ends[i]!, fromMs, toMs)]);
      visit(bin, holds);
    }
  }
}

export function canonicalGrid(timestamps: Float64Array, options: CanonicalOptions = CANONICAL_DEFAULTS): CanonicalGrid {
  const sections = sectionsOf(timestamps, options);
  const sectionStarts: number[] = [0];
  for (const section of sections) sectionStarts.push(sectionStarts[sectionStarts.length - 1]! + section.bins);
  const length = sectionStarts[sectionStarts.length - 1]!;
  const coverage = new Float64Array(length);
  eachBin(timestamps, options, (bin, holds) => {
    for (const [, ms] of holds) coverage[bin] += ms;
  });
  return {
    length,
    sectionStarts: Int32Array.from(sectionStarts),
    sectionAnchors: Float64Array.from(sections.map((section) => section.anchorMs)),
    coverage,
  };
}

export function heldIntegrals(
  timestamps: Float64Array, values: Float64Array, grid: CanonicalGrid, options: CanonicalOptions, missingAsZero: boolean,
  sums: Float64Array, weights: Float64Array | null,
): void {
  sums.fill(0);
  weights?.fill(0);
  eachBin(timestamps, options, (bin, holds) => {
    if (bin >= grid.length) throw new Error(`reference canonical: bin ${bin} beyond the grid (${grid.length})`);
    let sum = 0;
    let weight = 0;
    for (const [i, ms] of holds) {
      const missing = Number.isNaN(values[i]!);
      if (missing && !missingAsZero) continue;
      const value = missing ? 0 : values[i]!;
      sum += value * (ms / 1000);
      weight += ms / 1000;
    }
    sums[bin] = sum;
    if (weights) weights[bin] = weight;
  });
}

export function canonicalPower(timestamps: Float64Array, power: Float64Array, grid: CanonicalGrid, options: CanonicalOptions, out: Float64Array): void {
  const cleaned = Float64Array.from(power, (watts) => (Number.isNaN(watts) || watts < 0 || watts > options.maxPowerW ? 0 : watts));
  heldIntegrals(timestamps, cleaned, grid, options, true, out, null);
}

export function canonicalSpeed(
  timestamps: Float64Array, speed: Float64Array | null, distance: Float64Array | null, grid: CanonicalGrid, options: CanonicalOptions,
  out: Float64Array,
): void {
  const n = timestamps.length;
  const perSample = new Float64Array(n);
  // The device's channel when it ever reads above 0.
  const fromChannel = speed !== null && speed.some((value) => value > 0);
  if (fromChannel) {
    for (let i = 0; i < n; i++) {
      const value = speed[i]!;
      perSample[i] = Number.isNaN(value) || value <= 0 || value > options.maxSpeedMps ? 0 : value;
    }
  } else if (distance !== null) {
    const hasDistance = (i: number): boolean => !Number.isNaN(distance[i]!);
    // Monotone distance: the largest value recorded so far.
    const monotone: number[] = [];
    for (let i = 0; i < n; i++) {
      const before = i === 0 ? -Infinity : monotone[i - 1]!;
      monotone.push(hasDistance(i) ? Math.max(before, distance[i]!) : before);
    }
    for (let k = 0; k < n; k++) {
      let i = k; // the last sample at or before k with a distance
      while (i >= 0 && !hasDistance(i)) i--;
      let j = k + 1; // the first sample after k with a distance
      while (j < n && !hasDistance(j)) j++;
      const bridged = i >= 0 && j < n && timestamps[j]! - timestamps[i]! <= options.holdCapMs;
      perSample[k] = bridged ? ((monotone[j]! - monotone[i]!) / (timestamps[j]! - timestamps[i]!)) * 1000 : NaN; // NaN: unknown
    }
  }
  if (fromChannel || distance === null) {
    heldIntegrals(timestamps, perSample, grid, options, true, out, null);
  } else {
    const known = new Float64Array(grid.length);
    heldIntegrals(timestamps, perSample, grid, options, false, out, known);
    const original = Array.from(out);
    const full = (bin: number) => known[bin]! >= FULLY_KNOWN_S;
    for (let s = 0; s + 1 < grid.sectionStarts.length; s++) {
      const first = grid.sectionStarts[s]!;
      const end = grid.sectionStarts[s + 1]!;
      for (let k = first; k < end; k++) {
        const radius = Math.min(SPIKE_NEIGHBOURS, k - first, end - 1 - k);
        const window: number[] = [];
        for (let j = k - radius; j <= k + radius; j++) {
          if (full(j) && original[j]! <= options.maxSpeedMps) window.push(original[j]!);
        }
        window.sort((x, y) => x - y);
        const half = Math.floor(window.length / 2);
        const median = window.length === 0 ? 0 : window.length % 2 === 1 ? window[half]! : (window[half - 1]! + window[half]!) / 2;
        const value = original[k]!;
        const aboveCap = value > options.maxSpeedMps;
        const outAndBack = full(k) && window.length >= 3 && Math.abs(value - median) > options.maxAccelerationMps2;
        if (aboveCap || outAndBack) out[k] = median;
      }
    }
  }
  for (let k = 0; k < out.length; k++) out[k] = Math.round(out[k]! * SPEED_STEPS_PER_MPS) / SPEED_STEPS_PER_MPS;
}
