/**
 * The metabolic map (ANALYTICS.md §7; interface §2 "Metabolic map"; gaps.md "Extra maps"): every marker of
 * the requested quantity's map, null or `{value, provenance}`, from the stored values (written and measured)
 * and the values modelled from the OmPD fit and the relations, resolved per marker by marker-precedence.ts
 * and rounded as published.
 *
 * The maps and their markers (each read from stored values of the same `metric`):
 * - power: fatmax, first_threshold, second_threshold, critical_power, max_aerobic_power, w_prime (kJ), mlss,
 *   lt1, lt2, vt1, vt2 — whole W, w_prime kJ to 1 decimal;
 * - speed: the same with critical_speed, max_aerobic_speed, d_prime (m) — m/s to 2 decimals, whole metres;
 * - heart_rate (ours): fatmax, first_threshold, second_threshold, mlss, lt1, lt2, vt1, vt2, heart_rate_max —
 *   whole bpm;
 * - vo2 (ours): the same thresholds and vo2max, absolute mL/min as every vo2 marker — whole mL/min.
 *
 * Modelled values ("mlss, lt1, lt2, vt1, vt2 are never modeled"):
 * - power/speed as §7: CP/CS and W′/D′ from the fit; max_aerobic_* from VO2max (cycling: 16.6 + 8.87 × best
 *   5-min W/kg through the ACSM equation; running: the best VDOT, the speed whose Daniels–Gilbert cost is
 *   VO2max); fatmax = first_threshold at 64 % of VO2max; second_threshold 0.94 × CP, 0.93 × CS. The power
 *   map of a runner (running power) uses the same cycling relations: ANALYTICS names no other, a limit.
 * - vo2 (ours): vo2max = VO2max × body mass; fatmax and first_threshold 64 % of it; second_threshold the
 *   VO2 at the modelled second threshold (ACSM 10.8·W + 7·BM for power, Daniels–Gilbert cost × BM for speed).
 * - heart_rate (ours): the heart rate at those VO2s by %HRR = %VO2R (Swain & Leutholtz 1997):
 *   HR = HRrest + (VO2 − 3.5)/(VO2max − 3.5) · (HRmax − HRrest), VO2 in mL/kg/min, HRmax the winning
 *   heart_rate_max (never modelled), HRrest the resting_hr daily; without either nothing is modelled.
 *
 * Order (§7 "modeled markers keep their physiological order"): fatmax ≤ first_threshold < second_threshold <
 * critical_* < max_aerobic_* (vo2: < vo2max; heart rate: < the heart_rate_max the relation used). The relations
 * can invert a pair (a runner's FatMax speed from VDOT above 0.93 CS): the modeled values are rounded as
 * published, then, from the top down, a lower marker that is not below the higher one is capped one rounding
 * step below it (fatmax at first_threshold). Only modeled values move; a measured or declared winner is the
 * athlete's own, and a contradiction with it is the zones' `inconsistent_markers`.
 *
 * Pure: the caller reads the stored values and fits the model. Kept honest by
 * test/engine/models/metabolic-map.test.ts (hand-computed values, the order rule), the seasons and corpus
 * order test (test/engine/models/marker-order.test.ts) and the end-to-end map tests.
 */
import { CP, W_PRIME } from '../kernels/ompd.js';
import {
  FATMAX_FRACTION, cyclingPowerAt, cyclingVo2max, runningSpeedAt, runningVo2Cost, secondThresholdPower, secondThresholdSpeed,
} from '../kernels/metabolic-relations.js';
import { roundDPrime, roundMarker, roundPower, roundSpeed, roundWPrime } from '../kernels/model-rounding.js';
import { resolveMarker, type MarkerCandidate, type ResolvedMarker } from './marker-precedence.js';

export type MapQuantity = 'power' | 'speed' | 'heart_rate' | 'vo2';

const THRESHOLDS = ['fatmax', 'first_threshold', 'second_threshold'] as const;
const NEVER_MODELED = ['mlss', 'lt1', 'lt2', 'vt1', 'vt2'] as const;

