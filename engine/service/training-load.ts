/**
 * The training-load RPCs (engine.proto "Training load"; ANALYTICS.md §10): GetTrainingLoad (daily load,
 * fitness, fatigue, form) and GetActivityNumbers (one activity's numbers and time in zones).
 *
 * Every activity's threshold-independent numbers come from its analysis cache (service/analysis-cache.ts
 * `loadNumbers`: memory, else one blob read per 250 activities, computed in the pool only when missing or
 * stale), never from its series. The thresholds are read once per call (LoadThresholds: the markers of each
 * root sport, the resting heart rate per date, the model only where no fresh stored value exists) and
 * combined at read time (models/training-load.ts), so a marker change needs no recomputation: the next call
 * combines the new winner. The daily averages and the table are computed and written in the pool
 * (analysis-tasks.ts trainingLoadTable), off the event loop.
 *
 * Threshold (§10): the metabolic map's second_threshold on the activity's local date, its precedence
 * included (models/marker-precedence.ts over written, test-measured and modeled values, as GetZones reads
 * them). No threshold → no load, with the reason. test/gateway/training-load.test.ts keeps it honest.
 */
import { status } from '@grpc/grpc-js';
import { isFootSport, rootSport } from '../../domain/sport.js';
import { dateToEpochDay, daysBetween } from '../../domain/time.js';
import type { Store } from '../../storage/store.js';
import type { ActivityNumbers } from '../analysis/analysis-codec.js';
import { AWD_RESOLUTION } from '../analysis/activity-analysis.js';
import {
  MAX_LOAD_DAYS, TRAINING_LOAD_ALGORITHM, ZONE_SYSTEM_NAMES, type GetActivityNumbersRequest, type GetActivityNumbersResponse, type GetTrainingLoadRequest,
  type LoadProblemCode, type QuantityZones, type TableMessage,
} from '../contract.js';
import { EngineError, type CallContext } from '../errors.js';
import { isFresh, resolveMarker, type ResolvedMarker } from '../models/marker-precedence.js';
import type { StoredMarker } from '../models/metabolic-map.js';
import { exactZoneSeconds, intensityLoad, trimp, trimpLoad, weightedIntensity, zoneSeconds } from '../models/training-load.js';
import type { ZoneQuantity, ZoneSystem } from '../models/zones.js';
import type { EnginePool } from '../pool/pool.js';
import { ownActivity } from './activity-records.js';
import { tableMessage } from './analyses.js';
import { matchingActivities, selectionOf, type SelectedActivity } from './activity-selection.js';
import { tableFormat } from './activity-series.js';
import { loadHistograms, loadNumbers, type AnalysisMemo } from './analysis-cache.js';
import { mapLimit } from './map-limit.js';
import { dailyOn, markersOn } from './model-inputs.js';
import type { ModeledMarkers, ModeledSeason } from './modeled-markers.js';
import { requireDate, requireField, requireOneOf } from './request-fields.js';
import { getZones } from './zones.js';

export interface TrainingLoadDeps {
  store: Store;
  pool: EnginePool;
  memo?: AnalysisMemo;
  modeledMarkers: ModeledMarkers;
  /** The modeled thresholds of many dates at once; without it each date asks modeledMarkers. */
  modeledSeason?: ModeledSeason;
}

/** Activities whose thresholds are resolved at once (modeled ones are prepared for the whole season first). */
const MODEL_PARALLEL = 2;

/** Later than any marker's date: markersOn reads every written and measured value once per call. */
const ALL_DATES = '9999-12-31';

type LoadQuantity = 'power' | 'speed' | 'heart_rate';

/** One activity's load and what it came from. */
export interface ActivityLoad {
  quantity: LoadQuantity | '';
  weighted: number | null;
  threshold: ResolvedMarker | null;
  intensityFactor: number | null;
  load: number | null;
  trimp: number | null;
  restingHr: number | null;
  maxHr: number | null;
  problem: LoadProblemCode | '';
  detail: string;
}

