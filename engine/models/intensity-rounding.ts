/**
 * How a published intensity is rounded (ANALYTICS.md §6–8; interface §2 "Metabolic map" "Rounding"): power
 * whole W, speed m/s to 2 decimals, heart rate whole bpm. Half rounds up. The scaled value is first cut to
 * 12 significant digits so binary noise does not move a half: 2.2055 m/s (stored as 2.20549999…) is 2.21,
 * as written. Kept honest by test/engine/models/zones.test.ts.
 */

export type IntensityQuantity = 'power' | 'speed' | 'heart_rate';

const DECIMALS: Record<IntensityQuantity, number> = { power: 0, speed: 2, heart_rate: 0 };

/** `value` rounded as `quantity` is published. */
export function roundIntensity(value: number, quantity: IntensityQuantity): number {
  const scale = 10 ** DECIMALS[quantity];
  return Math.round(Number((value * scale).toPrecision(12))) / scale;
}

