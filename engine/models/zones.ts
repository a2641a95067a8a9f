/**
 * Training zones from marker values (ANALYTICS.md §8; gaps "Zones": `GET /api/v1/profile/zones?sport&
 * quantity&zone_system&date`). Zones run low → high, each `{name, label, lower (inclusive), upper
 * (exclusive; null only for the open top zone of seven_zone)}`; zone i's upper is zone i+1's lower, so
 * zones never overlap and leave no gap.
 *
 * The four systems, as fractions of markers (`max` is max_aerobic_power for power, max_aerobic_speed for
 * speed, heart_rate_max for heart rate):
 * - seven_zone, power and speed: Coggan's power levels (Allen & Coggan, "Training and Racing with a Power
 *   Meter", levels 1–7), fractions 0.55, 0.75, 0.90, 1.05, 1.20, 1.50 of second_threshold (the "FTP"); the
 *   top zone is open. Heart rate is not offered: Coggan defines no heart-rate range for levels 6 and 7.
 * - three_zone, all three quantities: Seiler's model (Seiler & Kjerland 2006; Seiler 2010): below
 *   first_threshold, between the thresholds, from second_threshold up to `max`.
 * - five_zone, all three quantities: the lactate-threshold five-zone scheme "around the two thresholds" of
 *   the `lactate-thresholds` package (bart6114/lactate-thresholds, `zones.py`, `seiler_5_zones`): a band of
 *   ±2 % around each threshold is a zone of its own — [0, 0.98·LT1), [0.98·LT1, 1.02·LT1),
 *   [1.02·LT1, 0.98·LT2), [0.98·LT2, 1.02·LT2), [1.02·LT2, max). The package leaves the top open ("max");
 *   we close it at `max`, as three_zone does, since only seven_zone has an open top.
 * - olt_i_scale, heart rate only: Olympiatoppen's intensity scale I-1 … I-5 as ANALYTICS gives it: 55–72,
 *   72–82, 82–87, 87–92, 92–100 % of heart_rate_max (the Norwegian Olympic Federation's five-zone scale,
 *   shown in Seiler 2010, IJSPP 5:276–291; its published top edge varies between sources, we follow
 *   ANALYTICS). Labels are our English names for the five intensities.
 * first_threshold and second_threshold are read in the requested quantity (a marker's `metric`).
 *
 * Every marker is read as the metabolic map publishes it (rounded: power whole W, speed m/s to 2 decimals,
 * heart rate whole bpm) and every bound is that value times its fraction, rounded the same way, so a
 * client recomputes each bound from the map. When the rounded bounds are not strictly increasing — a zone would be empty or the markers
 * contradict each other (first_threshold above second_threshold, `max` below it, thresholds within ±2 % of
 * each other for five_zone, a value ≤ 0) — the answer is `inconsistent_markers`, never a broken table.
 *
 * Pure: the caller resolves each marker on the date (marker-precedence.ts) and passes the winners' values.
 * Not here: reading markers, provenance, HTTP. Kept honest by test/engine/models/zones.test.ts
 * (hand-computed tables for each system).
 */
import { roundMarker, type IntensityQuantity } from '../kernels/model-rounding.js';

export type ZoneSystem = 'three_zone' | 'five_zone' | 'seven_zone' | 'olt_i_scale';
export type ZoneQuantity = IntensityQuantity;
export type ZoneMarker = 'first_threshold' | 'second_threshold' | 'max_aerobic_power' | 'max_aerobic_speed' | 'heart_rate_max';

export const ZONE_SYSTEMS: readonly ZoneSystem[] = ['three_zone', 'five_zone', 'seven_zone', 'olt_i_scale'];

/** One zone: `lower` inclusive, `upper` exclusive (null: no upper bound). Units: W, m/s or bpm. */
export interface Zone {
  name: string;
  label: string;
  lower: number;
  upper: number | null;
}

/**
 * Zones, or why there are none: the quantity is not offered by the system (`unsupported_quantity`), a
 * marker has no value (`missing_marker`, naming every missing one), or the bounds do not increase
 * (`inconsistent_markers`). `detail` is a sentence for a problem response.
 */
export type ZonesResult =
  | { ok: true; zones: Zone[] }
  | { ok: false; code: 'unsupported_quantity'; detail: string }
  | { ok: false; code: 'missing_marker'; markers: ZoneMarker[]; detail: string }
  | { ok: false; code: 'inconsistent_markers'; detail: string };

export interface ZonesQuery {
  system: ZoneSystem;
  quantity: ZoneQuantity;
  /** The value of each marker on the date in the quantity's unit; absent or null when it has none. */
  markers: Partial<Record<ZoneMarker, number | null>>;
}

/** A bound: zero, a fraction of a marker (`max` stands for the quantity's maximum), or open. */
type Bound = 0 | readonly ['first_threshold' | 'second_threshold' | 'max', number] | null;

interface SystemDefinition {
  quantities: readonly ZoneQuantity[];
  /** One more bound than zones, low → high. */
  bounds: readonly Bound[];
  /** [name, label] per zone. */
  zones: readonly (readonly [string, string])[];
}

const MAX_MARKER: Record<ZoneQuantity, ZoneMarker> = {
  power: 'max_aerobic_power',
  speed: 'max_aerobic_speed',
  heart_rate: 'heart_rate_max',
};

