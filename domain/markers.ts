/**
 * Physiological markers (gaps.md "Markers"; ANALYTICS.md §7): their names, the metric each may be
 * expressed in, and the unit checks every marker row obeys, whether written through the API or read
 * from a test's results. The one place that decides which `{marker, metric, value}` makes sense.
 *
 * Units by metric (interface §1): power W, speed m/s, heart_rate bpm, vo2 mL/min absolute. Two
 * markers are capacities rather than intensities and keep their own unit (interface §2 "Metabolic
 * map"): `w_prime` in kJ under metric `power` (the power map it belongs to), `d_prime` in metres under
 * metric `speed` (the speed map's).
 *
 * Does not decide freshness, precedence or pinning (that is the metabolic map's and the write's).
 * Kept honest by test/gateway/markers.test.ts and test/gateway/measured-markers.test.ts.
 */

export const MARKER_NAMES = [
  'heart_rate_max', 'fatmax', 'first_threshold', 'second_threshold', 'critical_power', 'critical_speed',
  'max_aerobic_power', 'max_aerobic_speed', 'w_prime', 'd_prime', 'vo2max', 'mlss', 'lt1', 'lt2', 'vt1', 'vt2',
] as const;
export type MarkerName = (typeof MARKER_NAMES)[number];

export const MARKER_METRICS = ['power', 'speed', 'vo2', 'heart_rate'] as const;
export type MarkerMetric = (typeof MARKER_METRICS)[number];

/** Thresholds are intensities at which something happens: a test reports them as power, speed, heart rate and VO2. */
const THRESHOLD: readonly MarkerMetric[] = ['power', 'speed', 'heart_rate', 'vo2'];

/** The metrics each marker admits; any other pair is nonsense (a 422 on write). */
export const ADMITTED_METRICS: Readonly<Record<MarkerName, readonly MarkerMetric[]>> = {
  heart_rate_max: ['heart_rate'],
  fatmax: THRESHOLD,
  first_threshold: THRESHOLD,
  second_threshold: THRESHOLD,
  mlss: THRESHOLD,
  lt1: THRESHOLD,
  lt2: THRESHOLD,
  vt1: THRESHOLD,
  vt2: THRESHOLD,
  critical_power: ['power'],
  max_aerobic_power: ['power'],
  w_prime: ['power'],
  critical_speed: ['speed'],
  max_aerobic_speed: ['speed'],
  d_prime: ['speed'],
  vo2max: ['vo2'],
};

/** W′ above this many kJ is a value sent in J: the model bounds W′ to 60 000 J (ANALYTICS.md §6). */
export const MAX_W_PRIME_KJ = 100;
/** Below this many mL/min a VO2 is not absolute (L/min, or mL/kg/min): resting VO2 alone is about 250 mL/min. */
export const MIN_VO2_ML_MIN = 100;

export interface MarkerProblem {
  field: 'metric' | 'value';
  message: string;
}

/** Why `{marker, metric, value}` cannot be a marker row, or null when it can. `value` must already be > 0. */
export function markerProblem(marker: MarkerName, metric: MarkerMetric, value: number): MarkerProblem | null {
  const admitted = ADMITTED_METRICS[marker];
  if (!admitted.includes(metric)) {
    return { field: 'metric', message: `${marker} takes metric ${admitted.join(' or ')}, not ${metric}` };
  }
  if (marker === 'w_prime' && value > MAX_W_PRIME_KJ) {
    return { field: 'value', message: `w_prime is in kJ: ${value} kJ is not a W′ (send ${value / 1000} for ${value} J)` };
  }
  if (metric === 'vo2' && value < MIN_VO2_ML_MIN) {
    return { field: 'value', message: `vo2 is absolute, in mL/min: ${value} is below any oxygen uptake (L/min or mL/kg/min?)` };
  }
  return null;
}

export function isMarkerName(value: string): value is MarkerName {
  return (MARKER_NAMES as readonly string[]).includes(value);
}
