/**
 * The stored form of an activity's analysis cache (activity-analysis.ts), about 5 KB for a two-hour ride
 * with power and distance (36 KB in the first layout). Lossless: every decoded number has the bits that were
 * encoded, so longitudinal curves served from caches are the same bit for bit whatever the layout.
 *
 * Layout (little-endian): "THA2", uint32 ANALYSIS_VERSION, uint8 part count, then per part: uint8 kind
 * (0 curve, 1 AWD histogram, 2 numbers), uint8 metric (0 power, 1 speed), uint8 flags (1 = deflated), varint byte
 * length, the bytes (raw DEFLATE when flagged, kept only where it is smaller). A part's payload:
 *
 * - curve: n; the durations as varint deltas; the starts (UTC ms) as zigzag varint deltas in whole seconds
 *   (unit 1000) or ms (unit 1), or raw float64 (unit 0) when one is not a safe integer; the values as one
 *   token each: v = S/d for a safe integer S (a whole-watt 1 Hz ride: S is the window's joules) is
 *   zigzag(S − previous S) + 1, any other value is 0 and its bits follow in the escape block;
 * - numbers (kind 2, metric 0, one per activity): the scalars of ActivityNumbers as escaped floats (NaN =
 *   none), then the heart-rate time: n (0 without heart rate), the n distinct bpm ascending, × 4, as integer
 *   deltas (raw float64 when one is not whole: a third of a bpm), and the ms at each as a histogram's bins;
 * - histogram: n; unit 1000 (whole seconds) or 1 (whole ms) with one varint per bin, or unit 0 and raw float64;
 * - the escape block: count, then the float64 bits XOR the previous escaped value's, as 8 byte planes (most
 *   significant first), so the shared sign, exponent and leading mantissa bits compress.
 *
 * Parts decode alone (decodeAnalysisPart), into typed arrays that own their buffers, so a memory of decoded
 * parts holds exactly what it counts. Deliberately not here: computing the cache (activity-analysis.ts),
 * versions (a bump of ANALYSIS_VERSION recomputes every cache; analysisVersionOf tells an old blob apart).
 * test/engine/analysis-codec.test.ts round-trips real and random caches bit for bit.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { CURVE_METRICS, type CurveMetric } from './canonical-series.js';
import type { MetricCurve } from './curves.js';

/** What a cache holds per activity (engine/analysis/activity-analysis.ts builds it). */
export interface ActivityAnalysis {
  version: number;
  curves: Partial<Record<CurveMetric, MetricCurve>>;
  /** Recorded ms per intensity bin (bin b = b / AWD_RESOLUTION[metric]). */
  awd: Partial<Record<CurveMetric, Float64Array>>;
  /** The threshold-independent load numbers (ANALYTICS.md §10; engine/analysis/activity-numbers.ts). */
  numbers?: ActivityNumbers;
}

/** What the load numbers of an activity are recombined from at read time (engine/service/training-load.ts). */
export interface ActivityNumbers {
  /** Bins of the canonical series, s: every section, pauses up to the section gap included. */
  recordedS: number;
  /** Recorded time excluding pauses, s: Σ coverage (a gap longer than the hold cap is a pause, §1.2). */
  movingS: number;
  /** Σ canonical power, J; null without power. */
  workJ: number | null;
  /** Σ (30 s rolling mean)⁴ and the window count, per metric the activity has (and that lasted 30 s). */
  fourth: Partial<Record<CurveMetric, { sum: number; count: number }>>;
  /** Recorded ms per exact canonical heart rate (kernels/activity-numbers.ts heartRateTime); null without heart rate. */
  heartRate: HeartRateTime | null;
}

/** Recorded time per distinct mean heart rate: `bpm` ascending and distinct, `ms` held at each. */
export interface HeartRateTime {
  bpm: Float64Array;
  ms: Float64Array;
}

/**
 * Heart rates are stored × 4 (a power of two: exact both ways), so means of 1, 2 or 4 samples a second are
 * integers; any other value goes as its float64 bits.
 */
const BPM_SCALE = 4;

export type PartKind = 'curve' | 'awd' | 'numbers';

const MAGIC = 'THA2';
const LEGACY_MAGIC = 'THA1';
const KINDS: readonly PartKind[] = ['curve', 'awd', 'numbers'];
const DEFLATED = 1;

