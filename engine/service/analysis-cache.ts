/**
 * The per-activity analysis caches (engine/analysis/activity-analysis.ts) in the store: read the part a
 * longitudinal call needs (one metric's curves or histograms) and keep it decoded in memory, counted by the
 * bytes it holds, and compute the missing or stale ones from the series in the pool. Bringing every
 * activity to the current ANALYSIS_VERSION after a version change is cluster-wide work in the job queue
 * (engine/jobs/analysis-backfill.ts).
 *
 * Consistency without locks: each computation writes a blob under a fresh key, then points the record at
 * it with a conditional update (only if the record still names the key the computation started from). If
 * ingest replaced the activity meanwhile, the update matches nothing and the new blob is deleted; the
 * replaced blob is deleted once the record no longer names it. A reader therefore never pairs a record with
 * a cache of another series. test/engine/analysis-cache.test.ts covers it.
 */
import { randomBytes } from 'node:crypto';
import type { ActivityRecord, Store } from '../../storage/store.js';
import { ANALYSIS_VERSION } from '../analysis/activity-analysis.js';
import { analysisVersionOf, decodeAnalysisPart, type ActivityNumbers, type PartKind } from '../analysis/analysis-codec.js';
import type { CurveMetric } from '../analysis/canonical-series.js';
import type { MetricCurve } from '../analysis/curves.js';
import type { EnginePool } from '../pool/pool.js';
import { mapLimit } from './map-limit.js';
import { standalone } from '../pool/standalone.js';

/** What the cache reads of an activity record (a longitudinal call reads no more: activity-selection.ts). */
export type CachedActivity = Pick<ActivityRecord, 'id' | 'user_id' | 'start' | 'sport' | 'series_key' | 'analysis_key' | 'analysis_version'>;

export interface CacheDeps {
  store: Store;
  pool: EnginePool;
  /** Decoded caches kept in memory; without one every read goes to the store. */
  memo?: AnalysisMemo;
  /**
   * The analysis version records are brought to (default ANALYSIS_VERSION). Only a test that plays a
   * version bump names another; the stored bytes keep the codec's own layout version either way.
   */
  version?: number;
}

/**
 * Bytes of decoded cache parts an engine keeps in memory: 64 MiB holds the power curves of about 6,000
 * two-hour rides (9.3 KB of typed arrays each, plus ENTRY_OVERHEAD_BYTES).
 */
export const ANALYSIS_MEMO_BYTES = 64 * 1024 * 1024;

/**
 * What the memory adds to each entry beyond its typed arrays' buffers: the key string, the Map entry and the
 * JS objects of a curve and its three typed arrays (measured with --expose-gc on Node 20: about 1 KB).
 */
export const ENTRY_OVERHEAD_BYTES = 1024;

/** One decoded part of a cache: a curve, a histogram, the load numbers, or null when the activity has none of that metric. */
export type CachedPart = MetricCurve | Float64Array | ActivityNumbers | null;

/** Bytes a part holds: its distinct typed-array buffers (decoded parts own theirs) plus ENTRY_OVERHEAD_BYTES. */
export function cachedPartBytes(part: CachedPart): number {
  if (part === null) return ENTRY_OVERHEAD_BYTES;
  const buffers = new Set<ArrayBufferLike>(
    part instanceof Float64Array ? [part.buffer]
      : 'recordedS' in part ? (part.heartRate === null ? [] : [part.heartRate.bpm.buffer, part.heartRate.ms.buffer])
        : [part.durations.buffer, part.values.buffer, part.starts.buffer],
  );
  let bytes = ENTRY_OVERHEAD_BYTES;
  for (const buffer of buffers) bytes += buffer.byteLength;
  return bytes;
}

/**
 * Decoded cache parts by blob key and part, least recently used first out once `maxBytes` is passed; each
 * entry counted by what it holds (`sizeOf`: cachedPartBytes for parts). A key names one computation's bytes
 * for good (a recomputation writes a new key), so an entry is never stale. The engine keeps a second one of
 * the table files answered from those caches (AnswerMemo), with a budget of its own.
 */
export class AnalysisMemo<V = CachedPart> {
  private readonly entries = new Map<string, { part: V; bytes: number }>();
  private total = 0;
  /** Reads answered from memory and not, since construction (for benchmarks and tests). */
  hits = 0;
  misses = 0;

  constructor(private readonly maxBytes: number, private readonly sizeOf: (value: V, key: string) => number = cachedPartBytes as (value: V) => number) {}

  /** Entries held and their accounted bytes. */
  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.total };
  }

  /** The part, undefined when it is not held (null is a held "the activity has none"). */
  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.part;
  }

  set(key: string, part: V): void {
    const bytes = this.sizeOf(part, key);
    if (bytes > this.maxBytes || this.entries.has(key)) return;
    this.entries.set(key, { part, bytes });
    this.total += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.total <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.total -= entry.bytes;
    }
  }
}

