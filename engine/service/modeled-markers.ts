/**
 * The modeled input of the zones (ANALYTICS.md §7 "Modeled values"): what the metabolic map fits from recent
 * training, per marker, in the requested quantity's unit. GetZones (service/zones.ts) asks it only when some
 * marker it reads has no fresh measured or declared value, and lets marker-precedence.ts weigh the answer
 * against the written and measured values.
 *
 * The engine serves it from the metabolic map (service/physiological-models.ts `modeledMarkersFrom`): the
 * map's modeled values for (user, sport, quantity, date) as it publishes them (rounded, in physiological
 * order: metabolic-map.ts publishedModeledValues), and {} when the map has none
 * (missing_body_mass or insufficient_data: then the zones use written and measured values alone). Tests
 * give GetZones their own function to drive each branch of the precedence.
 */
import type { ZoneMarker, ZoneQuantity } from '../models/zones.js';

export interface ModeledMarkersQuery {
  userId: string;
  /** Root sport. */
  sport: string;
  /** The map the values come from: power (W), speed (m/s) or heart_rate (bpm). */
  quantity: ZoneQuantity;
  /** The profile date, YYYY-MM-DD (the model window is the 90 days ending on it). */
  date: string;
}

/** The modeled value of each marker the model has one for; a marker it does not model is absent. */
export type ModeledMarkers = (query: ModeledMarkersQuery, signal: AbortSignal) => Promise<Partial<Record<ZoneMarker, number>>>;

/**
 * ModeledMarkers for many dates of one (user, sport, quantity) at once: what the training load of a season
 * asks (service/training-load.ts), answered from one read of the inputs (physiological-models.ts
 * `modeledSeasonFrom`). Each date's values are exactly ModeledMarkers' for that date.
 */
export type ModeledSeason = (
  query: Omit<ModeledMarkersQuery, 'date'> & { dates: readonly string[] },
  signal: AbortSignal,
) => Promise<Map<string, Partial<Record<ZoneMarker, number>>>>;
