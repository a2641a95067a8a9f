/**
 * Readers for the FIT messages around the records, as fit-file-parser decodes them: the sport enum
 * values behind its names, developer fields that feed a metric, device names, the UTC offset and laps.
 * Cold code: a few messages per file. Kept honest by test/engine/fit-corpus.test.ts.
 */
import {
  getFitGarminProductDisplayName, getFitManufacturerName, getFitSportId, getFitSubSportId,
} from 'fit-file-parser';
import type { SeriesMetric } from './series.js';

export type Message = Record<string, unknown>;

/** FIT profile `sport` value of a transition between multisport legs. */
export const FIT_SPORT_TRANSITION = 3;

/** Epoch milliseconds of a FIT date_time that fit-file-parser decoded to a Date, else NaN. */
export function timeOf(value: unknown): number {
  return value instanceof Date ? value.getTime() : Number.NaN;
}

function finite(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : Number.NaN;
}

/**
 * The FIT enum value of a `sport` / `sub_sport` field: fit-file-parser writes the profile name
 * ('running'), or the number itself when its profile does not know the value. Missing → 0 (generic).
 */
export function fitSportValue(value: unknown): number {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  return typeof value === 'string' ? (getFitSportId(value) ?? 0) : 0;
}

export function fitSubSportValue(value: unknown): number {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  return typeof value === 'string' ? (getFitSubSportId(value) ?? 0) : 0;
}

// ---------------------------------------------------------------------------------------------------------
// Developer fields

/** Native record fields (FIT profile field numbers) whose developer twins feed a metric. */
const NATIVE_FIELD_METRICS: ReadonlyMap<number, SeriesMetric> = new Map([
  [7, 'power'],
  [3, 'heart_rate'],
  [6, 'speed'],
  [57, 'smo2'], // saturated_hemoglobin_percent
  [139, 'core_temperature'],
]);

/** Developer field names that identify a metric without `native_field_num` (lowercase, alphanumerics only). */
const NAMED_METRICS: ReadonlyMap<string, SeriesMetric> = new Map([
  ['coretemperature', 'core_temperature'], // CORE body temperature sensor (Connect IQ / Karoo)
  ['coretemp', 'core_temperature'],
  ['smo2', 'smo2'], // Moxy muscle oxygen monitor
  ['currhemoperc', 'smo2'],
  ['saturatedhemoglobinpercent', 'smo2'],
]);

const normalise = (text: string) => text.toLowerCase().replace(/[^a-z0-9]/g, '');

/** value × scale + offset that turns a developer field's declared units into the metric's unit, or null. */
function conversion(metric: SeriesMetric, units: string): { scale: number; offset: number } | null {
  const unit = normalise(units);
  const same = { scale: 1, offset: 0 };
  switch (metric) {
    case 'power':
      return ['', 'w', 'watt', 'watts'].includes(unit) ? same : null;
    case 'heart_rate':
      return ['', 'bpm'].includes(unit) ? same : null;
    case 'speed':
      if (['', 'ms', 'mps'].includes(unit)) return same;
      if (['kmh', 'kph'].includes(unit)) return { scale: 1 / 3.6, offset: 0 };
      if (unit === 'mph') return { scale: 0.44704, offset: 0 };
      return null;
    case 'smo2':
      return ['', 'percent'].includes(unit) || units.trim() === '%' ? same : null;
    case 'core_temperature':
      if (['', 'c', 'degc'].includes(unit)) return same; // '°C' normalises to 'c'
      if (['f', 'degf'].includes(unit)) return { scale: 5 / 9, offset: -32 * 5 / 9 };
      return null;
    default:
      return null;
  }
}

/** A developer field that feeds a metric: the key fit-file-parser stores it under and a unit conversion. */
export interface DeveloperSource {
  metric: SeriesMetric;
  /** The field's `field_name`, the property fit-file-parser writes on each record. */
  key: string;
  scale: number;
  offset: number;
}