/** The markers of each map, in the interface's order. */
export const MAP_MARKERS: Readonly<Record<MapQuantity, readonly string[]>> = {
  power: [...THRESHOLDS, 'critical_power', 'max_aerobic_power', 'w_prime', ...NEVER_MODELED],
  speed: [...THRESHOLDS, 'critical_speed', 'max_aerobic_speed', 'd_prime', ...NEVER_MODELED],
  heart_rate: [...THRESHOLDS, ...NEVER_MODELED, 'heart_rate_max'],
  vo2: [...THRESHOLDS, ...NEVER_MODELED, 'vo2max'],
};

/** Resting VO2, mL/kg/min (1 MET): the origin of the VO2 reserve. */
const RESTING_VO2 = 3.5;

/** What the model side knows, as the fit (engine/analysis/intensity-model.ts) and the dailies give it. */
export interface MapModel {
  /** The fitted metric: power (W) or speed (m/s). */
  metric: 'power' | 'speed';
  /** OmPD parameters (CP, W′, Pmax, A), null when there was too little data to fit. */
  params: ArrayLike<number> | null;
  /** Best value held 5 minutes (W or m/s), null without one. */
  bestFiveMinutes: number | null;
  /** Speed: the best VDOT, mL/kg/min. */
  runningVo2max: number | null;
  /** kg, > 0. */
  bodyMass: number;
  /** bpm, null without a resting_hr daily. */
  restingHr: number | null;
}

/** A stored value of a marker: a MarkerRecord (or a measured row) fits as it is. */
export interface StoredMarker extends MarkerCandidate {
  marker: string;
  metric: string;
}

/**
 * Every marker of `quantity`'s map on `date`: null or `{value, provenance}`, rounded. `model` null: nothing is
 * modeled (no activity of 15 minutes in the window), the stored values answer alone.
 */
export function metabolicMap(quantity: MapQuantity, model: MapModel | null, stored: readonly StoredMarker[], date: string): Record<string, ResolvedMarker | null> {
  const candidates = new Map<string, StoredMarker[]>();
  for (const row of stored) {
    if (row.metric !== quantity) continue;
    const list = candidates.get(row.marker) ?? [];
    list.push(row);
    candidates.set(row.marker, list);
  }
  const of = (marker: string) => candidates.get(marker) ?? [];
  // heart_rate_max is never modelled: the winner of the stored values drives the heart-rate relation.
  const heartRateMax = quantity === 'heart_rate' ? resolveMarker({ candidates: of('heart_rate_max'), date })?.value ?? null : null;
  const modeled = model === null ? {} : publishedModeledValues(quantity, model, heartRateMax);
  const out: Record<string, ResolvedMarker | null> = {};
  for (const marker of MAP_MARKERS[quantity]) {
    const winner = resolveMarker({ candidates: of(marker), modeled: modeled[marker] ?? null, date });
    out[marker] = winner === null ? null : { value: rounded(quantity, marker, winner.value), provenance: winner.provenance };
  }
  return out;
}

/**
 * The modeled values as the map publishes them: rounded, in physiological order (see the header), only
 * finite values > 0. What the map weighs against the stored values, and what the zones read
 * (service/physiological-models.ts `modeledMarkersFrom`), so both see the same numbers.
 */
export function publishedModeledValues(quantity: MapQuantity, model: MapModel, heartRateMax: number | null): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [marker, value] of Object.entries(modeledValues(quantity, model, heartRateMax))) {
    if (Number.isFinite(value) && value > 0) out[marker] = rounded(quantity, marker, value);
  }
  const chain = ORDER[quantity];
  const step = quantity === 'speed' ? 0.01 : 1;
  // The ceiling: the nearest higher marker's value (heart rate: the heart_rate_max the relation used).
  let above: { marker: string; value: number } | null = quantity === 'heart_rate' && heartRateMax !== null
    ? { marker: 'heart_rate_max', value: roundMarker('heart_rate', heartRateMax) }
    : null;
  for (let i = chain.length - 1; i >= 0; i--) {
    const marker = chain[i]!;
    let value = out[marker];
    if (value === undefined) continue;
    if (above !== null) {
      // "fatmax ≤ first_threshold": equal is in order; every other pair is strict.
      const atMost = marker === 'fatmax' && above.marker === 'first_threshold';
      if (atMost ? value > above.value : value >= above.value) {
        value = atMost ? above.value : rounded(quantity, marker, above.value - step);
        if (value > 0) out[marker] = value;
        else delete out[marker];
      }
    }
    if (out[marker] !== undefined) above = { marker, value };
  }
  return out;
}

