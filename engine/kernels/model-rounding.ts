/**
 * Rounding of the physiological models' outputs (ANALYTICS.md §7, interface §2): "power whole W, w_prime
 * kJ to 1 decimal, speed m/s to 2 decimals, d_prime whole metres". Halves round up; the 1e-9 nudge makes
 * a decimal half that binary floating point stores just below it (2.345 · 100 = 234.49999999999997)
 * round as written. Inputs are SI: W, J, m/s, m. test/engine/kernels/metabolic-relations.test.ts.
 */

/** W → whole W. */
export function roundPower(watts: number): number {
  return Math.round(watts + 1e-9);
}

/** m/s → m/s to 2 decimals. */
export function roundSpeed(metresPerSecond: number): number {
  return Math.round(metresPerSecond * 100 + 1e-9) / 100;
}

/** W′ in J → kJ to 1 decimal. */
export function roundWPrime(joules: number): number {
  return Math.round(joules / 100 + 1e-9) / 10;
}

/** D′ in m → whole m. */
export function roundDPrime(metres: number): number {
  return Math.round(metres + 1e-9);
}

/** A marker's value rounded by its kind: 'power' W, 'speed' m/s, 'w_prime' J → kJ, 'd_prime' m. */
export type MarkerUnit = 'power' | 'speed' | 'w_prime' | 'd_prime';

export function roundMarker(unit: MarkerUnit, value: number): number {
  switch (unit) {
    case 'power': return roundPower(value);
    case 'speed': return roundSpeed(value);
    case 'w_prime': return roundWPrime(value);
    case 'd_prime': return roundDPrime(value);
  }
}
