/**
 * A long history for the store-cost benchmarks (issue 24 item 7): `count` rides of one user, one a day, each a
 * record with a small series blob and an analysis cache under a key of its own (the first ride's cache
 * computed in the pool, the others copies of it, as distinct rides would have), and, on request, an uploaded
 * source with its original bytes and a daily per ride. Also the backends a benchmark runs on (benchBackends).
 */
import { randomBytes } from 'node:crypto';
import { createPool, type EnginePool } from '../engine/pool/pool.js';
import { analysisKey, refreshAnalysis } from '../engine/service/analysis-cache.js';
import { ANALYSIS_VERSION } from '../engine/analysis/activity-analysis.js';
import { openMongoStore } from '../storage/mongo/mongo-store.js';
import { openStore } from '../storage/open-store.js';
import { newId } from '../storage/ids.js';
import type { Store } from '../storage/store.js';
import { insertActivity } from '../test/support/activities.js';
import { dropTestDatabase } from '../test/support/mongo-server.js';
import { daily } from '../test/storage/records.js';
import { sourceRecord } from '../test/engine/support.js';
import type { BenchResult, BenchRow } from './results.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2016, 0, 1, 7);
/** Samples per ride: ten minutes at 1 Hz keeps seeding 3,000 rides short; the caches are what is read. */
const RIDE_ROWS = 600;

export interface BenchBackend {
  name: string;
  store: Store;
  close(): Promise<void>;
}

/**
 * The embedded SQLite store (in memory: seeding 3,000 rides into a file, one fsync per write, takes minutes on
 * a shared machine, and the figures asked for are counts), then MongoDB when MONGODB_URI names a server. The
 * bundled jongodb is left out: at 3,000 rides it spends minutes of CPU seeding, and its times say nothing
 * about a real server; the port calls, and so the MongoDB commands, are the same on either backend.
 */
export async function benchBackends(): Promise<{ backends: (() => Promise<BenchBackend>)[]; skipped: string | null }> {
  const sqlite = async (): Promise<BenchBackend> => {
    const store = await openStore({ mongodbUri: null, sqliteFile: ':memory:' });
    return { name: 'sqlite (in memory)', store, close: () => store.close() };
  };
  const uri = process.env.MONGODB_URI?.trim();
  if (!uri) return { backends: [sqlite], skipped: 'mongodb skipped: set MONGODB_URI to a server (the bundled jongodb is too slow at this size)' };
  const mongo = async (): Promise<BenchBackend> => {
    const database = `threshold_bench_${randomBytes(6).toString('hex')}`;
    const store = await openMongoStore({ uri, database });
    return {
      name: 'mongodb (MONGODB_URI)',
      store,
      async close() {
        await store.close();
        await dropTestDatabase(uri, database);
      },
    };
  };
  return { backends: [sqlite, mongo], skipped: null };
}

/**
 * Runs `measure` on a fresh store of each backend (benchBackends) with a one-thread pool; one line per
 * backend, prefixed by its name, and the line saying why MongoDB was skipped; each row's question names
 * its backend.
 */
export async function onEachBackend(measure: (store: Store, pool: EnginePool) => Promise<BenchResult>): Promise<BenchResult> {
  const pool = createPool({ threads: 1 });
  const { backends, skipped } = await benchBackends();
  const lines: string[] = [];
  const rows: BenchRow[] = [];
  try {
    for (const open of backends) {
      const backend = await open();
      try {
        const result = await measure(backend.store, pool);
        lines.push(`${backend.name}: ${result.text}`);
        rows.push(...result.rows.map((row) => ({ ...row, question: `${row.question}, ${backend.name}` })));
      } finally {
        await backend.close();
      }
    }
  } finally {
    await pool.destroy();
  }
  if (skipped) lines.push(skipped);
  return { text: lines.join('\n  '), rows };
}

/** Inserts `count` rides for `userId` (see the header); with `extras`, a source with original bytes and a daily per ride. */
export async function seedHistory(store: Store, pool: EnginePool, userId: string, count: number, extras = false): Promise<void> {
  let cache: Uint8Array | null = null;
  for (let k = 0; k < count; k++) {
    const record = await insertActivity(store, userId, {
      sport: 'cycling.road', start: T0 + k * DAY,
      series: { rows: RIDE_ROWS, metrics: { power: (i) => 150 + ((i * 7 + k) % 120) } },
    });
    if (cache === null) {
      const computed = await refreshAnalysis({ store, pool }, record, new AbortController().signal);
      cache = new Uint8Array(computed!.analysis);
    } else {
      const key = analysisKey(record.id);
      await store.blobs.put(key, cache, { userId });
      await store.activities.updateOne({ user_id: userId, id: record.id }, { set: { analysis_key: key, analysis_version: ANALYSIS_VERSION } });
    }
    if (!extras) continue;
    const source = sourceRecord({ user_id: userId, content_hash: newId(), status: 'processed', activity_ids: [record.id] });
    await store.blobs.put(source.bytes_key, new Uint8Array(8_000).fill(k % 251), { userId });
    await store.sources.insert(source);
    await store.dailies.insert(daily(newId(), userId, { measure: 'hrv', date: new Date(T0 + k * DAY).toISOString().slice(0, 10) }));
  }
}

export function ms(value: number): string {
  return value < 10 ? value.toFixed(2) : value.toFixed(0);
}

export async function median(runs: number, work: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let r = 0; r < runs; r++) {
    const started = performance.now();
    await work();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}
