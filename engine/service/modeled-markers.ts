/**
 * The modeled input of the zones (ANALYTICS.md §7 "Modeled values"): what the metabolic map fits from recent
 * training, per marker, in the requested quantity's unit. GetZones (service/zones.ts) asks it only when some
 * marker it reads has no fresh measured or declared value, and lets marker-precedence.ts weigh the answer
 * against the written and measured values.
 *
 * TODO(issue13-models): `noModeledMarkers` is the placeholder until branch issue13-models (the metabolic map)
 * is merged. The lead replaces it, in engine/server.ts where GetZones is registered, by a function that
 * answers the metabolic map's modeled values for (user, sport, quantity, date) — unrounded, and {} when the
 * map has none (e.g. missing_body_mass or insufficient_data: then the zones use written and measured values
 * alone). Until then no value is modeled; nothing here invents one.
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

/** TODO(issue13-models): no modeled values yet (see the header). */
export const noModeledMarkers: ModeledMarkers = async () => ({});
