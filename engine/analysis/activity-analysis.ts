/**
 * The per-activity analysis cache (DESIGN.md §2 "derived caches per activity"): for power and for speed
 * where the activity has them, the mean-max curve on the full grid up to the longest section plus that
 * length itself (values and best-window starts), and the AWD histogram (recorded ms per intensity bin).
 * Computed at ingest in the worker, stored as a blob beside the series, versioned by ANALYSIS_VERSION so
 * a change of any algorithm below recomputes it (engine/service/analysis-cache.ts).
 *
 * Binary layout (little-endian, cold code): "THA1", uint32 header length, the header as JSON (version and
 * an entry list of {name, type, length, offset}), padding to 8 bytes, then each array at its offset.
 */
import { fullGrid } from '../kernels/duration-grid.js';
import { awdHistogram, histogramLength } from '../kernels/awd.js';
import { CURVE_METRICS, longestSection, metricValues, type CanonicalSeries, type CurveMetric } from './canonical-series.js';
import { meanMaxCurve, prefixOf, type MetricCurve } from './curves.js';

/**
 * Bump when the canonical series, the mean-max or the AWD kernels, the grid or this layout change: every
 * cache is recomputed (at engine start and whenever a stale one is read).
 */
export const ANALYSIS_VERSION = 1;

/** AWD bins per unit: whole watts, 0.01 m/s (ANALYTICS.md §5). */
export const AWD_RESOLUTION: Readonly<Record<CurveMetric, number>> = { power: 1, speed: 100 };

export interface ActivityAnalysis {
  version: number;
  curves: Partial<Record<CurveMetric, MetricCurve>>;
  /** Recorded ms per intensity bin (bin b = b / AWD_RESOLUTION[metric]). */
  awd: Partial<Record<CurveMetric, Float64Array>>;
}

export function analyzeActivity(series: CanonicalSeries): ActivityAnalysis {
  const analysis: ActivityAnalysis = { version: ANALYSIS_VERSION, curves: {}, awd: {} };
  const longest = longestSection(series.grid);
  for (const metric of CURVE_METRICS) {
    const values = metricValues(series, metric);
    if (values === null) continue;
    analysis.curves[metric] = meanMaxCurve(series, prefixOf(values), cacheGrid(longest));
    analysis.awd[metric] = histogramOf(values, series.grid.coverage, AWD_RESOLUTION[metric]);
  }
  return analysis;
}

/** The full grid up to the longest section, plus that length, so any duration it lasted has points around it. */
export function cacheGrid(longest: number): Int32Array {
  const grid = fullGrid(longest);
  if (longest === 0 || grid[grid.length - 1] === longest) return grid;
  const out = new Int32Array(grid.length + 1);
  out.set(grid);
  out[grid.length] = longest;
  return out;
}

export function histogramOf(values: Float64Array, coverage: Float64Array, resolution: number): Float64Array {
  const histogram = new Float64Array(histogramLength(values, coverage, resolution));
  awdHistogram(values, coverage, resolution, histogram);
  return histogram;
}

// ---------------------------------------------------------------------------------------------------------
// Binary codec

const MAGIC = 'THA1';
type ArrayKind = 'i32' | 'f64';
interface Entry { name: string; type: ArrayKind; length: number; offset: number }

export function encodeAnalysis(analysis: ActivityAnalysis): Uint8Array {
  const arrays: [string, Int32Array | Float64Array][] = [];
  for (const metric of CURVE_METRICS) {
    const curve = analysis.curves[metric];
    if (curve) arrays.push([`curve.${metric}.durations`, curve.durations], [`curve.${metric}.values`, curve.values], [`curve.${metric}.starts`, curve.starts]);
    const awd = analysis.awd[metric];
    if (awd) arrays.push([`awd.${metric}`, awd]);
  }
  const entries: Entry[] = [];
  let offset = 0;
  for (const [name, array] of arrays) {
    entries.push({ name, type: array instanceof Int32Array ? 'i32' : 'f64', length: array.length, offset });
    offset += align8(array.byteLength);
  }
  const header = new TextEncoder().encode(JSON.stringify({ version: analysis.version, entries }));
  const base = align8(8 + header.length);
  const bytes = new Uint8Array(base + offset);
  bytes.set(new TextEncoder().encode(MAGIC), 0);
  new DataView(bytes.buffer).setUint32(4, header.length, true);
  bytes.set(header, 8);
  for (const [index, [, array]] of arrays.entries()) {
    bytes.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), base + entries[index]!.offset);
  }
  return bytes;
}

export function decodeAnalysis(bytes: Uint8Array): ActivityAnalysis {
  if (new TextDecoder().decode(bytes.subarray(0, 4)) !== MAGIC) throw new Error('analysis cache: not a THA1 cache');
  const headerLength = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(4, true);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerLength))) as { version: number; entries: Entry[] };
  const base = align8(8 + headerLength);
  // Typed-array views need aligned offsets: copy once when the store's buffer is not 8-aligned.
  const own = (bytes.byteOffset & 7) === 0 ? bytes : bytes.slice();
  const read = (name: string): Int32Array | Float64Array | null => {
    const entry = header.entries.find((candidate) => candidate.name === name);
    if (!entry) return null;
    const at = own.byteOffset + base + entry.offset;
    return entry.type === 'i32' ? new Int32Array(own.buffer, at, entry.length) : new Float64Array(own.buffer, at, entry.length);
  };
  const analysis: ActivityAnalysis = { version: header.version, curves: {}, awd: {} };
  for (const metric of CURVE_METRICS) {
    const durations = read(`curve.${metric}.durations`);
    const values = read(`curve.${metric}.values`);
    const starts = read(`curve.${metric}.starts`);
    if (durations instanceof Int32Array && values instanceof Float64Array && starts instanceof Float64Array) {
      analysis.curves[metric] = { durations, values, starts };
    }
    const awd = read(`awd.${metric}`);
    if (awd instanceof Float64Array) analysis.awd[metric] = awd;
  }
  return analysis;
}

/** Stored bytes of a cache by part (the header, then each array), for the benchmark's breakdown. */
export function describeAnalysis(bytes: Uint8Array): { part: string; bytes: number }[] {
  const headerLength = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(4, true);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerLength))) as { entries: Entry[] };
  return [
    { part: 'header', bytes: align8(8 + headerLength) },
    ...header.entries.map((entry) => ({ part: entry.name, bytes: align8(entry.length * (entry.type === 'i32' ? 4 : 8)) })),
  ];
}

function align8(n: number): number {
  return (n + 7) & ~7;
}
