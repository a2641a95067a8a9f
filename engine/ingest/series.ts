/**
 * The canonical recorded series every decoder produces: one row per recorded sample, UTC epoch
 * milliseconds plus one column per metric, in the interface's units, NaN where a row has no value.
 * Arrow encoding (arrow.ts) turns NaN into null.
 */

/**
 * Interface metrics that are numeric per-sample series, in column order. Units: power W, speed m/s,
 * heart_rate bpm, cadence rpm (spm when running), altitude and elevation m, distance m (cumulative),
 * latitude and longitude degrees, temperature and core_temperature °C, smo2 %, respiration_rate
 * breaths/min.
 */
export const SERIES_METRICS = [
  'power', 'speed', 'heart_rate', 'cadence', 'altitude', 'elevation', 'distance', 'latitude', 'longitude',
  'temperature', 'core_temperature', 'smo2', 'respiration_rate',
] as const;

export type SeriesMetric = (typeof SERIES_METRICS)[number];

/** Interface metrics that are not per-sample numeric series (`duration` is derived from timestamps). */
export const NON_SERIES_METRICS = ['duration', 'lap', 'lactate', 'rpe', 'notes'] as const;

export interface MetricColumn {
  name: SeriesMetric;
  /** One value per row; NaN = no value. */
  values: Float64Array;
}

export interface RecordedSeries {
  /** UTC epoch milliseconds, strictly increasing. */
  timestamps: Float64Array;
  /** Present metrics in SERIES_METRICS order, each as long as `timestamps`. */
  metrics: MetricColumn[];
}
