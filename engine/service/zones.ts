/**
 * The GetZones RPC (engine.proto "Models"; ANALYTICS.md §8 "Zones use the markers valid on the requested
 * date"): for each marker the zone system reads (models/zones.ts `zoneMarkers`), the winner on `date`
 * (models/marker-precedence.ts `resolveMarker`) among
 * - the written markers (collection `markers`: declared and external) of the user and root sport,
 * - the values tests measured (model-inputs.ts `markersOn`, as the metabolic map reads them, derived LT1/LT2
 *   included),
 * - the modeled value from the `modeledMarkers` hook (service/modeled-markers.ts; the metabolic map's modeled
 *   values in the running engine), asked only when a marker
 *   has no fresh measured or declared value, since such a value beats the model anyway;
 * then models/zones.ts `trainingZones`. first_threshold and second_threshold count in the requested
 * quantity's metric, heart_rate_max as a heart rate. A problem (unsupported quantity, missing or
 * inconsistent markers) is an answer, not an RPC error.
 *
 * Main thread, as LactateThresholds; the modeled values come from the map's cached state.
 * test/engine/zones-rpc.test.ts (the hook, precedence) and test/gateway/zones.test.ts (HTTP) keep it honest.
 */
import { status } from '@grpc/grpc-js';
import { canonicalSport, rootSport } from '../../domain/sport.js';
import type { Store } from '../../storage/store.js';
import { EngineError, type CallContext } from '../errors.js';
import { ZONE_QUANTITY_NAMES, ZONE_SYSTEM_NAMES, type GetZonesResponse } from '../contract.js';
import { isFresh, resolveMarker, type MarkerCandidate } from '../models/marker-precedence.js';
import { trainingZones, zoneMarkers, type ZoneMarker, type ZoneQuantity } from '../models/zones.js';
import type { ModeledMarkers } from './modeled-markers.js';
import { markersOn } from './model-inputs.js';
import { requireDate, requireField, requireOneOf } from './request-fields.js';

/**
 * The algorithm version every answer names (the `Threshold-Algorithm` header); bump it when results change.
 * 2: bounds from the markers as the map publishes them (rounded, modeled ones in physiological order).
 */
export const ZONES_ALGORITHM = 'zones/2';

const SUBSYSTEM = 'zones';

interface WireRequest {
  user_id?: string;
  sport?: string;
  quantity?: string;
  zone_system?: string;
  date?: string;
}

/** A stored value of one marker in one metric. */
interface Candidate extends MarkerCandidate {
  marker: string;
  metric: string;
}

export function getZones(deps: { store: Store; modeledMarkers: ModeledMarkers }) {
  return async function getZonesCall(request: WireRequest, context: CallContext): Promise<GetZonesResponse> {
    const userId = requireField(request.user_id, 'user_id', SUBSYSTEM);
    const sport = requireRootSport(request.sport);
    const quantity = requireOneOf(request.quantity, ZONE_QUANTITY_NAMES, 'quantity', SUBSYSTEM);
    const system = requireOneOf(request.zone_system, ZONE_SYSTEM_NAMES, 'zone_system', SUBSYSTEM);
    const date = requireDate(request.date, 'date', SUBSYSTEM);

    const needed = zoneMarkers(system, quantity) ?? [];
    const candidates = needed.length === 0 ? [] : await storedCandidates(deps.store, userId, sport, needed, date);
    const of = (marker: ZoneMarker): Candidate[] => candidates.filter((c) => c.marker === marker && c.metric === metricOf(marker, quantity));
    const needsModel = needed.some((marker) => !of(marker).some((c) => c.provenance !== 'external' && c.date <= date && isFresh(c, date)));
    const modeled = needsModel ? await deps.modeledMarkers({ userId, sport, quantity, date }, context.signal) : {};

    const values: Partial<Record<ZoneMarker, number | null>> = {};
    for (const marker of needed) values[marker] = resolveMarker({ candidates: of(marker), modeled: modeled[marker] ?? null, date })?.value ?? null;
    const result = trainingZones({ system, quantity, markers: values });
    if (result.ok) return { zones: result.zones, problem: null, algorithm: ZONES_ALGORITHM };
    const markers = result.code === 'missing_marker' ? result.markers : [];
    return { zones: [], problem: { code: result.code, detail: result.detail, markers }, algorithm: ZONES_ALGORITHM };
  };
}

/** The metric a marker counts in: heart_rate_max is a heart rate, the others are read in the quantity. */
function metricOf(marker: ZoneMarker, quantity: ZoneQuantity): string {
  return marker === 'heart_rate_max' ? 'heart_rate' : quantity;
}

/**
 * The written and measured values of `markers` for the user's root sport, none dated after `date`: the same
 * reading as the metabolic map's (model-inputs.ts `markersOn`: tests' results, derived LT1/LT2 included).
 */
async function storedCandidates(store: Store, userId: string, sport: string, markers: ZoneMarker[], date: string): Promise<Candidate[]> {
  const wanted = new Set<string>(markers);
  return (await markersOn(store, userId, sport, date)).filter((row) => wanted.has(row.marker));
}

function requireRootSport(value: string | undefined): string {
  const sport = canonicalSport(value ?? '');
  if (sport === null || rootSport(sport) !== sport) {
    throw new EngineError(status.INVALID_ARGUMENT, `${SUBSYSTEM}: sport must be a root sport (cycling, running, …), not '${value ?? ''}'`);
  }
  return sport;
}