/** A one-activity answer as the engine returns it: the table file and its row count. */
export interface Answer {
  data: Uint8Array;
  rows: number;
}

/**
 * Table files answered for one activity, by the cache key they derive from and the question (metric,
 * durations, format): a warm request is one record read and one lookup. Counted by the file and its key
 * (two bytes a character).
 */
export type AnswerMemo = AnalysisMemo<Answer>;

/**
 * Bytes of answers an engine keeps: the 19 default durations are 1.5 KB of Parquet (2.8 KB with key and
 * overhead), so about 6,000 answers; kept apart from ANALYSIS_MEMO_BYTES so many distinct questions never
 * push the curves out.
 */
export const ANSWER_MEMO_BYTES = 16 * 1024 * 1024;

export function answerMemo(maxBytes = ANSWER_MEMO_BYTES): AnswerMemo {
  // The key counts too: a list of up to MAX_DURATIONS durations is a question of up to ~16 KB.
  return new AnalysisMemo<Answer>(maxBytes, (answer, key) => answer.data.byteLength + 2 * key.length + ENTRY_OVERHEAD_BYTES);
}

/**
 * The memory key of something derived from `record`'s current cache (a decoded part, an answer): its blob
 * key, so a replaced activity or a refreshed cache is a new key, and `what`; null when the record has no
 * current cache (nothing about it is kept).
 */
export function derivedKey(record: Pick<CachedActivity, 'analysis_key' | 'analysis_version'>, what: string, version = ANALYSIS_VERSION): string | null {
  const key = record.analysis_version === version ? record.analysis_key : undefined;
  return key ? `${key}#${what}` : null;
}

/** A fresh blob key for an activity's analysis cache. */
export function analysisKey(activityId: string): string {
  return `analysis:${activityId}:${Date.now().toString(36)}${randomBytes(4).toString('hex')}`;
}

/**
 * The `metric` curves of `records`' current caches, in order (null for an activity without that metric or
 * whose series is gone): from memory, else decoded from the store. Missing or stale caches are computed
 * in the pool, `parallel` at a time.
 */
export async function loadCurves(deps: CacheDeps, records: readonly CachedActivity[], metric: CurveMetric, signal: AbortSignal, parallel = 2): Promise<(MetricCurve | null)[]> {
  return (await loadParts(deps, records, ['curve'], metric, signal, parallel))[0] as (MetricCurve | null)[];
}

/** The `metric` AWD histograms of `records`' current caches, as loadCurves reads curves. */
export async function loadHistograms(deps: CacheDeps, records: readonly CachedActivity[], metric: CurveMetric, signal: AbortSignal, parallel = 2): Promise<(Float64Array | null)[]> {
  return (await loadParts(deps, records, ['awd'], metric, signal, parallel))[0] as (Float64Array | null)[];
}

/** Both parts of `records`' caches in one pass: each cache read, or computed when missing or stale, once. */
export async function loadCurvesAndHistograms(
  deps: CacheDeps, records: readonly CachedActivity[], metric: CurveMetric, signal: AbortSignal, parallel = 2,
): Promise<{ curves: (MetricCurve | null)[]; histograms: (Float64Array | null)[] }> {
  const [curves, histograms] = await loadParts(deps, records, ['curve', 'awd'], metric, signal, parallel);
  return { curves: curves as (MetricCurve | null)[], histograms: histograms as (Float64Array | null)[] };
}

/**
 * The load numbers of `records`' current caches (ANALYTICS.md §10), as loadCurves reads curves: null for an
 * activity whose series is gone. One part per activity, filed under metric power.
 */
export async function loadNumbers(deps: CacheDeps, records: readonly CachedActivity[], signal: AbortSignal, parallel = 2): Promise<(ActivityNumbers | null)[]> {
  return (await loadParts(deps, records, ['numbers'], 'power', signal, parallel))[0] as (ActivityNumbers | null)[];
}

/**
 * One part of `record`'s current cache (from memory, else read and decoded from the store and remembered), or
 * undefined when the record has none of the current version or its blob is gone or of another layout: the
 * caller then computes from the series. Unlike loadCurves it never computes a cache (a one-activity call
 * answers from the series as fast as it could refresh the cache).
 */
export async function currentPart(deps: CacheDeps, record: Pick<CachedActivity, 'analysis_key' | 'analysis_version'>, kind: PartKind, metric: CurveMetric): Promise<CachedPart | undefined> {
  const memoKey = derivedKey(record, partSuffix(kind, metric), deps.version);
  if (memoKey === null) return undefined;
  const remembered = deps.memo?.get(memoKey);
  if (remembered !== undefined) return remembered;
  const bytes = await deps.store.blobs.get(record.analysis_key!);
  if (bytes === null || analysisVersionOf(bytes) !== ANALYSIS_VERSION) return undefined;
  return remember(deps, memoKey, bytes, kind, metric);
}

