/**
 * A metabolic map as the interface publishes it (§2 "Metabolic map"): `{inputs: {body_mass}, markers: {name:
 * null | {value, provenance}}}` from the engine's answer, in the engine's marker order. Shared by the HTTP
 * route (routes/physiological-models.ts) and `threshold model` (cli/model.ts), so both print one shape.
 */
export interface PublishedMap {
  inputs: { body_mass: number };
  markers: Record<string, { value: number; provenance: string } | null>;
}

export function presentMetabolicMap(bodyMass: number, markers: readonly { name: string; value?: number | null; provenance: string }[]): PublishedMap {
  const out: PublishedMap['markers'] = {};
  for (const marker of markers) out[marker.name] = marker.value === null || marker.value === undefined ? null : { value: marker.value, provenance: marker.provenance };
  return { inputs: { body_mass: bodyMass }, markers: out };
}
