/**
 * FIT `record` messages (as fit-file-parser decodes them) → one table of canonical columns for a FIT
 * file: UTC epoch milliseconds, strictly increasing, plus one Float64Array per series metric (NaN = no
 * value). fit.ts then cuts it into activities by session.
 *
 * Time rules (the corpus shows every one of these in real files):
 * - A record without a timestamp is dropped.
 * - Duplicate timestamp (a second record at the same second, e.g. Strava writing position and distance
 *   separately, or a device re-emitting a sample): merged into the first record with that timestamp;
 *   the first value of each metric wins, later ones only fill its gaps.
 * - Backwards timestamp (earlier than the last kept one, by up to `maxJumpMs`): dropped.
 * - Absurd jump (more than `maxJumpMs` forwards or backwards, e.g. the 2-year jump at the end of
 *   GoldenCheetah's rides-2013-04-11-17-32-50.fit or a garbage year-2085 timestamp in a corrupt tail):
 *   the records are grouped into runs that each advance by less than `maxJumpMs`; the run with the most
 *   samples is the recording, the others are dropped.
 * Every drop and merge is counted and reported as a warning by the caller.
 *
 * Values: `enhanced_speed` / `enhanced_altitude` / `enhanced_respiration_rate` win over their 16-bit
 * (8-bit) twins; `cadence` adds `fractional_cadence`; `compressed_speed_distance` (early ANT+ devices)
 * is expanded to speed and accumulated distance; developer fields fill a metric only where the native
 * field is missing (native wins). Units are the interface's (fit-file-parser already converts
 * semicircles to degrees and applies scale/offset). Cadence is the file's: rpm, and for running the
 * FIT convention of strides (one leg's cycles) per minute. fit-file-parser names a developer field's
 * value after its `field_name`, so a developer field named like a native field (CORE's
 * `core_temperature`) replaces the native value on that record; such fields carry the same quantity.
 *
 * No per-sample objects: records are read once in place and values written straight into typed arrays.
 */
import { timeOf, type DeveloperSource, type Message } from './fit-messages.js';
import { SERIES_METRICS, type SeriesMetric } from './series.js';

/** Index of each metric in SERIES_METRICS, the column order. */
const M = Object.fromEntries(SERIES_METRICS.map((name, i) => [name, i])) as Record<SeriesMetric, number>;

export interface FitTable {
  timestamps: Float64Array;
  /** One column per SERIES_METRICS entry, in that order. */
  columns: Float64Array[];
  /** What the time rules did. */
  untimed: number;
  duplicates: number;
  backwards: number;
  /** Largest backwards step dropped, ms. */
  maxBackwardsMs: number;
  /** Records dropped because they lie in a minority run beyond an absurd jump. */
  offRun: number;
  /** First and last timestamp of the dropped runs (ms), NaN when none. */
  offRunFirst: number;
  offRunLast: number;
}

const KIND_NEW = 1;
const KIND_DUPLICATE = 2;
const KIND_BACKWARDS = 3;
const MAX_RUNS = 16;

function num(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : Number.NaN;
}