export function getTrainingLoad(deps: TrainingLoadDeps) {
  return async function getTrainingLoadCall(request: GetTrainingLoadRequest, { signal }: CallContext): Promise<TableMessage> {
    const subsystem = 'training load';
    const userId = requireField(request.user_id, 'user_id', subsystem);
    const selection = selectionOf(request, subsystem, { requireSport: false });
    const endDate = requireDate(request.end_date, 'end_date', subsystem);
    const format = tableFormat(request.format);
    // Fitness starts from zero before the first activity, whatever the requested start.
    const records = await matchingActivities(deps.store, userId, { ...selection, startDate: null });
    const numbers = await loadNumbers(deps, records, signal);
    const thresholds = new LoadThresholds(deps, userId, signal);
    // Every date without a fresh stored threshold is modeled in one pass over the season's inputs; what is
    // left (heart_rate_max, resting_hr) are Map lookups after the first read.
    await thresholds.prepare(records, numbers);
    const loads = await mapLimit(records, MODEL_PARALLEL, (record, index) => activityLoad(record, numbers[index]!, thresholds));
    signal.throwIfAborted();

    const first = records[0]?.local_date ?? selection.startDate;
    const outFrom = selection.startDate ?? first;
    const from = first === null || (outFrom !== null && outFrom < first) ? outFrom : first;
    const days = from === null ? 0 : daysBetween(from, endDate) + 1;
    if (days > MAX_LOAD_DAYS) throw new EngineError(status.INVALID_ARGUMENT, `${subsystem}: ${days} days from ${from} to ${endDate}; at most ${MAX_LOAD_DAYS}`);
    const loadsPerDay = new Float64Array(days);
    const activities = new Int32Array(days);
    const unloaded = new Int32Array(days);
    const ids: string[][] = Array.from({ length: days }, () => []);
    const fromDay = from === null ? 0 : dateToEpochDay(from);
    records.forEach((record, index) => {
      const day = dateToEpochDay(record.local_date) - fromDay;
      const load = loads[index]!.load;
      if (load !== null) loadsPerDay[day] = loadsPerDay[day]! + load;
      else unloaded[day] = unloaded[day]! + 1;
      activities[day] = activities[day]! + 1;
      ids[day]!.push(record.id);
    });
    const task = {
      from: from ?? endDate, loads: loadsPerDay, activities, unloaded, ids: ids.map((day) => day.join(',')),
      skip: from === null || outFrom === null ? 0 : daysBetween(from, outFrom), format,
    };
    return tableMessage(await deps.pool.run('trainingLoadTable', task, { signal, transferList: [loadsPerDay.buffer, activities.buffer, unloaded.buffer] }));
  };
}

export function getActivityNumbers(deps: TrainingLoadDeps) {
  return async function getActivityNumbersCall(request: GetActivityNumbersRequest, context: CallContext): Promise<GetActivityNumbersResponse> {
    const subsystem = 'activity numbers';
    const userId = requireField(request.user_id, 'user_id', subsystem);
    const activityId = requireField(request.activity_id, 'activity_id', subsystem);
    const system = request.zone_system ? requireOneOf(request.zone_system, ZONE_SYSTEM_NAMES, 'zone_system', subsystem) : null;
    const record = await ownActivity(deps.store, userId, activityId);
    const [numbers] = await loadNumbers(deps, [record], context.signal);
    if (numbers === null || numbers === undefined) {
      throw new EngineError(status.FAILED_PRECONDITION, `${subsystem}: activity ${record.id} has no stored series`, 'series_missing');
    }
    const load = await activityLoad(record, numbers, new LoadThresholds(deps, userId, context.signal));
    return {
      activity_id: record.id,
      sport: record.sport,
      local_date: record.local_date,
      recorded_time_s: numbers.recordedS,
      moving_time_s: numbers.movingS,
      ...(numbers.workJ !== null && { work_kj: numbers.workJ / 1000 }),
      intensity_quantity: load.quantity,
      ...(load.weighted !== null && { weighted_intensity: load.weighted }),
      ...(load.intensityFactor !== null && { intensity_factor: load.intensityFactor }),
      ...(load.load !== null && { load: load.load }),
      ...(load.trimp !== null && { trimp: load.trimp }),
      threshold: load.threshold === null ? null : { marker: 'second_threshold', quantity: load.quantity, value: load.threshold.value, provenance: load.threshold.provenance },
      ...(load.restingHr !== null && { resting_hr: load.restingHr }),
      ...(load.maxHr !== null && { heart_rate_max: load.maxHr }),
      load_problem: load.problem,
      load_problem_detail: load.detail,
      zones: await timeInZones(deps, userId, record, numbers, system, context),
      algorithm: TRAINING_LOAD_ALGORITHM,
    };
  };
}

