/**
 * Zone tables computed by hand (ANALYTICS.md §8), one per system and quantity: the markers and the zones
 * they give, as `[name, label, lower, upper]` rows. test/engine/models/zones.test.ts holds the pure model to
 * them; test/gateway/zones.test.ts holds the endpoint to the same tables from declared markers.
 */
import type { ZoneMarker, ZoneQuantity, ZoneSystem } from '../../engine/models/zones.js';

/** `[name, label, lower, upper]`, as a table reads. */
export type ZoneRow = [string, string, number, number | null];

export interface ZoneTable {
  system: ZoneSystem;
  quantity: ZoneQuantity;
  markers: Partial<Record<ZoneMarker, number>>;
  rows: ZoneRow[];
}

export const ZONE_TABLES = {
  // 137.5 → 138, 187.5 → 188, 225, 262.5 → 263, 300, 375.
  sevenZonePower: {
    system: 'seven_zone', quantity: 'power', markers: { second_threshold: 250 },
    rows: [
      ['Z1', 'Active recovery', 0, 138],
      ['Z2', 'Endurance', 138, 188],
      ['Z3', 'Tempo', 188, 225],
      ['Z4', 'Lactate threshold', 225, 263],
      ['Z5', 'VO2max', 263, 300],
      ['Z6', 'Anaerobic capacity', 300, 375],
      ['Z7', 'Neuromuscular power', 375, null],
    ],
  },
  // 2.2825 → 2.28, 3.1125 → 3.11, 3.735 → 3.74, 4.3575 → 4.36, 4.98, 6.225 → 6.23.
  sevenZoneSpeed: {
    system: 'seven_zone', quantity: 'speed', markers: { second_threshold: 4.15 },
    rows: [
      ['Z1', 'Active recovery', 0, 2.28],
      ['Z2', 'Endurance', 2.28, 3.11],
      ['Z3', 'Tempo', 3.11, 3.74],
      ['Z4', 'Lactate threshold', 3.74, 4.36],
      ['Z5', 'VO2max', 4.36, 4.98],
      ['Z6', 'Anaerobic capacity', 4.98, 6.23],
      ['Z7', 'Neuromuscular power', 6.23, null],
    ],
  },
  threeZonePower: {
    system: 'three_zone', quantity: 'power', markers: { first_threshold: 200, second_threshold: 280, max_aerobic_power: 350 },
    rows: [
      ['Z1', 'Low intensity', 0, 200],
      ['Z2', 'Threshold', 200, 280],
      ['Z3', 'High intensity', 280, 350],
    ],
  },
  threeZoneSpeed: {
    system: 'three_zone', quantity: 'speed', markers: { first_threshold: 3.456, second_threshold: 4.104, max_aerobic_speed: 5 },
    rows: [
      ['Z1', 'Low intensity', 0, 3.46],
      ['Z2', 'Threshold', 3.46, 4.1],
      ['Z3', 'High intensity', 4.1, 5],
    ],
  },
  threeZoneHeartRate: {
    system: 'three_zone', quantity: 'heart_rate', markers: { first_threshold: 142.4, second_threshold: 167.5, heart_rate_max: 190 },
    rows: [
      ['Z1', 'Low intensity', 0, 142],
      ['Z2', 'Threshold', 142, 168],
      ['Z3', 'High intensity', 168, 190],
    ],
  },
  // 196, 204, 274.4 → 274, 285.6 → 286, 350.
  fiveZonePower: {
    system: 'five_zone', quantity: 'power', markers: { first_threshold: 200, second_threshold: 280, max_aerobic_power: 350 },
    rows: [
      ['Z1', 'Below first threshold', 0, 196],
      ['Z2', 'First threshold', 196, 204],
      ['Z3', 'Between thresholds', 204, 274],
      ['Z4', 'Second threshold', 274, 286],
      ['Z5', 'Above second threshold', 286, 350],
    ],
  },
  // 3.136 → 3.14, 3.264 → 3.26, 3.92, 4.08, 4.8.
  fiveZoneSpeed: {
    system: 'five_zone', quantity: 'speed', markers: { first_threshold: 3.2, second_threshold: 4, max_aerobic_speed: 4.8 },
    rows: [
      ['Z1', 'Below first threshold', 0, 3.14],
      ['Z2', 'First threshold', 3.14, 3.26],
      ['Z3', 'Between thresholds', 3.26, 3.92],
      ['Z4', 'Second threshold', 3.92, 4.08],
      ['Z5', 'Above second threshold', 4.08, 4.8],
    ],
  },
  // 147, 153, 168.56 → 169, 175.44 → 175, 192.
  fiveZoneHeartRate: {
    system: 'five_zone', quantity: 'heart_rate', markers: { first_threshold: 150, second_threshold: 172, heart_rate_max: 192 },
    rows: [
      ['Z1', 'Below first threshold', 0, 147],
      ['Z2', 'First threshold', 147, 153],
      ['Z3', 'Between thresholds', 153, 169],
      ['Z4', 'Second threshold', 169, 175],
      ['Z5', 'Above second threshold', 175, 192],
    ],
  },
  // 104.5 → 105, 136.8 → 137, 155.8 → 156, 165.3 → 165, 174.8 → 175, 190.
  oltIScale: {
    system: 'olt_i_scale', quantity: 'heart_rate', markers: { heart_rate_max: 190 },
    rows: [
      ['I-1', 'Low intensity', 105, 137],
      ['I-2', 'Moderate intensity', 137, 156],
      ['I-3', 'High aerobic intensity', 156, 165],
      ['I-4', 'Threshold intensity', 165, 175],
      ['I-5', 'Maximal aerobic intensity', 175, 190],
    ],
  },
} satisfies Record<string, ZoneTable>;
