/**
 * How the physiological models publish a value (ANALYTICS.md §6–8; interface §2 "Metabolic map"): power
 * whole W, speed m/s to 2 decimals, heart rate whole bpm, w_prime kJ to 1 decimal, d_prime whole metres.
 * Inputs are SI: W, m/s, bpm, J, m. Halves round up; the scaled value is first cut to 12 significant digits,
 * so a decimal half that binary floating point stores just below it (1.005 · 100 = 100.49999…) rounds as
 * written. The one rounding of model outputs: zones (engine/models/zones.ts), the metabolic relations and
 * the fitted curve all use it. Kept honest by test/engine/kernels/metabolic-relations.test.ts and
 * test/engine/models/zones.test.ts.
 */

/** A published quantity: intensities (power, speed, heart_rate) and the two work capacities. */
export type MarkerUnit = 'power' | 'speed' | 'heart_rate' | 'w_prime' | 'd_prime';

/** The intensities zones are drawn in. */
export type IntensityQuantity = 'power' | 'speed' | 'heart_rate';

function roundHalfUp(value: number, decimals: number): number {
  const scale = 10 ** decimals;
  return Math.round(Number((value * scale).toPrecision(12))) / scale;
}

/** W → whole W. */
export function roundPower(watts: number): number {
  return roundHalfUp(watts, 0);
}

/** m/s → m/s to 2 decimals. */
export function roundSpeed(metresPerSecond: number): number {
  return roundHalfUp(metresPerSecond, 2);
}

/** W′ in J → kJ to 1 decimal. */
export function roundWPrime(joules: number): number {
  return roundHalfUp(joules / 1000, 1);
}

/** D′ in m → whole m. */
export function roundDPrime(metres: number): number {
  return roundHalfUp(metres, 0);
}

/** A value rounded as its unit is published. */
export function roundMarker(unit: MarkerUnit, value: number): number {
  switch (unit) {
    case 'power': return roundPower(value);
    case 'speed': return roundSpeed(value);
    case 'heart_rate': return roundHalfUp(value, 0);
    case 'w_prime': return roundWPrime(value);
    case 'd_prime': return roundDPrime(value);
  }
}