/**
 * Developer fields of `record` messages that feed a metric: by `native_field_num` (7 power, 3
 * heart_rate, 6 speed, 57 saturated_hemoglobin_percent → smo2, 139 core_temperature) or by a
 * recognisable name (CORE `core_temperature`, Moxy `currHemoPerc`/`SmO2`). The value is read from the
 * record property fit-file-parser names after `field_name`. When two fields with the same name exist
 * (two Moxy sensors), fit-file-parser keeps the later one on the record; that is the one used.
 */
export function developerSources(descriptions: readonly Message[], warnings: string[]): DeveloperSource[] {
  const sources: DeveloperSource[] = [];
  for (const description of descriptions) {
    const key = description.field_name;
    const message = description.native_mesg_num;
    if (typeof key !== 'string' || key === '') continue;
    if (message !== undefined && message !== 'record' && message !== 20) continue;
    const native = finite(description.native_field_num);
    const metric = NATIVE_FIELD_METRICS.get(native) ?? NAMED_METRICS.get(normalise(key));
    if (metric === undefined) continue;
    const units = typeof description.units === 'string' ? description.units : '';
    const unit = conversion(metric, units);
    if (unit === null) {
      warnings.push(`fit decode: developer field '${key}' (${metric}) has units '${units}' that are not understood; ignored`);
      continue;
    }
    if (sources.some((source) => source.key === key)) continue;
    sources.push({ metric, key, ...unit });
  }
  return sources;
}

// ---------------------------------------------------------------------------------------------------------
// Devices

const MANUFACTURER_LABELS: Readonly<Record<string, string>> = {
  garmin: 'Garmin', wahoo_fitness: 'Wahoo', suunto: 'Suunto', stryd: 'Stryd', sigmasport: 'Sigma',
  hammerhead: 'Hammerhead', bryton: 'Bryton', zwift: 'Zwift', coros: 'COROS', polar: 'Polar', polar_electro: 'Polar',
  favero_electronics: 'Favero', srm: 'SRM', sram: 'SRAM', quarq: 'Quarq', moxy: 'Moxy', four_iiiis: '4iiii', '4iiiis': '4iiii',
  stages_cycling: 'Stages', dynastream: 'Dynastream', dynastream_oem: 'Dynastream', tacx: 'Tacx', onelap: 'OneLap',
  magene: 'Magene',
};

function manufacturerLabel(value: unknown): string | null {
  const name = typeof value === 'string' ? value : typeof value === 'number' ? getFitManufacturerName(value) : null;
  if (name === null || name === 'development' || /^\d+$/.test(name)) return null;
  return MANUFACTURER_LABELS[name] ?? name.split('_').map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join(' ');
}

/** fit-file-parser's Garmin product display names, tidied: "Hrm  Tri" → "HRM Tri", "O H R" → "OHR". */
function garminProduct(product: unknown): string | null {
  const name = getFitGarminProductDisplayName(finite(product));
  return name === null ? null : name.replace(/\bHrm\b/g, 'HRM').replace(/\bO H R\b/g, 'OHR').replace(/\s+/g, ' ').trim();
}

/**
 * Maker + product. `product_name` is used for the recording device only: sensors' product names are
 * mostly descriptions in the rider's language ("GPS", "Temperatur", "心率").
 */
function deviceName(message: Message, recorder: boolean): string | null {
  const maker = manufacturerLabel(message.manufacturer);
  const written = recorder && typeof message.product_name === 'string' ? message.product_name.replace(/\s+/g, ' ').trim() : '';
  // A product name that is only a number (Karoo's sensors write "1", "4868") names nothing.
  const productName = written === '' || /^\d+$/.test(written) ? null : written;
  const product = maker === 'Garmin' ? (garminProduct(message.product) ?? productName) : productName;
  if (maker === null) return product;
  if (product === null) return maker;
  return product.toLowerCase().startsWith(maker.toLowerCase()) ? product : `${maker} ${product}`;
}

