/**
 * Question: what does a cached intensity-duration model call cost the store at 300 and at 3,000 activities,
 * and what do the watermark's indexes (schema.ts WATERMARK_*) save?
 *
 * A cached call reads only the input watermark (engine/service/model-inputs.ts): per input collection the
 * user's document count and latest write stamp. Counted over a store that counts its port calls
 * (test/support/counting-store.ts) on SQLite (a file); timed as the median of 50 cached calls, then again
 * after dropping the watermark indexes through a second connection (the store as it was before them: each
 * latest stamp a sort of every one of the user's documents).
 *
 *   npm run build && node dist/bench/run.js model-store-cost
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { createPool } from '../engine/pool/pool.js';
import { ANALYSIS_MEMO_BYTES, AnalysisMemo } from '../engine/service/analysis-cache.js';
import { ModelCache } from '../engine/service/model-cache.js';
import { getIntensityDurationModel } from '../engine/service/physiological-models.js';
import { openStore } from '../storage/open-store.js';
import { SCHEMA, indexName } from '../storage/schema.js';
import type { CollectionName } from '../storage/store.js';
import { countingStore } from '../test/support/counting-store.js';
import { tempDir } from '../test/support/stack.js';
import { median, ms, seedHistory } from './history.js';

export const question = 'A cached intensity-duration model call: store calls at 300 and 3,000 activities, and its time with and without the watermark indexes (SQLite)';

const SIZES = [300, 3_000] as const;

export async function run(): Promise<string> {
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
  try {
    for (const size of SIZES) {
      const userId = `bench-model-${size}`;
      await seedHistory(store, pool, userId, size, true);
      await call(userId);
      counting.reset();
      const answer = await call(userId);
      if (!answer.from_cache) throw new Error('model-store-cost: the second call was not answered from the cache');
      parts.push(`${size} activities: ${counting.total()} calls, ${ms(await median(50, () => call(userId)))} ms`);
    }
    // The store as it was: the same calls without the watermark indexes.
    const raw = new Database(file);
    for (const [name, spec] of Object.entries(SCHEMA)) {
      for (const index of spec.indexes) {
        if (index.fields.length === 3 && index.fields[2] === 'id') raw.exec(`DROP INDEX IF EXISTS "${indexName(name as CollectionName, index)}"`);
      }
    }
    raw.close();
    parts.push(`without the watermark indexes at ${SIZES[1]}: ${ms(await median(50, () => call(`bench-model-${SIZES[1]}`)))} ms`);
  } finally {
    await pool.destroy();
    await store.close();
  }
  return parts.join('; ');
}
