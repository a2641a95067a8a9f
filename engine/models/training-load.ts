/**
 * Training load, fitness and fatigue (ANALYTICS.md §10): the arithmetic that combines an activity's cached,
 * threshold-independent numbers (engine/analysis/activity-numbers.ts) with the thresholds valid on its
 * local date, and the impulse-response averages over days. Pure: no store, no clocks. Names avoid the
 * trademarked TSS/NP/IF. Kept honest by test/gateway/training-load.test.ts, which recomputes every number
 * from the raw samples in a plain reference.
 *
 * - weighted_intensity = (mean of (30 s rolling mean)⁴)^¼; intensity_factor = weighted / threshold;
 *   load = 100 × recorded hours × intensity_factor².
 * - Heart rate only: Banister's TRIMP = Σ minutes × x × e^(1.92 x), x = (HR − resting) / (max − resting)
 *   held to [0, 1] (the 1.92 of Banister 1991; the sex-specific 0.64 factor cancels in the scaling), scaled
 *   so one hour at the second threshold's heart rate is 100: load = 100 × TRIMP / (60 × x_t × e^(1.92 x_t)).
 *   Heart rates are the exact canonical values (kernels/activity-numbers.ts heartRateTime).
 * - Daily load L_d = Σ the day's loads; F_d = F_{d−1} + (L_d − F_{d−1}) / τ from 0 before the first
 *   activity, τ 42 d (fitness), 7 d (fatigue); form_d = fitness_{d−1} − fatigue_{d−1}.
 */

/** §10 time constants, days. */
export const FITNESS_DAYS = 42;
export const FATIGUE_DAYS = 7;

/** Banister's weighting exponent (1991, men's; the scaling to threshold makes the prefactor irrelevant). */
export const TRIMP_EXPONENT = 1.92;

export function weightedIntensity(sum4: number, windows: number): number {
  return Math.pow(sum4 / windows, 0.25);
}

/** intensity_factor and load of a power or speed activity. */
export function intensityLoad(recordedS: number, weighted: number, threshold: number): { intensityFactor: number; load: number } {
  const intensityFactor = weighted / threshold;
  return { intensityFactor, load: 100 * (recordedS / 3600) * intensityFactor * intensityFactor };
}

/** Banister TRIMP of the time at each heart rate (`ms` at `bpm`), unscaled. */
export function trimp(bpm: Float64Array, ms: Float64Array, restingHr: number, maxHr: number): number {
  let total = 0;
  for (let i = 0; i < bpm.length; i++) {
    if (ms[i] === 0) continue;
    total += (ms[i]! / 60_000) * trimpWeight(bpm[i]!, restingHr, maxHr);
  }
  return total;
}

/** The load of a TRIMP: 100 for one hour at the threshold heart rate. */
export function trimpLoad(value: number, restingHr: number, maxHr: number, thresholdHr: number): number {
  return (100 * value) / (60 * trimpWeight(thresholdHr, restingHr, maxHr));
}

function trimpWeight(heartRate: number, restingHr: number, maxHr: number): number {
  const reserve = Math.min(1, Math.max(0, (heartRate - restingHr) / (maxHr - restingHr)));
  return reserve * Math.exp(TRIMP_EXPONENT * reserve);
}

/**
 * Fitness, fatigue and form for consecutive days of daily load (`loads[0]` is the day after which nothing
 * came before: fitness and fatigue are 0 the day before it). Outputs are caller-owned, as long as `loads`.
 */
export function impulseResponse(loads: Float64Array, fitness: Float64Array, fatigue: Float64Array, form: Float64Array): void {
  let fit = 0;
  let tired = 0;
  for (let d = 0; d < loads.length; d++) {
    form[d] = fit - tired;
    fit += (loads[d]! - fit) / FITNESS_DAYS;
    tired += (loads[d]! - tired) / FATIGUE_DAYS;
    fitness[d] = fit;
    fatigue[d] = tired;
  }
}

/** Recorded seconds per zone [lower, upper) of the time at each exact value (`ms` at ascending `values`). */
export function exactZoneSeconds(values: Float64Array, ms: Float64Array, zones: readonly { lower: number; upper: number | null }[]): number[] {
  return zones.map(({ lower, upper }) => {
    let total = 0;
    for (let i = 0; i < values.length; i++) if (values[i]! >= lower && (upper === null || values[i]! < upper)) total += ms[i]!;
    return total / 1000;
  });
}

/** Recorded seconds per zone [lower, upper) of a histogram of ms per bin (bin b = b / resolution). */
export function zoneSeconds(histogram: Float64Array, resolution: number, zones: readonly { lower: number; upper: number | null }[]): number[] {
  return zones.map(({ lower, upper }) => {
    const from = Math.max(0, Math.round(lower * resolution));
    const to = upper === null ? histogram.length : Math.min(histogram.length, Math.round(upper * resolution));
    let ms = 0;
    for (let b = from; b < to; b++) ms += histogram[b]!;
    return ms / 1000;
  });
}