const UNIT: Record<ZoneQuantity, string> = { power: 'W', speed: 'm/s', heart_rate: 'bpm' };

const SYSTEMS: Record<ZoneSystem, SystemDefinition> = {
  seven_zone: {
    quantities: ['power', 'speed'],
    bounds: [
      0, ['second_threshold', 0.55], ['second_threshold', 0.75], ['second_threshold', 0.9], ['second_threshold', 1.05],
      ['second_threshold', 1.2], ['second_threshold', 1.5], null,
    ],
    zones: [
      ['Z1', 'Active recovery'], ['Z2', 'Endurance'], ['Z3', 'Tempo'], ['Z4', 'Lactate threshold'], ['Z5', 'VO2max'],
      ['Z6', 'Anaerobic capacity'], ['Z7', 'Neuromuscular power'],
    ],
  },
  three_zone: {
    quantities: ['power', 'speed', 'heart_rate'],
    bounds: [0, ['first_threshold', 1], ['second_threshold', 1], ['max', 1]],
    zones: [['Z1', 'Low intensity'], ['Z2', 'Threshold'], ['Z3', 'High intensity']],
  },
  five_zone: {
    quantities: ['power', 'speed', 'heart_rate'],
    bounds: [
      0, ['first_threshold', 0.98], ['first_threshold', 1.02], ['second_threshold', 0.98], ['second_threshold', 1.02],
      ['max', 1],
    ],
    zones: [
      ['Z1', 'Below first threshold'], ['Z2', 'First threshold'], ['Z3', 'Between thresholds'], ['Z4', 'Second threshold'],
      ['Z5', 'Above second threshold'],
    ],
  },
  olt_i_scale: {
    quantities: ['heart_rate'],
    bounds: [['max', 0.55], ['max', 0.72], ['max', 0.82], ['max', 0.87], ['max', 0.92], ['max', 1]],
    zones: [
      ['I-1', 'Low intensity'], ['I-2', 'Moderate intensity'], ['I-3', 'High aerobic intensity'], ['I-4', 'Threshold intensity'],
      ['I-5', 'Maximal aerobic intensity'],
    ],
  },
};

/** The quantities `system` is offered for. */
export function zoneQuantities(system: ZoneSystem): readonly ZoneQuantity[] {
  return SYSTEMS[system].quantities;
}

/**
 * The markers `system` reads for `quantity`, in the order they bound the zones (so the caller resolves only
 * these), or null when the system is not offered for the quantity. heart_rate_max is always a heart rate;
 * the others are read in `quantity`.
 */
export function zoneMarkers(system: ZoneSystem, quantity: ZoneQuantity): ZoneMarker[] | null {
  const definition = SYSTEMS[system];
  if (!definition.quantities.includes(quantity)) return null;
  const markers: ZoneMarker[] = [];
  for (const bound of definition.bounds) {
    if (bound === 0 || bound === null) continue;
    const marker = markerOf(bound[0], quantity);
    if (!markers.includes(marker)) markers.push(marker);
  }
  return markers;
}

/** The zones of `system` for `quantity` from the markers' values. */
export function trainingZones({ system, quantity, markers }: ZonesQuery): ZonesResult {
  const definition = SYSTEMS[system];
  const needed = zoneMarkers(system, quantity);
  if (needed === null) {
    return {
      ok: false,
      code: 'unsupported_quantity',
      detail: `zones: ${system} is defined for ${definition.quantities.join(', ')}, not ${quantity}`,
    };
  }
  const missing = needed.filter((marker) => markers[marker] === undefined || markers[marker] === null);
  if (missing.length > 0) {
    return {
      ok: false,
      code: 'missing_marker',
      markers: missing,
      detail: `zones: ${system} ${quantity} zones need ${missing.join(' and ')}, which ${missing.length === 1 ? 'has' : 'have'} no value`,
    };
  }
  // "as the metabolic map publishes them (rounded), so a client can recompute every bound from the map":
  // each marker rounded as published first (0.98 × 226 W = 221 W, never 0.98 × 225.6), then each bound.
  const bounds = definition.bounds.map((bound) => {
    if (bound === 0 || bound === null) return bound;
    // heart_rate_max bounds only heart-rate zones: every marker here counts in `quantity`'s unit.
    const published = roundMarker(quantity, markers[markerOf(bound[0], quantity)] as number);
    return roundMarker(quantity, published * bound[1]);
  });
  for (let i = 1; i < bounds.length; i++) {
    const lower = bounds[i - 1] as number;
    const upper = bounds[i];
    if (upper !== null && !(upper > lower)) {
      const values = needed.map((marker) => `${marker} ${markers[marker]}`).join(', ');
      return {
        ok: false,
        code: 'inconsistent_markers',
        detail: `zones: ${system} ${quantity} bounds must increase, got ${bounds.map((b) => b ?? '∞').join(', ')} ${UNIT[quantity]} from ${values}`,
      };
    }
  }
  return {
    ok: true,
    zones: definition.zones.map(([name, label], i) => ({ name, label, lower: bounds[i] as number, upper: bounds[i + 1] as number | null })),
  };
}

function markerOf(symbol: 'first_threshold' | 'second_threshold' | 'max', quantity: ZoneQuantity): ZoneMarker {
  return symbol === 'max' ? MAX_MARKER[quantity] : symbol;
}