export function encodeAnalysis(analysis: ActivityAnalysis): Uint8Array {
  const out = new ByteWriter();
  for (const char of MAGIC) out.byte(char.charCodeAt(0));
  out.uint32(analysis.version);
  const parts: { kind: number; metric: number; payload: Uint8Array }[] = [];
  CURVE_METRICS.forEach((metric, m) => {
    const curve = analysis.curves[metric];
    if (curve) parts.push({ kind: 0, metric: m, payload: curvePayload(curve) });
    const awd = analysis.awd[metric];
    if (awd) parts.push({ kind: 1, metric: m, payload: histogramPayload(awd) });
  });
  // One part per activity, filed under metric 0.
  if (analysis.numbers) parts.push({ kind: 2, metric: 0, payload: numbersPayload(analysis.numbers) });
  out.byte(parts.length);
  for (const { kind, metric, payload } of parts) {
    const deflated = deflateRawSync(payload, { level: 9 });
    const smaller = deflated.byteLength < payload.byteLength;
    out.byte(kind);
    out.byte(metric);
    out.byte(smaller ? DEFLATED : 0);
    out.bytes(smaller ? deflated : payload);
  }
  return out.finish();
}

/**
 * The version a stored cache was written with: its header's, 1 for the first (THA1) layout, null for bytes
 * that are no cache. Callers compare it with ANALYSIS_VERSION before decoding.
 */
export function analysisVersionOf(bytes: Uint8Array): number | null {
  if (bytes.byteLength < 8) return null;
  const magic = String.fromCharCode(bytes[0]!, bytes[1]!, bytes[2]!, bytes[3]!);
  if (magic === LEGACY_MAGIC) return 1;
  if (magic !== MAGIC) return null;
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(4, true);
}

export function decodeAnalysis(bytes: Uint8Array): ActivityAnalysis {
  const analysis: ActivityAnalysis = { version: checkedVersion(bytes), curves: {}, awd: {} };
  for (const part of partsOf(bytes)) {
    if (part.kind === 'curve') analysis.curves[part.metric] = decodeCurve(part.payload());
    else if (part.kind === 'awd') analysis.awd[part.metric] = decodeHistogram(part.payload());
    else analysis.numbers = decodeNumbers(part.payload());
  }
  return analysis;
}

/** One part of a cache (a curve or a histogram), decoded alone; null when the activity has none. */
export function decodeAnalysisPart(bytes: Uint8Array, kind: 'curve', metric: CurveMetric): MetricCurve | null;
export function decodeAnalysisPart(bytes: Uint8Array, kind: 'awd', metric: CurveMetric): Float64Array | null;
export function decodeAnalysisPart(bytes: Uint8Array, kind: 'numbers', metric: CurveMetric): ActivityNumbers | null;
export function decodeAnalysisPart(bytes: Uint8Array, kind: PartKind, metric: CurveMetric): MetricCurve | Float64Array | ActivityNumbers | null {
  checkedVersion(bytes);
  for (const part of partsOf(bytes)) {
    if (part.kind !== kind || (kind !== 'numbers' && part.metric !== metric)) continue;
    return kind === 'curve' ? decodeCurve(part.payload()) : kind === 'awd' ? decodeHistogram(part.payload()) : decodeNumbers(part.payload());
  }
  return null;
}

