/**
 * A metabolic map as the interface publishes it (§2 "Metabolic map"): `{inputs: {body_mass}, markers: {name:
 * null | {value, provenance}}}` from the engine's answer, in the engine's marker order; the heart-rate map's
 * inputs also carry `resting_hr` (whole bpm, null without a resting_hr daily; ANALYTICS.md §7). Shared by the
 * HTTP route (routes/physiological-models.ts) and `threshold model` (cli/model.ts), so both print one shape.
 */
export interface PublishedMap {
  inputs: { body_mass: number; resting_hr?: number | null };
  markers: Record<string, { value: number; provenance: string } | null>;
}

/** The engine's answer for the map of `quantity` (power, speed, heart_rate, vo2). */
export interface MapAnswer {
  body_mass: number;
  resting_hr?: number | null;
  markers: readonly { name: string; value?: number | null; provenance: string }[];
}

export function presentMetabolicMap(quantity: string, answer: MapAnswer): PublishedMap {
  const out: PublishedMap['markers'] = {};
  for (const marker of answer.markers) out[marker.name] = marker.value === null || marker.value === undefined ? null : { value: marker.value, provenance: marker.provenance };
  const inputs: PublishedMap['inputs'] = { body_mass: answer.body_mass };
  if (quantity === 'heart_rate') inputs.resting_hr = answer.resting_hr ?? null;
  return { inputs, markers: out };
}
