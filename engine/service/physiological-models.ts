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
import { createHash } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import { parseDate } from '../../domain/time.js';
import { canonicalSport, rootSport } from '../../domain/sport.js';
import { EngineError, type CallContext } from '../errors.js';
import { fullGrid } from '../kernels/duration-grid.js';
import { ompdCurve } from '../kernels/ompd-points.js';
import { metabolicMap, MAP_MARKERS, publishedModeledValues, type MapQuantity } from '../models/metabolic-map.js';
import { isFresh, resolveMarker } from '../models/marker-precedence.js';
import type { ZoneMarker } from '../models/zones.js';
import type { ModeledMarkers, ModeledSeason } from './modeled-markers.js';
import type { ZoneQuantity } from '../models/zones.js';
import { mapLimit } from './map-limit.js';
import type { CurveMetric } from '../analysis/canonical-series.js';
import type { EnginePool } from '../pool/pool.js';
import type { FitIntensityModelTask, FittedIntensityModel } from '../pool/tasks.js';
import {
  CURVE_QUANTITIES, MAP_QUANTITIES, MODEL_ALGORITHM, type GetIntensityDurationModelRequest, type GetIntensityDurationModelResponse,
  type GetMetabolicMapRequest, type GetMetabolicMapResponse,
} from '../contract.js';
import type { AnalysisMemo } from './analysis-cache.js';
import type { Store } from '../../storage/store.js';
import { inputWatermark, seasonModelInputs, type ModelInputs } from './model-inputs.js';
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
    return modeledOf(quantity, metric, state, date);
  };
}

/**
 * modeledMarkersFrom for many dates at once (service/modeled-markers.ts ModeledSeason): one watermark read,
 * the dates the cache holds answered from it, the others computed together (modelStates), so a season of
 * local dates costs one read of its inputs and one fit per distinct window.
 */
export function modeledSeasonFrom(deps: ModelDeps): ModeledSeason {
  return async function modeledSeason({ userId, sport, quantity, dates }, signal) {
    const metric = curveMetricOf(quantity, sport);
    const ordered = [...new Set(dates)].sort();
    const states = await modelStates(deps, userId, sport, metric, ordered, signal);
    return new Map(ordered.map((date, q) => [date, modeledOf(quantity, metric, states[q]!.state, date)]));
  };
}

function modeledOf(quantity: ZoneQuantity, metric: CurveMetric, state: ModelState, date: string): Partial<Record<ZoneMarker, number>> {
  if (state.bodyMass === null || !state.hasLongActivity) return {};
  const heartRateMax = quantity === 'heart_rate'
    ? resolveMarker({ candidates: state.markers.filter((row) => row.marker === 'heart_rate_max' && row.metric === 'heart_rate'), date })?.value ?? null
    : null;
  return publishedModeledValues(quantity, { metric, ...state.fitted, bodyMass: state.bodyMass, restingHr: state.restingHr }, heartRateMax) as Partial<Record<ZoneMarker, number>>;
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
  return (await modelStates(deps, userId, sport, metric, [date], signal))[0]!;
}

/** Fits in flight at once for the missing dates of one call: the pool's queue takes them two at a time. */
const FIT_PARALLEL = 2;

/**
 * The cached states of (user, sport, metric) on each of `dates` (ascending, distinct) at the current
 * watermark; the dates the cache lacks computed together (seasonModelInputs: one read of the inputs), a
 * fit per distinct input (two dates whose windows hold the same bests share one).
 */
async function modelStates(
  deps: ModelDeps, userId: string, sport: string, metric: CurveMetric, dates: readonly string[], signal: AbortSignal,
): Promise<{ state: ModelState; fromCache: boolean }[]> {
  // The watermark is read before the inputs: a write landing meanwhile is cached under the older mark,
  // which the next call no longer matches.
  const watermark = await inputWatermark(deps.store, userId);
  const keys = dates.map((date) => [userId, sport, metric, date, MODEL_ALGORITHM, watermark].join('\0'));
  const found = keys.map((key) => deps.cache.get(key));
  const missing = dates.filter((_, q) => found[q] === undefined);
  const computing = missing.length === 0 ? null : computeStates(deps, userId, sport, metric, missing, signal);
  let next = 0;
  const entries = found.map((cached, q) => {
    if (cached !== undefined) return { pending: cached, fromCache: true };
    const index = next++;
    const pending = computing!.then((states) => states[index]!);
    deps.cache.set(keys[q]!, pending);
    // A failed or cancelled computation is not kept.
    pending.catch(() => deps.cache.delete(keys[q]!));
    return { pending, fromCache: false };
  });
  return Promise.all(entries.map(async ({ pending, fromCache }) => ({ state: await pending, fromCache })));
}

async function computeStates(deps: ModelDeps, userId: string, sport: string, metric: CurveMetric, dates: readonly string[], signal: AbortSignal): Promise<ModelState[]> {
  const inputs = await seasonModelInputs(deps, userId, sport, metric, dates, signal);
  signal.throwIfAborted();
  // Dates whose windows hold the same bests and efforts have the same fit: one pool task per distinct input.
  const keys = inputs.map(({ fit }) => fitKey(fit));
  const distinct = new Map<string, FitIntensityModelTask>();
  inputs.forEach(({ fit }, q) => {
    if (!distinct.has(keys[q]!)) distinct.set(keys[q]!, fit);
  });
  const tasks = [...distinct.values()];
  const fitted = await mapLimit(tasks, FIT_PARALLEL, (task) => {
    const transferList = [task.curveDurations.buffer, task.curveValues.buffer, task.effortDurations.buffer, task.effortValues.buffer] as ArrayBuffer[];
    return deps.pool.run('fitIntensityModel', task, { signal, transferList });
  });
  const byKey = new Map([...distinct.keys()].map((key, i) => [key, fitted[i]!]));
  return inputs.map((input, q) => ({
    fitted: byKey.get(keys[q]!)!,
    hasLongActivity: input.fit.hasLongActivity,
    bodyMass: input.bodyMass,
    restingHr: input.restingHr,
    markers: input.markers,
  }));
}

/** Exactly the fit's input: the metric, the 15-minute flag, and every duration's and value's bits. */
function fitKey(task: FitIntensityModelTask): string {
  const hash = createHash('sha256').update(`${task.metric}:${task.hasLongActivity}:${task.curveDurations.length}:${task.effortDurations.length}:`);
  for (const array of [task.curveDurations, task.curveValues, task.effortDurations, task.effortValues]) {
    hash.update(new Uint8Array(array.buffer, array.byteOffset, array.byteLength));
  }
  return hash.digest('base64');
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