/** Stored bytes of a cache by part (the header, then each part as stored), for the benchmark's breakdown. */
export function describeAnalysis(bytes: Uint8Array): { part: string; bytes: number }[] {
  checkedVersion(bytes);
  const out = [{ part: 'header', bytes: 9 }];
  for (const part of partsOf(bytes)) {
    out[0]!.bytes += part.headerBytes;
    out.push({ part: `${part.kind}.${part.metric}`, bytes: part.storedBytes });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Parts

interface StoredPart {
  kind: PartKind;
  metric: CurveMetric;
  headerBytes: number;
  storedBytes: number;
  payload(): ByteReader;
}

function checkedVersion(bytes: Uint8Array): number {
  const version = analysisVersionOf(bytes);
  if (version === null || String.fromCharCode(bytes[0]!, bytes[1]!, bytes[2]!, bytes[3]!) !== MAGIC) {
    throw new Error(`analysis cache: not a ${MAGIC} cache (version ${version ?? 'unknown'})`);
  }
  return version;
}

function partsOf(bytes: Uint8Array): StoredPart[] {
  const reader = new ByteReader(bytes, 8);
  const count = reader.byte();
  const parts: StoredPart[] = [];
  for (let p = 0; p < count; p++) {
    const at = reader.offset;
    const kind = KINDS[reader.byte()];
    const metric = CURVE_METRICS[reader.byte()];
    const flags = reader.byte();
    const length = reader.varint();
    if (kind === undefined || metric === undefined) throw new Error(`analysis cache: part ${p} has an unknown kind or metric`);
    const stored = reader.take(length);
    parts.push({
      kind, metric, headerBytes: reader.offset - at - length, storedBytes: length,
      payload: () => new ByteReader((flags & DEFLATED) !== 0 ? inflateRawSync(stored) : stored, 0),
    });
  }
  return parts;
}

function curvePayload(curve: MetricCurve): Uint8Array {
  const { durations, values, starts } = curve;
  const n = durations.length;
  const out = new ByteWriter();
  out.varint(n);
  let previous = 0;
  for (let j = 0; j < n; j++) {
    const d = durations[j]!;
    if (!(d > previous)) throw new RangeError(`analysis cache: durations must ascend (${d} after ${previous})`);
    out.varint(d - previous);
    previous = d;
  }
  writeIntegers(out, starts, [1000, 1]);
  const escapes: number[] = [];
  let previousSum = 0;
  for (let j = 0; j < n; j++) {
    const v = values[j]!;
    const d = durations[j]!;
    const sum = Math.round(v * d);
    // S ≥ 0 and not −0 (which would decode as +0); a negative or odd value is escaped.
    if (Number.isSafeInteger(sum) && (sum > 0 || Object.is(sum, 0)) && Object.is(sum / d, v)) {
      out.varint(zigzag(sum - previousSum) + 1);
      previousSum = sum;
    } else {
      out.varint(0);
      escapes.push(v);
    }
  }
  writeFloats(out, escapes);
  return out.finish();
}

function decodeCurve(reader: ByteReader): MetricCurve {
  const n = reader.varint();
  const durations = new Int32Array(n);
  let previous = 0;
  for (let j = 0; j < n; j++) durations[j] = previous += reader.varint();
  const starts = readIntegers(reader, n);
  const tokens = new Float64Array(n);
  for (let j = 0; j < n; j++) tokens[j] = reader.varint();
  const escapes = readFloats(reader);
  const values = new Float64Array(n);
  let previousSum = 0;
  let escaped = 0;
  for (let j = 0; j < n; j++) {
    const token = tokens[j]!;
    if (token === 0) {
      values[j] = escapes[escaped++]!;
    } else {
      previousSum += unzigzag(token - 1);
      values[j] = previousSum / durations[j]!;
    }
  }
  return { durations, values, starts };
}

function histogramPayload(histogram: Float64Array): Uint8Array {
  const out = new ByteWriter();
  out.varint(histogram.length);
  writeIntegers(out, histogram, [1000, 1], false);
  return out.finish();
}

function decodeHistogram(reader: ByteReader): Float64Array {
  return readIntegers(reader, reader.varint());
}

/** The scalars bit for bit (NaN for "none"), then the heart-rate time (n = 0 for none). */
function numbersPayload(numbers: ActivityNumbers): Uint8Array {
  const out = new ByteWriter();
  const fourth = CURVE_METRICS.flatMap((metric) => [numbers.fourth[metric]?.sum ?? NaN, numbers.fourth[metric]?.count ?? NaN]);
  writeFloats(out, [numbers.recordedS, numbers.movingS, numbers.workJ ?? NaN, ...fourth]);
  const heartRate = numbers.heartRate;
  out.varint(heartRate?.bpm.length ?? 0);
  if (heartRate !== null && heartRate.bpm.length > 0) {
    writeIntegers(out, Float64Array.from(heartRate.bpm, (bpm) => bpm * BPM_SCALE), [1]);
    writeIntegers(out, heartRate.ms, [1000, 1], false);
  }
  return out.finish();
}

function decodeNumbers(reader: ByteReader): ActivityNumbers {
  const scalars = readFloats(reader);
  const n = reader.varint();
  const heartRate = n === 0 ? null : { bpm: readIntegers(reader, n).map((scaled) => scaled / BPM_SCALE), ms: readIntegers(reader, n) };
  const fourth: ActivityNumbers['fourth'] = {};
  CURVE_METRICS.forEach((metric, m) => {
    const sum = scalars[3 + 2 * m]!;
    if (sum === sum) fourth[metric] = { sum, count: scalars[4 + 2 * m]! };
  });
  const workJ = scalars[2]!;
  return { recordedS: scalars[0]!, movingS: scalars[1]!, workJ: workJ === workJ ? workJ : null, fourth, heartRate };
}

/**
 * `values` as integers of the first unit that divides them all: deltas (zigzag) or, with `delta` false,
 * plain non-negative varints; unit 0 and raw float64 when none does.
 */
function writeIntegers(out: ByteWriter, values: Float64Array, units: readonly number[], delta = true): void {
  const unit = units.find((u) => values.every((v, j) => {
    const scaled = v / u;
    const step = delta ? scaled - (j === 0 ? 0 : values[j - 1]! / u) : scaled;
    return Number.isSafeInteger(scaled) && Object.is(scaled * u, v) && Number.isSafeInteger(step) && (delta || scaled >= 0) && Number.isSafeInteger(zigzag(step));
  }));
  if (unit === undefined) {
    out.varint(0);
    writeFloats(out, Array.from(values));
    return;
  }
  out.varint(unit);
  out.byte(delta ? 1 : 0);
  let previous = 0;
  for (let j = 0; j < values.length; j++) {
    const scaled = values[j]! / unit;
    out.varint(delta ? zigzag(scaled - previous) : scaled);
    previous = scaled;
  }
}

function readIntegers(reader: ByteReader, n: number): Float64Array {
  const unit = reader.varint();
  if (unit === 0) {
    const values = readFloats(reader);
    if (values.length !== n) throw new Error(`analysis cache: ${values.length} raw values where ${n} were expected`);
    return values;
  }
  const delta = reader.byte() === 1;
  const out = new Float64Array(n);
  let previous = 0;
  for (let j = 0; j < n; j++) {
    const raw = reader.varint();
    previous = delta ? previous + unzigzag(raw) : raw;
    out[j] = previous * unit;
  }
  return out;
}

/** Float64 values bit for bit: each XOR the previous one, as 8 byte planes, most significant first. */
function writeFloats(out: ByteWriter, values: readonly number[]): void {
  const k = values.length;
  out.varint(k);
  const floats = Float64Array.from(values);
  const words = new Uint32Array(floats.buffer); // little-endian halves: 2j low, 2j + 1 high
  for (let w = words.length - 1; w >= 2; w--) words[w] = words[w]! ^ words[w - 2]!;
  const bytes = new Uint8Array(floats.buffer);
  for (let plane = 7; plane >= 0; plane--) {
    for (let j = 0; j < k; j++) out.byte(bytes[8 * j + plane]!);
  }
}

function readFloats(reader: ByteReader): Float64Array {
  const k = reader.varint();
  const floats = new Float64Array(k);
  const bytes = new Uint8Array(floats.buffer);
  for (let plane = 7; plane >= 0; plane--) {
    for (let j = 0; j < k; j++) bytes[8 * j + plane] = reader.byte();
  }
  const words = new Uint32Array(floats.buffer);
  for (let w = 2; w < words.length; w++) words[w] = words[w]! ^ words[w - 2]!;
  return floats;
}

// ---------------------------------------------------------------------------------------------------------
// Bytes: varints of safe integers (arithmetic, not 32-bit operators)

function zigzag(n: number): number {
  return n >= 0 ? 2 * n : -2 * n - 1;
}

function unzigzag(z: number): number {
  return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
}

class ByteWriter {
  private buffer = new Uint8Array(4096);
  private length = 0;

  byte(b: number): void {
    if (this.length === this.buffer.length) this.grow(1);
    this.buffer[this.length++] = b;
  }

  uint32(n: number): void {
    for (let k = 0; k < 4; k++) this.byte(Math.floor(n / 2 ** (8 * k)) & 0xff);
  }

  varint(n: number): void {
    if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`analysis cache: varint ${n} is not a safe integer ≥ 0`);
    while (n >= 0x80) {
      this.byte((n % 0x80) | 0x80);
      n = Math.floor(n / 0x80);
    }
    this.byte(n);
  }

  bytes(data: Uint8Array): void {
    this.varint(data.byteLength);
    this.grow(data.byteLength);
    this.buffer.set(data, this.length);
    this.length += data.byteLength;
  }

  finish(): Uint8Array {
    return this.buffer.slice(0, this.length);
  }

  private grow(extra: number): void {
    if (this.length + extra <= this.buffer.length) return;
    const next = new Uint8Array(Math.max(2 * this.buffer.length, this.length + extra));
    next.set(this.buffer.subarray(0, this.length));
    this.buffer = next;
  }
}

class ByteReader {
  constructor(private readonly data: Uint8Array, public offset: number) {}

  byte(): number {
    if (this.offset >= this.data.byteLength) throw new Error('analysis cache: truncated');
    return this.data[this.offset++]!;
  }

  varint(): number {
    let n = 0;
    let scale = 1;
    for (;;) {
      const b = this.byte();
      n += (b & 0x7f) * scale;
      if (b < 0x80) return n;
      scale *= 0x80;
      if (scale > 2 ** 56) throw new Error('analysis cache: varint too long');
    }
  }

  take(length: number): Uint8Array {
    if (this.offset + length > this.data.byteLength) throw new Error('analysis cache: truncated');
    const out = this.data.subarray(this.offset, this.offset + length);
    this.offset += length;
    return out;
  }
}