/**
 * Cache blobs read per store query (`Blobs.getMany`): a cache is tens of kilobytes, so a batch holds a few
 * megabytes, and 3,000 activities are a dozen queries (two commands each on MongoDB), not 6,000.
 */
export const CACHE_BATCH = 250;

/** Per kind of `kinds`, the part of each record's cache, in order. */
async function loadParts(
  deps: CacheDeps, records: readonly CachedActivity[], kinds: readonly PartKind[], metric: CurveMetric, signal: AbortSignal, parallel: number,
): Promise<CachedPart[][]> {
  const out: CachedPart[][] = kinds.map(() => new Array(records.length).fill(null));
  const stale: number[] = [];
  const unread: number[] = [];
  const suffixes = kinds.map((kind) => `#${partSuffix(kind, metric)}`);
  const keep = (index: number, key: string, bytes: Uint8Array) => {
    kinds.forEach((kind, k) => { out[k]![index] = remember(deps, key + suffixes[k], bytes, kind, metric); });
  };
  for (let index = 0; index < records.length; index++) {
    const record = records[index]!;
    const key = record.analysis_version === (deps.version ?? ANALYSIS_VERSION) ? record.analysis_key : undefined;
    if (key === undefined) {
      stale.push(index);
      continue;
    }
    const remembered = suffixes.map((suffix) => deps.memo?.get(key + suffix));
    if (remembered.every((part) => part !== undefined)) remembered.forEach((part, k) => { out[k]![index] = part!; });
    else unread.push(index);
  }
  for (let from = 0; from < unread.length; from += CACHE_BATCH) {
    const batch = unread.slice(from, from + CACHE_BATCH);
    const blobs = await deps.store.blobs.getMany(batch.map((index) => records[index]!.analysis_key!));
    signal.throwIfAborted();
    batch.forEach((index, j) => {
      const bytes = blobs[j]!;
      // A blob of another layout is recomputed, never misread (the record's version should have said so).
      if (bytes === null || analysisVersionOf(bytes) !== ANALYSIS_VERSION) stale.push(index);
      else keep(index, records[index]!.analysis_key!, bytes);
    });
  }
  signal.throwIfAborted();
  await mapLimit(stale, parallel, async (index) => {
    const refreshed = await refreshAnalysis(deps, records[index]!, signal);
    if (refreshed !== null) keep(index, refreshed.key, new Uint8Array(refreshed.analysis));
  });
  return out;
}

/** What a part's memory key adds to its blob key. */
function partSuffix(kind: PartKind, metric: CurveMetric): string {
  return `${kind}.${metric}`;
}

function remember(deps: CacheDeps, memoKey: string, bytes: Uint8Array, kind: PartKind, metric: CurveMetric): CachedPart {
  const part = kind === 'curve' ? decodeAnalysisPart(bytes, 'curve', metric)
    : kind === 'awd' ? decodeAnalysisPart(bytes, 'awd', metric) : decodeAnalysisPart(bytes, 'numbers', metric);
  deps.memo?.set(memoKey, part);
  return part;
}

/**
 * Computes an activity's cache from its stored series and points the record at it; null without a series.
 * Answers the cache and the key it is stored under (the record names it unless ingest replaced the activity
 * meanwhile; the bytes describe the series read here either way). The same write sets the record's `end` and
 * `duration` from the series as ingest does (an activity stored before its last sample held 1 s gets the
 * second back when a version change brings its cache up to date).
 */
export async function refreshAnalysis(deps: CacheDeps, record: CachedActivity, signal: AbortSignal): Promise<{ analysis: ArrayBuffer; key: string } | null> {
  const stored = await deps.store.blobs.get(record.series_key);
  if (stored === null) return null;
  const series = standalone(stored);
  const { analysis, end } = await deps.pool.run('analyzeSeries', { series, sport: record.sport }, { signal, transferList: [series] });
  const key = analysisKey(record.id);
  await deps.store.blobs.put(key, new Uint8Array(analysis), { userId: record.user_id });
  const updated = await deps.store.activities.updateOne(
    { id: record.id, user_id: record.user_id, analysis_key: record.analysis_key ?? null },
    { set: { analysis_key: key, analysis_version: deps.version ?? ANALYSIS_VERSION, ...(end !== null && { end, duration_s: (end - record.start) / 1000 }) } },
  );
  if (updated === null) await deps.store.blobs.delete(key);
  else if (record.analysis_key) await deps.store.blobs.delete(record.analysis_key);
  return { analysis, key };
}