/** The load of one activity on its local date; null with the reason when a value it needs is missing. */
export async function activityLoad(record: SelectedActivity, numbers: ActivityNumbers | null, thresholds: LoadThresholds): Promise<ActivityLoad> {
  const out: ActivityLoad = {
    quantity: '', weighted: null, threshold: null, intensityFactor: null, load: null, trimp: null, restingHr: null, maxHr: null, problem: '', detail: '',
  };
  const sport = rootSport(record.sport) ?? record.sport;
  const date = record.local_date;
  const quantity = numbers === null ? null : loadQuantity(record.sport, numbers);
  if (numbers === null || quantity === null) {
    return { ...out, problem: 'no_intensity', detail: `activity ${record.id} has no power, ${isFootSport(record.sport) ? 'speed ' : ''}or heart rate to compute a load from` };
  }
  out.quantity = quantity;
  out.threshold = await thresholds.marker(sport, quantity, 'second_threshold', date);
  if (quantity !== 'heart_rate') {
    const fourth = numbers.fourth[quantity]!;
    out.weighted = weightedIntensity(fourth.sum, fourth.count);
    if (out.threshold === null) return { ...out, problem: 'no_threshold', detail: noValue(`second_threshold (${quantity})`, sport, date) };
    const { intensityFactor, load } = intensityLoad(numbers.recordedS, out.weighted, out.threshold.value);
    return { ...out, intensityFactor, load };
  }
  const heartRate = numbers.heartRate!;
  const [maxHr, restingHr] = await Promise.all([thresholds.marker(sport, 'heart_rate', 'heart_rate_max', date), thresholds.restingHr(date)]);
  out.maxHr = maxHr?.value ?? null;
  out.restingHr = restingHr;
  if (out.threshold === null) return { ...out, problem: 'no_threshold', detail: noValue('second_threshold (heart_rate)', sport, date) };
  if (out.maxHr === null) return { ...out, problem: 'no_heart_rate_max', detail: noValue('heart_rate_max', sport, date) };
  if (restingHr === null) return { ...out, problem: 'no_resting_hr', detail: `no resting_hr daily on ${date} (GET /dailies/resting_hr): record one first` };
  if (!(out.maxHr > restingHr && out.threshold.value > restingHr)) {
    return { ...out, problem: 'no_heart_rate_max', detail: `heart_rate_max ${out.maxHr} and second_threshold ${out.threshold.value} must lie above resting_hr ${restingHr}` };
  }
  out.trimp = trimp(heartRate.bpm, heartRate.ms, restingHr, out.maxHr);
  return { ...out, load: trimpLoad(out.trimp, restingHr, out.maxHr, out.threshold.value) };
}

/** Power when the activity has it, else speed for foot sports, else heart rate ("heart rate only"); null for none. */
function loadQuantity(sport: string, numbers: ActivityNumbers): LoadQuantity | null {
  if (numbers.fourth.power !== undefined) return 'power';
  if (isFootSport(sport) && numbers.fourth.speed !== undefined) return 'speed';
  return numbers.heartRate !== null ? 'heart_rate' : null;
}

function noValue(marker: string, sport: string, date: string): string {
  return `no ${marker} for ${sport} on ${date}: declare one (POST /markers) or let the metabolic map model it`;
}

/**
 * The markers a call's loads read, each resolved once per (sport, quantity, marker, date): written and
 * test-measured values read once per root sport, the model asked only where no fresh stored value exists
 * (a fresh measured or declared value beats the model anyway), the resting heart rate once per date.
 */
export class LoadThresholds {
  private readonly stored = new Map<string, Promise<StoredMarker[]>>();
  private readonly resolved = new Map<string, Promise<ResolvedMarker | null>>();
  private readonly resting = new Map<string, Promise<number | null>>();
  /** The modeled second_threshold per (sport, quantity, date) that prepare() computed (null: none modeled). */
  private readonly modeled = new Map<string, number | null>();

  constructor(private readonly deps: TrainingLoadDeps, private readonly userId: string, private readonly signal: AbortSignal) {}

  /**
   * Models the second_threshold of every (sport, quantity, local date) of `records` that no fresh stored
   * value answers, each (sport, quantity) in one call for all its dates (TrainingLoadDeps.modeledSeason);
   * nothing without it.
   */
  async prepare(records: readonly SelectedActivity[], numbers: readonly (ActivityNumbers | null)[]): Promise<void> {
    const season = this.deps.modeledSeason;
    if (season === undefined) return;
    const wanted = new Map<string, { sport: string; quantity: LoadQuantity; dates: Set<string> }>();
    for (let index = 0; index < records.length; index++) {
      const record = records[index]!;
      const activityNumbers = numbers[index] ?? null;
      const quantity = activityNumbers === null ? null : loadQuantity(record.sport, activityNumbers);
      if (quantity === null) continue;
      const sport = rootSport(record.sport) ?? record.sport;
      const group = `${sport}\0${quantity}`;
      let entry = wanted.get(group);
      if (entry === undefined) wanted.set(group, entry = { sport, quantity, dates: new Set() });
      entry.dates.add(record.local_date);
    }
    for (const { sport, quantity, dates } of wanted.values()) {
      const stored = await this.storedOf(sport);
      const modelDates = [...dates].filter((date) => needsModel(stored, 'second_threshold', quantity, date));
      if (modelDates.length === 0) continue;
      const values = await season({ userId: this.userId, sport, quantity, dates: modelDates }, this.signal);
      for (const date of modelDates) this.modeled.set(modeledKey(sport, quantity, date), values.get(date)?.second_threshold ?? null);
    }
  }