/** At most this many names: the recording device, then external sensors. */
const MAX_DEVICES = 6;

/**
 * "Garmin Fenix 5", "Garmin HRM 4 Run", "Stryd": the recording device (file_id, or the device_info
 * marked `creator`), then external ANT+/Bluetooth sensors from device_info with a known manufacturer,
 * de-duplicated; a bare name that starts another one ("Wahoo" beside "Wahoo ELEMNT") is dropped.
 * Internal components (barometer, GPS chip) and sensors without a known manufacturer are left out.
 */
export function deviceNames(fileIds: readonly Message[], deviceInfos: readonly Message[]): string[] {
  const names: string[] = [];
  const add = (name: string | null) => {
    if (name !== null && !names.includes(name)) names.push(name);
  };
  const isCreator = (info: Message) => info.device_index === 'creator' || info.device_index === 0;
  for (const fileId of fileIds) add(deviceName(fileId, true));
  for (const info of deviceInfos) if (isCreator(info)) add(deviceName(info, true));
  for (const info of deviceInfos) {
    const source = info.source_type;
    if (isCreator(info) || source === 'local' || source === 5) continue;
    if (manufacturerLabel(info.manufacturer) !== null) add(deviceName(info, false));
  }
  const kept = names.filter((name) => !names.some((other) => other !== name && other.startsWith(`${name} `)));
  return kept.slice(0, MAX_DEVICES);
}

// ---------------------------------------------------------------------------------------------------------
// UTC offset

const QUARTER_HOUR_S = 900;
const MAX_OFFSET_S = 18 * 3600;
/** How far local_timestamp − timestamp may sit from a whole quarter hour (the two are written moments apart). */
const OFFSET_SLACK_S = 300;

/**
 * Minutes east of UTC from `activity.local_timestamp − activity.timestamp`, accepted when it lies within
 * ±18 h and within 5 minutes of a multiple of 15 minutes (it is then rounded to it); otherwise 0 with a
 * warning (the corpus has local_timestamps off by 21 years and by −27 years). No activity message or no
 * local_timestamp: 0, the file carries no offset.
 */
export function utcOffsetMinutes(activity: Message | undefined, warnings: string[]): number {
  if (activity === undefined) return 0;
  const local = timeOf(activity.local_timestamp);
  const utc = timeOf(activity.timestamp);
  if (Number.isNaN(local) || Number.isNaN(utc)) return 0;
  const seconds = (local - utc) / 1000;
  const rounded = Math.round(seconds / QUARTER_HOUR_S) * QUARTER_HOUR_S;
  if (Math.abs(rounded) <= MAX_OFFSET_S && Math.abs(seconds - rounded) <= OFFSET_SLACK_S) return rounded / 60 || 0; // never -0
  warnings.push(`fit decode: activity local_timestamp is ${(seconds / 3600).toFixed(2)} h from its timestamp, not a UTC offset; offset 0 used`);
  return 0;
}

// ---------------------------------------------------------------------------------------------------------
// Laps

export interface FitLap {
  /** UTC epoch milliseconds. */
  start: number;
  end: number;
}

/**
 * Lap boundaries as recorded, in start order: start = `start_time` (else `timestamp − total_elapsed_time`),
 * end = start + `total_elapsed_time` (else `timestamp`). Laps without a usable start are left out.
 */
export function lapsOf(laps: readonly Message[]): FitLap[] {
  const out: FitLap[] = [];
  for (const lap of laps) {
    const elapsedMs = finite(lap.total_elapsed_time) * 1000;
    const stamp = timeOf(lap.timestamp);
    let start = timeOf(lap.start_time);
    if (Number.isNaN(start)) start = stamp - elapsedMs;
    if (Number.isNaN(start)) continue;
    let end = Number.isNaN(elapsedMs) ? stamp : start + Math.round(elapsedMs);
    if (!(end >= start)) end = start;
    out.push({ start, end });
  }
  return out.sort((a, b) => a.start - b.start);
}
