/**
 * The physiological-model RPCs (engine.proto "Physiological models"): GetIntensityDurationModel and
 * GetMetabolicMap. Thin: validate; read the input watermark; look the (user, sport, metric, date,
 * algorithm, watermark) up in the result cache; on a miss read the inputs (model-inputs.ts) and fit in the
 * pool (engine/analysis/intensity-model.ts); answer the curve (kernels/ompd-points.ts ompdCurve) or the map
 * (engine/models/metabolic-map.ts). The cache holds the fit and the inputs a map reads, so both RPCs and
 * every quantity of one metric share an entry; concurrent misses share one computation.
 *
 * Which metric a map fits: power for the power map, speed for the speed map; the heart-rate and VO2 maps
 * (gaps.md "Extra maps") fit the sport's own: power for cycling, speed otherwise.
 * test/engine/physiological-models.test.ts calls both over gRPC; test/gateway/physiological-models.test.ts
 * through HTTP.
 */
import { status } from '@grpc/grpc-js';
import { parseDate } from '../../domain/time.js';
import { canonicalSport, rootSport } from '../../domain/sport.js';
import { EngineError, type CallContext } from '../errors.js';
import { fullGrid } from '../kernels/duration-grid.js';
import { ompdCurve } from '../kernels/ompd-points.js';
import { metabolicMap, MAP_MARKERS, publishedModeledValues, type MapQuantity } from '../models/metabolic-map.js';
import { isFresh, resolveMarker } from '../models/marker-precedence.js';
import type { ZoneMarker } from '../models/zones.js';
import type { ModeledMarkers } from './modeled-markers.js';
import type { CurveMetric } from '../analysis/canonical-series.js';
import type { EnginePool } from '../pool/pool.js';
import type { FittedIntensityModel } from '../pool/tasks.js';
import {
  CURVE_QUANTITIES, MAP_QUANTITIES, MODEL_ALGORITHM, type GetIntensityDurationModelRequest, type GetIntensityDurationModelResponse,
  type GetMetabolicMapRequest, type GetMetabolicMapResponse,
} from '../contract.js';
import type { AnalysisMemo } from './analysis-cache.js';
import type { Store } from '../../storage/store.js';
import { inputWatermark, modelInputs, type ModelInputs } from './model-inputs.js';
import { ModelCache } from './model-cache.js';
import { requestedDurations, requireField } from './request-fields.js';

export interface ModelDeps {
  store: Store;
  pool: EnginePool;
  memo?: AnalysisMemo;
  cache: ModelCache<Promise<ModelState>>;
}

/** A cache entry: the fit and what a map reads besides it. */
export interface ModelState {
  fitted: FittedIntensityModel;
  hasLongActivity: boolean;
  bodyMass: number | null;
  restingHr: number | null;
  markers: ModelInputs['markers'];
}

/** "The full grid" of a model curve: up to 6 hours, the longest default duration. */
const CURVE_GRID_SECONDS = 21_600;

export function getIntensityDurationModel(deps: ModelDeps) {
  return async function getIntensityDurationModelCall(request: GetIntensityDurationModelRequest, { signal }: CallContext): Promise<GetIntensityDurationModelResponse> {
    const subsystem = 'intensity-duration model';
    const query = checkedQuery(request, CURVE_QUANTITIES, subsystem);
    const durations = requestedDurations(request.durations, request.all_durations, subsystem) ?? fullGrid(CURVE_GRID_SECONDS);
    const metric = query.quantity as CurveMetric;
    const { state, fromCache } = await modelState(deps, query.userId, query.sport, metric, query.date, signal);
    const params = state.fitted.params;
    const curve = params === null ? [] : ompdCurve(Float64Array.from(params), durations, metric);
    return { curve, algorithm: MODEL_ALGORITHM, from_cache: fromCache };
  };
}

export function getMetabolicMap(deps: ModelDeps) {
  return async function getMetabolicMapCall(request: GetMetabolicMapRequest, { signal }: CallContext): Promise<GetMetabolicMapResponse> {
    const subsystem = 'metabolic map';
    const query = checkedQuery(request, MAP_QUANTITIES, subsystem);
    const quantity = query.quantity as MapQuantity;
    const metric = curveMetricOf(quantity, query.sport);
    const { state, fromCache } = await modelState(deps, query.userId, query.sport, metric, query.date, signal);
    const answer = { body_mass: 0, markers: [], problem: '', problem_detail: '', algorithm: MODEL_ALGORITHM, from_cache: fromCache } as GetMetabolicMapResponse;
    if (state.bodyMass === null) {
      return { ...answer, problem: 'missing_body_mass', problem_detail: `No body_mass daily (GET /dailies/body_mass has no value for ${query.date}): record one first.` };
    }
    // "Fresh measured or declared markers are still served when the window holds no 15-minute activity:
    // only the modeled markers need it" (ANALYTICS.md §7).
    if (!state.hasLongActivity && !hasFreshStoredMarker(quantity, state.markers, query.date)) {
      return { ...answer, problem: 'insufficient_data', problem_detail: `No ${query.sport} activity with at least 15 minutes of recorded time (pauses excluded) in the 90 days ending on ${query.date}, and no fresh measured or declared marker.` };
    }
    const model = state.hasLongActivity ? { metric, ...state.fitted, bodyMass: state.bodyMass, restingHr: state.restingHr } : null;
    const map = metabolicMap(quantity, model, state.markers, query.date);
    return {
      ...answer,
      body_mass: Math.round(state.bodyMass * 10) / 10,
      // "the heart-rate map's inputs also carry resting_hr" (ANALYTICS.md §7), whole bpm.
      ...(quantity === 'heart_rate' && state.restingHr !== null ? { resting_hr: Math.round(state.restingHr) } : {}),
      markers: MAP_MARKERS[quantity].map((name) => {
        const marker = map[name] ?? null;
        return marker === null ? { name, provenance: '' } : { name, value: marker.value, provenance: marker.provenance };
      }),
    };
  };
}