  marker(sport: string, quantity: LoadQuantity, marker: 'second_threshold' | 'heart_rate_max', date: string): Promise<ResolvedMarker | null> {
    const key = [sport, quantity, marker, date].join('\0');
    let found = this.resolved.get(key);
    if (found === undefined) this.resolved.set(key, found = this.resolve(sport, quantity, marker, date));
    return found;
  }

  restingHr(date: string): Promise<number | null> {
    let found = this.resting.get(date);
    if (found === undefined) this.resting.set(date, found = dailyOn(this.deps.store, this.userId, 'resting_hr', date));
    return found;
  }

  private storedOf(sport: string): Promise<StoredMarker[]> {
    let stored = this.stored.get(sport);
    if (stored === undefined) this.stored.set(sport, stored = markersOn(this.deps.store, this.userId, sport, ALL_DATES));
    return stored;
  }

  private async resolve(sport: string, quantity: LoadQuantity, marker: string, date: string): Promise<ResolvedMarker | null> {
    const stored = await this.storedOf(sport);
    const candidates = stored.filter((row) => row.marker === marker && row.metric === quantity && row.date <= date);
    let modeled: number | null = null;
    if (needsModel(stored, marker, quantity, date)) {
      const prepared = this.modeled.get(modeledKey(sport, quantity, date));
      modeled = prepared !== undefined
        ? prepared
        : (await this.deps.modeledMarkers({ userId: this.userId, sport, quantity, date }, this.signal)).second_threshold ?? null;
    }
    return resolveMarker({ candidates, modeled, date });
  }
}

function modeledKey(sport: string, quantity: LoadQuantity, date: string): string {
  return `${sport}\0${quantity}\0${date}`;
}

/** heart_rate_max is never modeled; a fresh measured or declared value beats the model, so it is not asked. */
function needsModel(stored: readonly StoredMarker[], marker: string, quantity: LoadQuantity, date: string): boolean {
  return marker !== 'heart_rate_max'
    && !stored.some((row) => row.marker === marker && row.metric === quantity && row.date <= date && row.provenance !== 'external' && isFresh(row, date));
}

/**
 * Time in each zone of the athlete's zones on the activity's local date (GetZones, as /profile/zones
 * answers them), per quantity the activity has: power, speed (foot sports), heart rate; from the cached AWD
 * histograms and the time at each exact heart rate (recorded time: pauses excluded).
 */
async function timeInZones(
  deps: TrainingLoadDeps, userId: string, record: SelectedActivity, numbers: ActivityNumbers, system: ZoneSystem | null, context: CallContext,
): Promise<QuantityZones[]> {
  const sport = rootSport(record.sport) ?? record.sport;
  type Zones = readonly { lower: number; upper: number | null }[];
  const quantities: { quantity: ZoneQuantity; secondsIn: (zones: Zones) => number[] }[] = [];
  const [power, speed] = await Promise.all([
    loadHistograms(deps, [record], 'power', context.signal),
    isFootSport(record.sport) ? loadHistograms(deps, [record], 'speed', context.signal) : Promise.resolve([null]),
  ]);
  if (power[0]) quantities.push({ quantity: 'power', secondsIn: (zones) => zoneSeconds(power[0]!, AWD_RESOLUTION.power, zones) });
  if (speed[0]) quantities.push({ quantity: 'speed', secondsIn: (zones) => zoneSeconds(speed[0]!, AWD_RESOLUTION.speed, zones) });
  const heartRate = numbers.heartRate;
  if (heartRate !== null) quantities.push({ quantity: 'heart_rate', secondsIn: (zones) => exactZoneSeconds(heartRate.bpm, heartRate.ms, zones) });
  const zonesOf = getZones(deps);
  return Promise.all(quantities.map(async ({ quantity, secondsIn }) => {
    const zoneSystem = system ?? (quantity === 'heart_rate' ? 'olt_i_scale' : 'seven_zone');
    const answer = await zonesOf({ user_id: userId, sport, quantity, zone_system: zoneSystem, date: record.local_date }, context);
    const seconds = secondsIn(answer.zones);
    return { quantity, zone_system: zoneSystem, zones: answer.zones.map((zone, z) => ({ ...zone, duration_s: seconds[z]! })), problem: answer.problem };
  }));
}