/** The modeled markers of each map, low → high ("fatmax ≤ first_threshold < second_threshold < critical_power < max_aerobic_power"). */
const ORDER: Readonly<Record<MapQuantity, readonly string[]>> = {
  power: [...THRESHOLDS, 'critical_power', 'max_aerobic_power'],
  speed: [...THRESHOLDS, 'critical_speed', 'max_aerobic_speed'],
  heart_rate: THRESHOLDS,
  vo2: [...THRESHOLDS, 'vo2max'],
};

/** The modelled values of a map, unrounded (W, m/s, bpm, mL/min; w_prime kJ, d_prime m); absent = none. */
export function modeledValues(quantity: MapQuantity, model: MapModel, heartRateMax: number | null): Record<string, number> {
  const { bodyMass, params } = model;
  const critical = params === null ? Number.NaN : params[CP]!;
  const capacity = params === null ? Number.NaN : params[W_PRIME]!;
  const power = model.metric === 'power';
  const vo2max = power
    ? (model.bestFiveMinutes === null ? Number.NaN : cyclingVo2max(model.bestFiveMinutes, bodyMass))
    : (model.runningVo2max ?? Number.NaN);
  // VO2 (mL/kg/min) at the second threshold: the ACSM equation at 0.94 CP, or the running cost at 0.93 CS.
  const secondVo2 = power
    ? (10.8 * secondThresholdPower(critical) + 7 * bodyMass) / bodyMass
    : runningVo2Cost(secondThresholdSpeed(critical));
  switch (quantity) {
    case 'power':
      return {
        critical_power: critical, w_prime: capacity / 1000, max_aerobic_power: cyclingPowerAt(vo2max, bodyMass),
        ...thresholds(cyclingPowerAt(vo2max, bodyMass, FATMAX_FRACTION), secondThresholdPower(critical)),
      };
    case 'speed':
      return {
        critical_speed: critical, d_prime: capacity, max_aerobic_speed: runningSpeedAt(vo2max),
        ...thresholds(runningSpeedAt(FATMAX_FRACTION * vo2max), secondThresholdSpeed(critical)),
      };
    case 'vo2':
      return { vo2max: vo2max * bodyMass, ...thresholds(FATMAX_FRACTION * vo2max * bodyMass, secondVo2 * bodyMass) };
    case 'heart_rate': {
      const rest = model.restingHr;
      if (heartRateMax === null || rest === null || !(heartRateMax > rest)) return {};
      const at = (vo2: number) => Math.min(heartRateMax, rest + ((vo2 - RESTING_VO2) / (vo2max - RESTING_VO2)) * (heartRateMax - rest));
      return thresholds(at(FATMAX_FRACTION * vo2max), at(secondVo2));
    }
  }
}

/** fatmax and first_threshold ("modeled as FatMax") and second_threshold ("modeled as MLSS"). */
function thresholds(fatmax: number, second: number): Record<string, number> {
  return { fatmax, first_threshold: fatmax, second_threshold: second };
}

/** "power whole W, w_prime kJ to 1 decimal, speed m/s to 2 decimals, d_prime whole metres"; bpm and mL/min whole. */
function rounded(quantity: MapQuantity, marker: string, value: number): number {
  if (marker === 'w_prime') return roundWPrime(value * 1000);
  if (marker === 'd_prime') return roundDPrime(value);
  return quantity === 'speed' ? roundSpeed(value) : roundPower(value);
}
