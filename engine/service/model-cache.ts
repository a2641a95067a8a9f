/**
 * The physiological models' result cache: bounded, least recently used first out, keyed by (user, sport,
 * metric, date, MODEL_ALGORITHM, input watermark) — model-inputs.ts's watermark changes with any input, so
 * an entry is never stale, only unreachable, and ages out. Values are the fit and the inputs a map reads
 * (a few hundred bytes), so entries are counted, not weighed. Hits and misses are counted for tests and
 * benchmarks. test/engine/physiological-models.test.ts.
 */

/** Entries kept: a few hundred bytes each; a season's training load holds one per local date (3,000 and more). */
export const MODEL_CACHE_ENTRIES = 20_000;

export class ModelCache<V> {
  private readonly entries = new Map<string, V>();
  hits = 0;
  misses = 0;

  constructor(private readonly maxEntries: number = MODEL_CACHE_ENTRIES) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }
}