/**
 * The zones' modeled input (service/modeled-markers.ts): the metabolic map's modeled values of (user, sport,
 * quantity, date) as it publishes them (rounded, in order), from the same cached state the map reads; {}
 * when nothing is modeled (no body mass, no activity of 15 minutes), so the zones then use written and
 * measured values alone.
 */
export function modeledMarkersFrom(deps: ModelDeps): ModeledMarkers {
  return async function modeledMarkers({ userId, sport, quantity, date }, signal) {
    const metric = curveMetricOf(quantity, sport);
    const { state } = await modelState(deps, userId, sport, metric, date, signal);
    if (state.bodyMass === null || !state.hasLongActivity) return {};
    const heartRateMax = quantity === 'heart_rate'
      ? resolveMarker({ candidates: state.markers.filter((row) => row.marker === 'heart_rate_max' && row.metric === 'heart_rate'), date })?.value ?? null
      : null;
    return publishedModeledValues(quantity, { metric, ...state.fitted, bodyMass: state.bodyMass, restingHr: state.restingHr }, heartRateMax) as Partial<Record<ZoneMarker, number>>;
  };
}

/** True when some marker of `quantity`'s map has a measured or declared value fresh on `date` (marker-precedence.ts). */
function hasFreshStoredMarker(quantity: MapQuantity, markers: ModelState['markers'], date: string): boolean {
  const names = MAP_MARKERS[quantity];
  return markers.some((row) => row.metric === quantity && names.includes(row.marker) && row.provenance !== 'external' && row.date <= date && isFresh(row, date));
}

/** The curve a map is modelled from: its own quantity's, else (heart rate, vo2) the sport's: power for cycling, speed otherwise. */
function curveMetricOf(quantity: MapQuantity, sport: string): CurveMetric {
  return quantity === 'power' || quantity === 'speed' ? quantity : sport === 'cycling' ? 'power' : 'speed';
}

/** The cached state of (user, sport, metric, date) at the current watermark, computed on a miss. */
async function modelState(
  deps: ModelDeps, userId: string, sport: string, metric: CurveMetric, date: string, signal: AbortSignal,
): Promise<{ state: ModelState; fromCache: boolean }> {
  // The watermark is read before the inputs: a write landing meanwhile is cached under the older mark,
  // which the next call no longer matches.
  const watermark = await inputWatermark(deps.store, userId);
  const key = [userId, sport, metric, date, MODEL_ALGORITHM, watermark].join('\0');
  const cached = deps.cache.get(key);
  if (cached !== undefined) return { state: await cached, fromCache: true };
  const computing = computeState(deps, userId, sport, metric, date, signal);
  deps.cache.set(key, computing);
  // A failed or cancelled computation is not kept.
  computing.catch(() => deps.cache.delete(key));
  return { state: await computing, fromCache: false };
}

async function computeState(deps: ModelDeps, userId: string, sport: string, metric: CurveMetric, date: string, signal: AbortSignal): Promise<ModelState> {
  const inputs = await modelInputs(deps, userId, sport, metric, date, signal);
  signal.throwIfAborted();
  const { fit } = inputs;
  const transferList = [fit.curveDurations.buffer, fit.curveValues.buffer, fit.effortDurations.buffer, fit.effortValues.buffer] as ArrayBuffer[];
  const hasLongActivity = fit.hasLongActivity;
  const fitted = await deps.pool.run('fitIntensityModel', fit, { signal, transferList });
  return { fitted, hasLongActivity, bodyMass: inputs.bodyMass, restingHr: inputs.restingHr, markers: inputs.markers };
}

interface Query {
  userId: string;
  quantity: string;
  sport: string;
  date: string;
}

function checkedQuery(request: { user_id?: string; quantity?: string; sport?: string; date?: string }, quantities: readonly string[], subsystem: string): Query {
  const userId = requireField(request.user_id, 'user_id', subsystem);
  const quantity = request.quantity ?? '';
  if (!quantities.includes(quantity)) throw invalid(`${subsystem}: quantity must be ${quantities.join(', ')}, not '${quantity}'`);
  const sport = canonicalSport(request.sport ?? '');
  if (sport === null || rootSport(sport) !== sport) throw invalid(`${subsystem}: sport '${request.sport ?? ''}' must be a root sport (cycling, running, …)`);
  const date = request.date ?? '';
  if (parseDate(date) === null) throw invalid(`${subsystem}: date '${date}' is not a date (YYYY-MM-DD)`);
  return { userId, quantity, sport, date };
}

function invalid(message: string): EngineError {
  return new EngineError(status.INVALID_ARGUMENT, message);
}
