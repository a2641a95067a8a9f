/**
 * Question: what does a cached intensity-duration model call cost the store at 300 and at 3,000 activities,
 * and what do the watermark's indexes (schema.ts WATERMARK_*) save?
 *
 * A cached call reads only the input watermark (engine/service/model-inputs.ts): per input collection the
 * user's document count and latest write stamp. Counted over a store that counts its port calls
 * (test/support/counting-store.ts) on SQLite (a file); timed as the median of 50 cached calls, then again
 * after dropping the watermark indexes through a second connection (the store as it was before them: each
 * latest stamp a sort of every one of the user's documents). Rows: the cached call against its store read
 * alone (the watermark: the call's ceiling), and with the indexes against without (a floor to beat).
 *
 *   npm run build && node dist/bench/run.js model-store-cost
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { createPool } from '../engine/pool/pool.js';
import { ANALYSIS_MEMO_BYTES, AnalysisMemo } from '../engine/service/analysis-cache.js';
import { ModelCache } from '../engine/service/model-cache.js';
import { inputWatermark } from '../engine/service/model-inputs.js';
import { getIntensityDurationModel } from '../engine/service/physiological-models.js';
import { openStore } from '../storage/open-store.js';
import { SCHEMA, indexName } from '../storage/schema.js';
import type { CollectionName } from '../storage/store.js';
import { countingStore } from '../test/support/counting-store.js';
import { tempDir } from '../test/support/stack.js';
import { median, ms, seedHistory } from './history.js';
import { share, type BenchResult, type BenchRow } from './results.js';
import { quick } from './support.js';

export const question = 'A cached intensity-duration model call: store calls at 300 and 3,000 activities, and its time with and without the watermark indexes (SQLite)';

const SIZES = quick([300, 3_000], [30, 60]);
const RUNS = quick(50, 5);

export async function run(): Promise<BenchResult> {
  const file = path.join(tempDir(), 'threshold.sqlite');
  const store = await openStore({ mongodbUri: null, sqliteFile: file });
  const pool = createPool({ threads: 1 });
  const counting = countingStore(store);
  const deps = { store: counting.store, pool, memo: new AnalysisMemo(ANALYSIS_MEMO_BYTES), cache: new ModelCache<never>() };
  const model = getIntensityDurationModel(deps as never);
  const signal = new AbortController().signal;
  const call = (userId: string) => model(
    { user_id: userId, quantity: 'power', sport: 'cycling', date: '2024-03-31', durations: [60], all_durations: false } as never,
    { signal, deadline: Date.now() + 600_000 },
  );
  const parts: string[] = [];
  const rows: BenchRow[] = [];
  let withIndexes = 0;
  try {
    for (const size of SIZES) {
      const userId = `bench-model-${size}`;
      await seedHistory(store, pool, userId, size, true);
      await call(userId);
      counting.reset();
      const answer = await call(userId);
      if (!answer.from_cache) throw new Error('model-store-cost: the second call was not answered from the cache');
      const calls = counting.total();
      const callMs = await median(RUNS, () => call(userId));
      const readMs = await median(RUNS, () => inputWatermark(store, userId));
      withIndexes = callMs;
      parts.push(`${size} activities: ${calls} calls, ${ms(callMs)} ms, its store read alone (the input watermark) ${ms(readMs)} ms`);
      rows.push({
        question: `a cached intensity-duration model call at ${size} activities`, dataset: 'synthetic', figure: callMs, unit: 'ms',
        anchor: readMs, anchorLabel: 'its store read alone (the input watermark)', ratio: share(callMs, readMs, 'lower'),
      });
    }
    // The store as it was: the same calls without the watermark indexes.
    const raw = new Database(file);
    for (const [name, spec] of Object.entries(SCHEMA)) {
      for (const index of spec.indexes) {
        if (index.fields.length === 3 && index.fields[2] === 'id') raw.exec(`DROP INDEX IF EXISTS "${indexName(name as CollectionName, index)}"`);
      }
    }
    raw.close();
    const largest = SIZES[SIZES.length - 1]!;
    const withoutMs = await median(RUNS, () => call(`bench-model-${largest}`));
    parts.push(`without the watermark indexes at ${largest}: ${ms(withoutMs)} ms`);
    rows.push({
      question: `a cached model call at ${largest} activities, against the store without the watermark indexes`, dataset: 'synthetic', figure: withIndexes, unit: 'ms',
      anchor: withoutMs, anchorLabel: 'the same call without the indexes (a floor to beat)', ratio: share(withIndexes, withoutMs, 'lower'),
    });
  } finally {
    await pool.destroy();
    await store.close();
  }
  return { text: parts.join('; '), rows };
}