/** Reads records into the canonical table; `records` are one FIT file's records in file order. */
export function buildTable(records: readonly Message[], developer: readonly DeveloperSource[], maxJumpMs: number): FitTable {
  const n = records.length;
  const raw = new Float64Array(n);
  for (let i = 0; i < n; i++) raw[i] = timeOf(records[i]!.timestamp);

  // Pass 1: runs and kinds.
  const run = new Int8Array(n).fill(-1);
  const kind = new Uint8Array(n); // 0 = no timestamp or no run
  const runLast = new Float64Array(MAX_RUNS);
  const runRows = new Int32Array(MAX_RUNS);
  let runs = 0;
  let current = -1;
  let untimed = 0;
  for (let i = 0; i < n; i++) {
    const t = raw[i]!;
    if (Number.isNaN(t)) {
      untimed++;
      continue;
    }
    let target = -1;
    if (current >= 0 && Math.abs(t - runLast[current]!) <= maxJumpMs) target = current;
    else {
      for (let k = 0; k < runs && target < 0; k++) if (Math.abs(t - runLast[k]!) <= maxJumpMs) target = k;
      if (target < 0 && runs < MAX_RUNS) {
        target = runs++;
        runLast[target] = Number.NEGATIVE_INFINITY;
      }
    }
    if (target < 0) continue; // more runs than anyone would believe: dropped as off-run
    current = target;
    run[i] = target;
    const step = t - runLast[target]!;
    if (step > 0) {
      kind[i] = KIND_NEW;
      runLast[target] = t;
      runRows[target]!++;
    } else kind[i] = step === 0 ? KIND_DUPLICATE : KIND_BACKWARDS;
  }
  let best = 0;
  for (let k = 1; k < runs; k++) if (runRows[k]! > runRows[best]!) best = k;

  // Rows of the chosen run.
  const rowOf = new Int32Array(n).fill(-1);
  let rows = 0;
  let duplicates = 0;
  let backwards = 0;
  let maxBackwardsMs = 0;
  let offRun = 0;
  let offRunFirst = Number.NaN;
  let offRunLast = Number.NaN;
  let last = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < n; i++) {
    if (Number.isNaN(raw[i]!)) continue;
    if (run[i] !== best) {
      offRun++;
      if (!(raw[i]! >= offRunFirst)) offRunFirst = raw[i]!;
      if (!(raw[i]! <= offRunLast)) offRunLast = raw[i]!;
      continue;
    }
    if (kind[i] === KIND_NEW) {
      rowOf[i] = rows++;
      last = raw[i]!;
    } else if (kind[i] === KIND_DUPLICATE) {
      rowOf[i] = rows - 1;
      duplicates++;
    } else if (kind[i] === KIND_BACKWARDS) {
      backwards++;
      maxBackwardsMs = Math.max(maxBackwardsMs, last - raw[i]!);
    }
  }

  const timestamps = new Float64Array(rows);
  const columns = SERIES_METRICS.map(() => new Float64Array(rows).fill(Number.NaN));
  const power = columns[M.power]!;
  const speed = columns[M.speed]!;
  const heartRate = columns[M.heart_rate]!;
  const cadence = columns[M.cadence]!;
  const altitude = columns[M.altitude]!;
  const distance = columns[M.distance]!;
  const latitude = columns[M.latitude]!;
  const longitude = columns[M.longitude]!;
  const temperature = columns[M.temperature]!;
  const coreTemperature = columns[M.core_temperature]!;
  const smo2 = columns[M.smo2]!;
  const respiration = columns[M.respiration_rate]!;
  const put = (column: Float64Array, row: number, value: number) => {
    if (value === value && Number.isNaN(column[row]!)) column[row] = value;
  };

  // compressed_speed_distance: 12-bit speed (1/100 m/s) and 12-bit rolling distance (1/16 m) that
  // accumulates across records in file order (FIT profile, record field 8).
  let distanceTicks = Number.NaN;
  let lastDistance12 = 0;

  // Pass 2: values.
  for (let i = 0; i < n; i++) {
    const r = records[i]!;
    const row = rowOf[i]!;
    let compressedSpeed = Number.NaN;
    let compressedDistance = Number.NaN;
    const packed = r.compressed_speed_distance;
    if (Array.isArray(packed) && packed.length === 3 && !(packed[0] === null && packed[1] === null && packed[2] === null)) {
      const b0 = (packed[0] as number | null) ?? 0xff;
      const b1 = (packed[1] as number | null) ?? 0xff;
      const b2 = (packed[2] as number | null) ?? 0xff;
      const speed12 = b0 | ((b1 & 0x0f) << 8);
      const distance12 = (b1 >> 4) | (b2 << 4);
      if (Number.isNaN(distanceTicks)) distanceTicks = distance12;
      else distanceTicks += (distance12 - lastDistance12 + 0x1000) & 0x0fff;
      lastDistance12 = distance12;
      compressedSpeed = speed12 / 100;
      compressedDistance = distanceTicks / 16;
    }
    if (row < 0) continue;
    timestamps[row] = raw[i]!;

    put(power, row, num(r.power));
    const enhancedSpeed = num(r.enhanced_speed);
    put(speed, row, enhancedSpeed === enhancedSpeed ? enhancedSpeed : num(r.speed));
    put(speed, row, compressedSpeed);
    put(heartRate, row, num(r.heart_rate));
    const rpm = num(r.cadence);
    const fraction = num(r.fractional_cadence);
    put(cadence, row, fraction === fraction ? rpm + fraction : rpm);
    const enhancedAltitude = num(r.enhanced_altitude);
    put(altitude, row, enhancedAltitude === enhancedAltitude ? enhancedAltitude : num(r.altitude));
    put(distance, row, num(r.distance));
    put(distance, row, compressedDistance);
    const lat = num(r.position_lat);
    const long = num(r.position_long);
    if (Math.abs(lat) <= 90 && Math.abs(long) <= 180) {
      put(latitude, row, lat);
      put(longitude, row, long);
    }
    put(temperature, row, num(r.temperature));
    put(coreTemperature, row, num(r.core_temperature));
    put(smo2, row, num(r.saturated_hemoglobin_percent));
    const enhancedRespiration = num(r.enhanced_respiration_rate);
    put(respiration, row, enhancedRespiration === enhancedRespiration ? enhancedRespiration : num(r.respiration_rate));
    for (let d = 0; d < developer.length; d++) {
      const source = developer[d]!;
      const value = num(r[source.key]);
      if (value === value) put(columns[M[source.metric]]!, row, value * source.scale + source.offset);
    }
  }

  return { timestamps, columns, untimed, duplicates, backwards, maxBackwardsMs, offRun, offRunFirst, offRunLast };
}
