/**
 * The metabolic map's modelled relations (ANALYTICS.md §7), pure scalar functions. Units: power W, body
 * mass kg, VO2 mL/kg/min, speed m/s, durations s.
 *
 * Cycling (power): VO2max ≈ 16.6 + 8.87 × best 5-min W/kg; the ACSM leg-cycling equation
 * VO2 (mL/min) = 10.8·W + 7·BM turned round gives MAP = (VO2max·BM − 7·BM)/10.8 and the power at any
 * fraction of VO2max (fatmax and first_threshold "modeled as FatMax" at 64 %).
 *
 * Running (speed): Daniels & Gilbert (1979, "Oxygen Power"): the VO2 cost of running at v m/min,
 * VO2 = −4.60 + 0.182258·v + 0.000104·v², solved for v, gives the speed at VO2max (max_aerobic_speed)
 * and at 64 % of it. ANALYTICS.md does not say where a runner's VO2max comes from; we use the VDOT of the
 * best effort: a best of duration t (min) at speed v is run at 0.8 + 0.1894393·e^(−0.012778·t) +
 * 0.2989558·e^(−0.1932605·t) of VO2max, so VO2max = VO2(v) / that fraction, taking the highest over the
 * best efforts lasting VDOT_MIN_SECONDS–VDOT_MAX_SECONDS (the race range the formula was fitted on,
 * 1500 m to the marathon, trimmed to what a 90-day mean-max curve holds reliably).
 *
 * second_threshold ("modeled as MLSS"): 0.94 × CP, 0.93 × CS. Rounding lives in model-rounding.ts.
 * test/engine/kernels/metabolic-relations.test.ts checks each against hand-computed values.
 */

/** Fraction of VO2max at which fatmax and first_threshold are modelled. */
export const FATMAX_FRACTION = 0.64;

/** VO2max (mL/kg/min) ≈ 16.6 + 8.87 × best 5-min power per kg. */
export function cyclingVo2max(best5MinWatts: number, bodyMassKg: number): number {
  return 16.6 + (8.87 * best5MinWatts) / positive(bodyMassKg, 'body mass');
}

/** The power (W) at which the ACSM cycling equation reaches `fraction` of VO2max: (f·VO2max·BM − 7·BM)/10.8; MAP at f = 1. */
export function cyclingPowerAt(vo2max: number, bodyMassKg: number, fraction = 1): number {
  const bm = positive(bodyMassKg, 'body mass');
  return (fraction * vo2max * bm - 7 * bm) / 10.8;
}

/** second_threshold, power: 0.94 × CP. */
export function secondThresholdPower(criticalPower: number): number {
  return 0.94 * criticalPower;
}

/** second_threshold, speed: 0.93 × CS. */
export function secondThresholdSpeed(criticalSpeed: number): number {
  return 0.93 * criticalSpeed;
}

/** Daniels–Gilbert VO2 cost (mL/kg/min) of running at `speed` m/s. */
export function runningVo2Cost(speed: number): number {
  const v = speed * 60; // m/min
  return -4.6 + 0.182258 * v + 0.000104 * v * v;
}

/** The speed (m/s) whose Daniels–Gilbert cost is `vo2` mL/kg/min: the positive root of 0.000104·v² + 0.182258·v − (4.60 + vo2) = 0. */
export function runningSpeedAt(vo2: number): number {
  const a = 0.000104;
  const b = 0.182258;
  const c = -(4.6 + vo2);
  return (-b + Math.sqrt(b * b - 4 * a * c)) / (2 * a) / 60;
}

/** Daniels–Gilbert: the fraction of VO2max sustained for a race of `seconds`. */
export function vdotFraction(seconds: number): number {
  const minutes = seconds / 60;
  return 0.8 + 0.1894393 * Math.exp(-0.012778 * minutes) + 0.2989558 * Math.exp(-0.1932605 * minutes);
}

/** VDOT (mL/kg/min) of a best of `seconds` at `speed` m/s. */
export function vdot(seconds: number, speed: number): number {
  return runningVo2Cost(speed) / vdotFraction(seconds);
}

/** The durations (s) of best efforts a runner's VO2max is read from: 5 to 60 minutes. */
export const VDOT_MIN_SECONDS = 300;
export const VDOT_MAX_SECONDS = 3600;

/** A runner's VO2max: the highest VDOT over the best efforts (durations s, speeds m/s) lasting 5–60 min; NaN when none does. */
export function runningVo2max(durations: ArrayLike<number>, speeds: ArrayLike<number>): number {
  let best = Number.NaN;
  for (let i = 0; i < durations.length; i++) {
    const t = durations[i]!;
    const v = speeds[i]!;
    if (t < VDOT_MIN_SECONDS || t > VDOT_MAX_SECONDS || !(v > 0)) continue;
    const value = vdot(t, v);
    if (!(value <= best)) best = value;
  }
  return best;
}

function positive(value: number, what: string): number {
  if (!(value > 0)) throw new RangeError(`metabolic relations: ${what} must be positive, got ${value}`);
  return value;
}
